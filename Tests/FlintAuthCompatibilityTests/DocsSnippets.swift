import FlintAuth    // no `import Foundation`: the import-only snippet relies on it

// The Swift snippets of README.md and docs/*.md, each as the page shows it (DocsTests in the server package checks
// that every ```swift block of the docs appears, whitespace aside, in a file a build compiles). They need a server
// to run, so nothing calls them; that they compile in Swift 6 mode is the test.
@MainActor enum DocsSnippets {
    /// README.md's tour and docs/flintauth.md, "Configuring it".
    static func configureAndSignUp() async throws {
        let options = FirebaseOptions(apiKey: "AIza…", projectID: "demo-flint",
                                      serverURL: URL(string: "http://127.0.0.1:9099"))   // your Flint server
        FirebaseApp.configure(options: options)

        let result = try await Auth.auth().createUser(withEmail: "ada@example.com", password: "correct horse")
        let idToken = try await result.user.getIDToken()
        _ = idToken
    }

    /// docs/flintauth.md: `import FlintAuth` alone brings Foundation's types.
    static func importOnly() -> ActionCodeSettings {
        let settings = ActionCodeSettings()
        settings.url = URL(string: "https://example.com/finish?sent=\(Date().timeIntervalSince1970)")
        return settings
    }

    /// docs/flintauth.md: errors matched by code.
    static func errorCodes(email: String, password: String) async throws {
        do {
            try await Auth.auth().signIn(withEmail: email, password: password)
        } catch {
            switch AuthErrorCode(rawValue: (error as NSError).code)?.code {
            case .userNotFound?: print("No account for \(email)")
            case AuthErrorCode.Code.wrongPassword?: print("Wrong password")
            default: throw error
            }
        }
    }

    /// docs/flintauth.md: the async sequences.
    static func authStateChanges() {
        let watcher = Task {
            for await user in Auth.auth().authStateChanges {
                print(user?.uid ?? "signed out")
            }
        }
        watcher.cancel()
    }

    /// docs/phone.md, "From Swift".
    static func phoneSignIn(code: String) async throws {
        let provider = PhoneAuthProvider.provider()
        let verificationID = try await provider.verifyPhoneNumber("+15555550100", uiDelegate: nil)
        let credential = provider.credential(withVerificationID: verificationID, verificationCode: code)
        let result = try await Auth.auth().signIn(with: credential)      // or user.link(with:), reauthenticate(with:)
        _ = result
    }
}
