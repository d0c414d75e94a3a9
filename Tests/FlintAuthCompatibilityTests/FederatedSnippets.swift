import FlintAuth
import Foundation

/// "Authenticate Using Apple", "Authenticate Using Facebook Login" and "Authenticate Using Google Sign-In
/// on Apple Platforms". The providers' own SDK types are replaced by the values the guides read from them.
final class FederatedViewController: SnippetViewController {
    // Unhashed nonce.
    var currentNonce: String?

    func startSignInWithAppleFlow() -> String {
        let nonce = AuthNonce.random()
        currentNonce = nonce
        // request.nonce = sha256(nonce)
        return AuthNonce.sha256(nonce)
    }

    /// The body of `authorizationController(controller:didCompleteWithAuthorization:)`.
    func didCompleteWithAppleID(identityToken: Data?, fullName: PersonNameComponents?) {
        guard let nonce = currentNonce else {
            fatalError("Invalid state: A login callback was received, but no login request was sent.")
        }
        guard let appleIDToken = identityToken else {
            print("Unable to fetch identity token")
            return
        }
        guard let idTokenString = String(data: appleIDToken, encoding: .utf8) else {
            print("Unable to serialize token string from data: \(appleIDToken.debugDescription)")
            return
        }
        // Initialize a Firebase credential, including the user's full name.
        let credential = OAuthProvider.appleCredential(withIDToken: idTokenString,
                                                       rawNonce: nonce,
                                                       fullName: fullName)
        // Sign in with Firebase.
        Auth.auth().signIn(with: credential) { authResult, error in
            if let error {
                // Error. If error.code == .MissingOrInvalidNonce, make sure
                // you're sending the SHA256-hashed nonce as a hex string with
                // your request to Apple.
                print(error.localizedDescription)
                return
            }
            // User is signed in to Firebase with Apple.
            // ...
            self.showMessagePrompt(authResult?.user.uid ?? "")
        }
    }

    /// Deleting an account: revoke the Apple tokens first.
    func deleteCurrentUser(authCodeString: String) {
        let user = Auth.auth().currentUser
        Task {
            do {
                try await Auth.auth().revokeToken(withAuthorizationCode: authCodeString)
                try await user?.delete()
                self.showMessagePrompt("Deleted")
            } catch {
                self.showMessagePrompt(error.localizedDescription)
            }
        }
    }

    /// Classic Facebook Login (`AccessToken.current!.tokenString`).
    func facebookLogin(accessTokenString: String) {
        let credential = FacebookAuthProvider
            .credential(withAccessToken: accessTokenString)
        Auth.auth().signIn(with: credential) { authResult, error in
            if let error = error {
                let authError = error as NSError
                self.showMessagePrompt(authError.localizedDescription)
                return
            }
            // User is signed in
            // ...
        }
    }

    /// Facebook Limited Login (`AuthenticationToken.current?.tokenString`).
    func facebookLimitedLogin(idTokenString: String?) {
        // Initialize a Firebase credential.
        let nonce = currentNonce
        let credential = OAuthProvider.credential(providerID: AuthProviderID.facebook,
                                                  idToken: idTokenString!,
                                                  rawNonce: nonce)
        Auth.auth().signIn(with: credential) { authResult, error in
            // ...
        }
    }

    /// Google Sign-In (`result?.user.idToken?.tokenString`, `user.accessToken.tokenString`).
    func googleSignIn(idToken: String?, accessTokenString: String) {
        guard let idToken else {
            // ...
            return
        }
        let credential = GoogleAuthProvider.credential(withIDToken: idToken,
                                                       accessToken: accessTokenString)
        Auth.auth().signIn(with: credential) { result, error in
            // At this point, our user is signed in
        }
        _ = GoogleAuthProviderID
    }

    func customTokenSignIn(customToken: String?) {
        Auth.auth().signIn(withCustomToken: customToken ?? "") { user, error in
            // ...
        }
    }

    /// A generic OAuth provider's web flow, as the guides for OpenID Connect and Microsoft write it.
    func oauthProviderSignIn() {
        let provider = OAuthProvider(providerID: "oidc.example-provider")
        provider.customParameters = [
            "prompt": "consent",
            "login_hint": "user@example.com",
        ]
        provider.scopes = ["mail.read", "calendars.read"]
        provider.getCredentialWith(nil) { credential, error in
            if error != nil {
                // Handle error.
            }
            if let credential = credential {
                Auth.auth().signIn(with: credential) { authResult, error in
                    if error != nil {
                        // Handle error.
                    }
                    self.showMessagePrompt(authResult?.user.uid ?? "")
                }
            }
        }
    }

    /// "Authenticate Using Microsoft on Apple Platforms": the web flow of `microsoft.com`.
    func microsoftSignIn() {
        let provider = OAuthProvider(providerID: "microsoft.com")
        provider.customParameters = [
            "prompt": "consent",
            "login_hint": "user@firstadd.onmicrosoft.com",
        ]
        provider.scopes = ["mail.read", "calendars.read"]
        provider.getCredentialWith(nil) { credential, error in
            if error != nil {
                // Handle error.
            }
            if credential != nil {
                Auth.auth().signIn(with: credential!) { authResult, error in
                    if error != nil {
                        // Handle error.
                    }
                    // User is signed in.
                    // IdP data available in authResult.additionalUserInfo.profile.
                    guard let oauthCredential = authResult?.credential as? OAuthCredential else { return }
                    // OAuth access token can also be retrieved:
                    // oauthCredential.accessToken
                    // OAuth ID token can also be retrieved:
                    // oauthCredential.idToken
                    self.showMessagePrompt(oauthCredential.accessToken ?? "")
                }
            }
        }
    }

    /// "Authenticate Using GitHub on Apple Platforms": the web flow, and a token the app got from GitHub itself.
    func gitHubSignIn(accessToken: String) async throws {
        let provider = OAuthProvider(providerID: "github.com")
        provider.scopes = ["user:email"]
        provider.customParameters = ["allow_signup": "false"]
        let credential = try await provider.credential(with: nil)
        let result = try await Auth.auth().signIn(with: credential)
        showMessagePrompt(result.user.uid)

        let tokenCredential = GitHubAuthProvider.credential(withToken: accessToken)
        Auth.auth().signIn(with: tokenCredential) { authResult, error in
            if let error = error {
                self.showMessagePrompt(error.localizedDescription)
                return
            }
            // User is signed in.
            _ = GitHubAuthProvider.id
        }
    }

    func oauthProviderSignInAsync() async throws {
        let provider = OAuthProvider(providerID: "oidc.example-provider")
        let credential = try await provider.getCredentialWith(nil)
        let result = try await Auth.auth().signIn(with: credential)
        showMessagePrompt(result.user.uid)
    }
}
