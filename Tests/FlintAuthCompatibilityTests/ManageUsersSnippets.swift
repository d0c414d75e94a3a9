import FlintAuth
import Foundation

/// "Manage Users in Firebase" and "Link Multiple Auth Providers to an Account Using Apple Platforms".
final class AccountViewController: SnippetViewController {
    var displayName = "Ada"
    var email = "ada@example.com"
    var password = "correct horse"
    var handle: AuthStateDidChangeListenerHandle?

    func viewWillAppear() {
        handle = Auth.auth().addStateDidChangeListener { auth, user in
            // ...
        }
    }

    func viewWillDisappear() {
        Auth.auth().removeStateDidChangeListener(handle!)
    }

    func profile() {
        let user = Auth.auth().currentUser
        if let user = user {
            // The user's ID, unique to the Firebase project.
            // Do NOT use this value to authenticate with your backend server,
            // if you have one. Use getTokenWithCompletion:completion: instead.
            let uid = user.uid
            let email = user.email
            let photoURL = user.photoURL
            var multiFactorString = "MultiFactor: "
            for info in user.multiFactor.enrolledFactors {
                multiFactorString += info.displayName ?? "[DispayName]"
                multiFactorString += " "
            }
            showMessagePrompt("\(uid) \(email ?? "") \(photoURL?.absoluteString ?? "") \(multiFactorString)")
        }
        if let user = user {
            for profile in user.providerData {
                let providerID = profile.providerID
                let uid = profile.uid  // Provider-specific UID
                let name = profile.displayName
                let email = profile.email
                let photoURL = profile.photoURL
                showMessagePrompt("\(providerID) \(uid) \(name ?? "") \(email ?? "") \(photoURL?.absoluteString ?? "")")
            }
        }
    }

    func updateProfile() {
        let changeRequest = Auth.auth().currentUser?.createProfileChangeRequest()
        changeRequest?.displayName = displayName
        changeRequest?.commitChanges { error in
            // ...
        }
    }

    func updateEmailAndVerify() {
        Auth.auth().currentUser?.updateEmail(to: email) { error in
            // ...
        }
        Auth.auth().currentUser?.sendEmailVerification { error in
            // ...
        }
        Auth.auth().currentUser?.sendEmailVerification(beforeUpdatingEmail: email) { error in
            // ...
        }
    }

    func passwords() {
        Auth.auth().currentUser?.updatePassword(to: password) { error in
            // ...
        }
        Auth.auth().sendPasswordReset(withEmail: email) { error in
            // ...
        }
    }

    func deleteUser() {
        let user = Auth.auth().currentUser
        user?.delete { error in
            if let error = error {
                // An error happened.
                self.showMessagePrompt(error.localizedDescription)
            } else {
                // Account deleted.
            }
        }
    }

    func reauthenticate(credential: AuthCredential) {
        let user = Auth.auth().currentUser
        // Prompt the user to re-provide their sign-in credentials
        user?.reauthenticate(with: credential) { result, error in
            if let error = error {
                // An error happened.
                self.showMessagePrompt(error.localizedDescription)
            } else {
                // User re-authenticated.
            }
        }
    }

    func link(credential: AuthCredential) {
        Auth.auth().currentUser?.link(with: credential) { authResult, error in
            // ...
        }
        let user = Auth.auth().currentUser
        user?.link(with: credential)
    }

    func unlink(providerID: String?) {
        Auth.auth().currentUser?.unlink(fromProvider: providerID!) { user, error in
            // ...
        }
    }

    /// Completion handlers are optional wherever FirebaseAuth's are.
    func withoutCompletionHandlers(credential: AuthCredential) {
        let user = Auth.auth().currentUser
        user?.reauthenticate(with: credential)
        user?.unlink(fromProvider: GoogleAuthProviderID)
        user?.reload()
        user?.sendEmailVerification()
        user?.delete()
        Auth.auth().signInAnonymously()
        Auth.auth().signIn(withCustomToken: "token")
        Auth.auth().sendPasswordReset(withEmail: email)
        Auth.auth().updateCurrentUser(user)
    }

    func idToken() {
        let currentUser = Auth.auth().currentUser
        currentUser?.getIDTokenForcingRefresh(true) { idToken, error in
            if let error = error {
                // Handle error
                self.showMessagePrompt(error.localizedDescription)
                return
            }
            // Send token to your backend via HTTPS
            // ...
            self.showMessagePrompt(idToken ?? "")
        }
    }

    func shareAcrossApps() {
        do {
            try Auth.auth().useUserAccessGroup("TEAMID.com.example.group1")
        } catch let error as NSError {
            print("Error changing user access group: %@", error)
        }
    }

    func switchUser(to user: User) {
        Auth.auth().updateCurrentUser(user) { error in
            // ...
        }
    }

    func observeAuthState() -> NSObjectProtocol {
        NotificationCenter.default.addObserver(forName: .AuthStateDidChange, object: Auth.auth(), queue: nil) { _ in
            // ...
        }
    }
}

/// `AppDelegate.application(_:didFinishLaunchingWithOptions:)` of the getting-started guide.
func configureFirebase() {
    FirebaseApp.configure()
    Auth.auth().useEmulator(withHost: "127.0.0.1", port: 9099)
}
