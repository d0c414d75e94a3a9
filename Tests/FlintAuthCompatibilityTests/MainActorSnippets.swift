import FlintAuth
import Foundation

/// A view model of a Swift 6 app: main-actor isolated, updating its own state inside completion
/// handlers, as app code written against FirebaseAuth does.
@MainActor
final class SignInViewModel {
    var statusText = ""
    var isSignedIn = false
    var idToken: String?

    func signIn(email: String, password: String) {
        Auth.auth().signIn(withEmail: email, password: password) { authResult, error in
            if let error {
                self.statusText = error.localizedDescription
                return
            }
            self.isSignedIn = authResult != nil
            self.statusText = "Signed in as \(authResult?.user.email ?? "")"
            authResult?.user.getIDToken { token, _ in
                self.idToken = token
            }
        }
    }

    func signOut() {
        do {
            try Auth.auth().signOut()
            isSignedIn = false
        } catch {
            statusText = error.localizedDescription
        }
    }
}

/// A view controller that follows the signed-in user: the listeners run on the main actor, so it updates
/// its own state in them.
final class ProfileViewController: SnippetViewController {
    var handle: AuthStateDidChangeListenerHandle?
    var tokenHandle: IDTokenDidChangeListenerHandle?
    var signedInUID: String?

    func viewWillAppear() {
        handle = Auth.auth().addStateDidChangeListener { [weak self] auth, user in
            self?.signedInUID = user?.uid
            self?.showMessagePrompt(user?.email ?? "Signed out")
        }
        tokenHandle = Auth.auth().addIDTokenDidChangeListener { [weak self] _, user in
            self?.signedInUID = user?.uid
        }
    }

    func viewWillDisappear() {
        Auth.auth().removeStateDidChangeListener(handle!)
        Auth.auth().removeIDTokenDidChangeListener(tokenHandle!)
    }
}
