import FlintAuth
import Foundation

/// "Authenticate with Firebase Anonymously on Apple Platforms".
final class AnonymousViewController: SnippetViewController {
    var isAnonymous = false

    func signInAnonymously() {
        Auth.auth().signInAnonymously { authResult, error in
            guard let user = authResult?.user else { return }
            let isAnonymous = user.isAnonymous  // true
            let uid = user.uid
            self.isAnonymous = isAnonymous
            self.showMessagePrompt(uid)
        }
    }

    func convertToPermanentAccount(email: String, password: String) {
        let credential = EmailAuthProvider.credential(withEmail: email, password: password)
        Auth.auth().currentUser?.link(with: credential) { authResult, error in
            // ...
        }
    }
}
