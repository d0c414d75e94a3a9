import FlintAuth
import Foundation

/// "Authenticate with Firebase Using Email Link in Apple Platforms".
final class EmailLinkViewController: SnippetViewController {
    var email = "ada@example.com"
    var link = ""

    func sendLink() {
        let actionCodeSettings = ActionCodeSettings()
        actionCodeSettings.url = URL(string: "https://www.example.com")
        // The sign-in operation has to always be completed in the app.
        actionCodeSettings.handleCodeInApp = true
        actionCodeSettings.setIOSBundleID(Bundle.main.bundleIdentifier ?? "com.example.ios")
        actionCodeSettings.setAndroidPackageName("com.example.android",
                                                 installIfNotAvailable: false, minimumVersion: "12")

        Auth.auth().sendSignInLink(toEmail: email,
                                   actionCodeSettings: actionCodeSettings) { error in
            // ...
            if let error = error {
                self.showMessagePrompt(error.localizedDescription)
                return
            }
            // The link was successfully sent. Inform the user.
            // Save the email locally so you don't need to ask the user for it again
            // if they open the link on the same device.
            UserDefaults.standard.set(self.email, forKey: "Email")
            self.showMessagePrompt("Check your email for link")
            // ...
        }
    }

    func signIn() {
        if Auth.auth().isSignIn(withEmailLink: link) {
            Auth.auth().signIn(withEmail: email, link: self.link) { user, error in
                // ...
            }
        }
    }

    func linkToCurrentUser() {
        let credential = EmailAuthProvider.credential(withEmail: email, link: link)
        Auth.auth().currentUser?.link(with: credential) { authData, error in
            if error != nil {
                // And error occurred during linking.
                return
            }
            // The provider was successfully linked.
            // The phone user can now sign in with their phone number or email.
        }
    }

    func reauthenticate() {
        let credential = EmailAuthProvider.credential(withEmail: email, link: link)
        Auth.auth().currentUser?.reauthenticate(with: credential) { authData, error in
            if error != nil {
                // And error occurred during re-authentication.
                return
            }
            // The user was successfully re-authenticated.
        }
    }

    func fetchSignInMethods() {
        Auth.auth().fetchSignInMethods(forEmail: email) { signInMethods, error in
            if signInMethods?.contains(EmailPasswordAuthSignInMethod) == true {
                // User can sign in with email/password.
            }
            if signInMethods?.contains(EmailLinkAuthSignInMethod) == true {
                // User can sign in with email/link.
            }
        }
    }
}
