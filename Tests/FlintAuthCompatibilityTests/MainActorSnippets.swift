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
