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

    // "Enforcing the password policy on the client side" (Identity Platform's guide shows it for the web SDK;
    // FirebaseAuth for Apple platforms has no `validatePassword`), written the way the guides write Swift.
    func validatePasswordAsync() async {
        do {
            let status = try await Auth.auth().validatePassword(password)
            if !status.isValid {
                // Show the user which requirements the password misses.
                let policy = status.passwordPolicy
                var missing: [String] = []
                if !status.meetsMinPasswordLength { missing.append("at least \(policy.minPasswordLength) characters") }
                if !status.meetsMaxPasswordLength, let maximum = policy.maxPasswordLength {
                    missing.append("at most \(maximum) characters")
                }
                if !status.containsLowercaseLetter { missing.append("a lowercase letter") }
                if !status.containsUppercaseLetter { missing.append("an uppercase letter") }
                if !status.containsNumericCharacter { missing.append("a number") }
                if !status.containsNonAlphanumericCharacter {
                    missing.append("one of \(policy.allowedNonAlphanumericCharacters)")
                }
                showMessagePrompt("The password needs " + missing.joined(separator: ", "))
            }
        } catch {
            showMessagePrompt(error.localizedDescription)
        }
    }

    func validatePassword() {
        Auth.auth().validatePassword(password) { [weak self] status, error in
            guard let strongSelf = self else { return }
            if let error {
                strongSelf.showMessagePrompt(error.localizedDescription)
            } else if let status, !status.isValid {
                strongSelf.showMessagePrompt("The password does not meet the requirements.")
            }
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
