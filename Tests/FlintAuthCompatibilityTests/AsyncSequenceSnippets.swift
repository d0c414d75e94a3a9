import FlintAuth

/// FirebaseAuth 12.12's async sequences of the signed-in user.
final class SessionViewController: SnippetViewController {
    var watcher: Task<Void, Never>?
    var idToken: String?

    func viewWillAppear() {
        watcher = Task {
            for await user in Auth.auth().authStateChanges {
                showMessagePrompt(user.map { "Signed in as \($0.uid)" } ?? "Signed out")
            }
        }
    }

    func viewWillDisappear() {
        watcher?.cancel()
    }

    func followIDTokens() async {
        if #available(iOS 18.0, macOS 15.0, *) {
            for await user in Auth.auth().idTokenChanges {
                idToken = try? await user?.getIDToken()
            }
        }
    }
}
