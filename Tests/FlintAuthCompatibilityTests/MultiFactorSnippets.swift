import FlintAuth
import Foundation

/// "Add multi-factor authentication to your iOS app" and "Add TOTP multi-factor authentication".
final class MultiFactorViewController: SnippetViewController {
    var email = "ada@example.com"
    var password = "correct horse"
    var phoneNumber = "+16505554567"
    var selectedIndex = 0
    var verificationCodeFromUser = "123456"

    func enroll() {
        let user = Auth.auth().currentUser
        user?.multiFactor.getSessionWithCompletion({ session, error in
            // Send SMS verification code.
            PhoneAuthProvider.provider().verifyPhoneNumber(
                self.phoneNumber,
                uiDelegate: nil,
                multiFactorSession: session
            ) { verificationId, error in
                // verificationId will be needed for enrollment completion.
                // Ask user for the verification code.
                let credential = PhoneAuthProvider.provider().credential(
                    withVerificationID: verificationId!,
                    verificationCode: self.verificationCodeFromUser)
                let assertion = PhoneMultiFactorGenerator.assertion(with: credential)
                // Complete enrollment. This will update the underlying tokens
                // and trigger ID token change listener.
                user?.multiFactor.enroll(with: assertion, displayName: "Phone") { error in
                    // ...
                }
            }
        })
    }

    func signIn() {
        Auth.auth().signIn(withEmail: email, password: password) { result, error in
            let authError = error as NSError?
            if authError == nil || authError!.code != AuthErrorCode.secondFactorRequired.rawValue {
                // User is not enrolled with a second factor or is successfully signed in.
            } else {
                let resolver = authError!.userInfo[AuthErrorUserInfoMultiFactorResolverKey] as! MultiFactorResolver
                // Ask user which second factor to use.
                let hint = resolver.hints[self.selectedIndex] as! PhoneMultiFactorInfo
                // Send SMS verification code
                PhoneAuthProvider.provider().verifyPhoneNumber(
                    with: hint,
                    uiDelegate: nil,
                    multiFactorSession: resolver.session
                ) { verificationId, error in
                    if error != nil {
                        // Failed to verify phone number.
                    }
                    // Ask user for the SMS verification code.
                    let credential = PhoneAuthProvider.provider().credential(
                        withVerificationID: verificationId!,
                        verificationCode: self.verificationCodeFromUser)
                    let assertion = PhoneMultiFactorGenerator.assertion(with: credential)
                    // Complete sign-in.
                    resolver.resolveSignIn(with: assertion) { authResult, error in
                        if error != nil {
                            // User successfully signed in with the second factor phone number.
                        }
                    }
                }
            }
        }
    }

    func enrollTOTP() async {
        guard let user = Auth.auth().currentUser else { return }
        // Generate a TOTP secret.
        guard let mfaSession = try? await user.multiFactor.session() else { return }
        guard let totpSecret = try? await TOTPMultiFactorGenerator.generateSecret(with: mfaSession) else { return }
        // Display the secret to the user and prompt them to enter it into their authenticator app.
        let otpAuthUri = totpSecret.generateQRCodeURL(withAccountName: user.email ?? "default account",
                                                      issuer: "Your App Name")
        showMessagePrompt(otpAuthUri)
        // Ask the user for a verification code from the authenticator app.
        let verificationCode = verificationCodeFromUser
        // Finalize the enrollment.
        let multiFactorAssertion = TOTPMultiFactorGenerator.assertionForEnrollment(
            with: totpSecret,
            oneTimePassword: verificationCode)
        do {
            try await user.multiFactor.enroll(with: multiFactorAssertion, displayName: "TOTP")
        } catch {
            // Wrong or expired OTP. Re-prompt the user.
        }
    }
}
