import FlintAuth
import Foundation

/// "Authenticate with Firebase using Password-Based Accounts on Apple Platforms".
final class PasswordViewController: SnippetViewController {
    var email = "ada@example.com"
    var password = "correct horse"

    func createAccount() {
        Auth.auth().createUser(withEmail: email, password: password) { authResult, error in
            // ...
        }
    }

    func signIn() {
        Auth.auth().signIn(withEmail: email, password: password) { [weak self] authResult, error in
            guard let strongSelf = self else { return }
            // ...
            strongSelf.showMessagePrompt(authResult?.user.uid ?? "")
        }
    }

    func signInAsync() async {
        do {
            let authResult = try await Auth.auth().signIn(withEmail: email, password: password)
            showMessagePrompt(authResult.user.uid)
        } catch {
            showMessagePrompt(error.localizedDescription)
        }
    }

    func signOut() {
        let firebaseAuth = Auth.auth()
        do {
            try firebaseAuth.signOut()
        } catch let signOutError as NSError {
            print("Error signing out: %@", signOutError)
        }
    }

    func handle(_ error: Error?) {
        if let error = error as NSError? {
            switch AuthErrorCode(rawValue: error.code) {
            case .operationNotAllowed:
                showMessagePrompt("Enable email/password accounts in the console.")
            case .emailAlreadyInUse:
                showMessagePrompt("The email address is already in use by another account.")
            case .invalidEmail, .wrongPassword:
                showMessagePrompt("The email address or password is wrong.")
            default:
                showMessagePrompt("Error: \(error.localizedDescription)")
            }
        }
    }
}
