import FlintAuth
import Foundation

/// "Authenticate with Firebase on Apple Platforms using a Phone Number".
final class PhoneViewController: SnippetViewController {
    var phoneNumber = "+16505554567"
    var verificationCode = "123456"

    func sendCode() {
        PhoneAuthProvider.provider()
            .verifyPhoneNumber(phoneNumber, uiDelegate: nil) { verificationID, error in
                if let error = error {
                    self.showMessagePrompt(error.localizedDescription)
                    return
                }
                // Sign in using the verificationID and the code sent to the user
                // ...
                UserDefaults.standard.set(verificationID, forKey: "authVerificationID")
            }
    }

    func signIn() {
        let verificationID = UserDefaults.standard.string(forKey: "authVerificationID")
        let credential = PhoneAuthProvider.provider().credential(
            withVerificationID: verificationID!,
            verificationCode: verificationCode
        )
        Auth.auth().signIn(with: credential) { authResult, error in
            if let error = error {
                let authError = error as NSError
                if authError.code == AuthErrorCode.secondFactorRequired.rawValue {
                    // The user is a multi-factor user. Second factor challenge is required.
                    let resolver = authError
                        .userInfo[AuthErrorUserInfoMultiFactorResolverKey] as! MultiFactorResolver
                    var displayNameString = ""
                    for tmpFactorInfo in resolver.hints {
                        displayNameString += tmpFactorInfo.displayName ?? ""
                        displayNameString += " "
                    }
                    self.showMessagePrompt("Select factor to sign in\n\(displayNameString)")
                } else {
                    self.showMessagePrompt(error.localizedDescription)
                }
                return
            }
            // User is signed in
            // ...
        }
    }

    func signInAsync() async throws {
        let verificationID = try await PhoneAuthProvider.provider().verifyPhoneNumber(phoneNumber, uiDelegate: nil)
        let credential = PhoneAuthProvider.provider().credential(withVerificationID: verificationID,
                                                                 verificationCode: verificationCode)
        let authResult = try await Auth.auth().signIn(with: credential)
        showMessagePrompt(authResult.user.phoneNumber ?? "")
    }

    func application(didRegisterForRemoteNotificationsWithDeviceToken deviceToken: Data) {
        Auth.auth().setAPNSToken(deviceToken, type: .prod)
    }

    func application(didReceiveRemoteNotification notification: [AnyHashable: Any]) {
        if Auth.auth().canHandleNotification(notification) {
            return
        }
        // This notification is not auth related; it should be handled separately.
    }

    func application(open url: URL) -> Bool {
        if Auth.auth().canHandle(url) {
            return true
        }
        // URL not auth related; it should be handled separately.
        return false
    }
}
