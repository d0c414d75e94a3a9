import FlintAuth

// No `import Foundation`: `import FirebaseAuth` alone gives app code Foundation's types, so `import FlintAuth`
// must too.

/// An app's profile screen in a file that imports the auth SDK and nothing else.
final class ImportOnlyProfile {
    var photoURL: URL?
    var lastSignIn: Date?

    func show(_ user: User) {
        photoURL = user.photoURL
        lastSignIn = user.metadata.lastSignInDate
        UserDefaults.standard.set(user.uid, forKey: "uid")
    }

    func idTokenData(of user: User) async throws -> Data {
        Data(try await user.getIDToken().utf8)
    }

    func sendLink(to email: String) async throws {
        let settings = ActionCodeSettings()
        settings.url = URL(string: "https://example.com/finish?request=\(UUID().uuidString)")
        settings.handleCodeInApp = true
        try await Auth.auth().sendSignInLink(toEmail: email, actionCodeSettings: settings)
    }

    func isWrongPassword(_ error: any Error) -> Bool {
        let error = error as NSError
        return error.domain == AuthErrorDomain && error.code == AuthErrorCode.wrongPassword.rawValue
    }
}
