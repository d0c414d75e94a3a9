#if canImport(AuthenticationServices)
import AuthenticationServices
#endif
import FlintAuth
import Foundation

/// Passkeys as the sample app of Firebase's passkey branch uses them (its `AuthViewController`): the app performs
/// the requests of `startPasskeyEnrollment(withName:)` and `startPasskeySignIn()` with an `ASAuthorizationController`
/// and hands the credential its delegate receives to the finalize methods. A `UIViewController` there; an `NSObject`
/// on the main actor here, as the delegate protocols require one. On Linux the AuthenticationServices types are
/// FlintAuth's stand-ins.
@MainActor
final class PasskeyViewController: NSObject {
    var passkeyName: String? = "My iPhone"
    var credentialIdFromUser = "credential-id"
    var lastMessage: String?

    func showMessagePrompt(_ message: String) {
        lastMessage = message
    }

    func passkeySignUp() {
        guard #available(iOS 16.0, macOS 12.0, *) else {
            print("OS version is not supported for this action.")
            return
        }
        Task {
            do {
                _ = try await Auth.auth().signInAnonymously()
                await passkeyEnroll()
            } catch {
                showMessagePrompt("Anonymous sign-in failed: \(error.localizedDescription)")
            }
        }
    }

    func passkeyEnroll() async {
        guard let user = Auth.auth().currentUser else {
            showMessagePrompt("Please sign in first.")
            return
        }
        guard #available(iOS 16.0, macOS 12.0, *) else { return }
        do {
            let request = try await user.startPasskeyEnrollment(withName: passkeyName)
            let controller = ASAuthorizationController(authorizationRequests: [request])
            controller.delegate = self
            controller.presentationContextProvider = self
            controller.performRequests()
        } catch {
            showMessagePrompt("Passkey enrollment failed: \(error.localizedDescription)")
        }
    }

    func passkeySignIn() async {
        guard #available(iOS 16.0, macOS 12.0, *) else { return }
        do {
            let request = try await Auth.auth().startPasskeySignIn()
            let controller = ASAuthorizationController(authorizationRequests: [request])
            controller.delegate = self
            controller.presentationContextProvider = self
            controller.performRequests()
        } catch {
            print("Passkey sign-in failed with error: \(error)")
        }
    }

    func passkeyUnenroll() async {
        guard let user = Auth.auth().currentUser else {
            showMessagePrompt("Please sign in first.")
            return
        }
        do {
            let _ = try await user.unenrollPasskey(withCredentialID: credentialIdFromUser)
        } catch let error as NSError where error.code == AuthErrorCode.missingPasskeyEnrollment.rawValue {
            showMessagePrompt("No such passkey: \(error.localizedDescription)")
        } catch {
            showMessagePrompt("Passkey unenrollment failed: \(error.localizedDescription)")
        }
    }

    func listPasskeys() {
        for passkey in Auth.auth().currentUser?.enrolledPasskeys ?? [] {
            print("\(passkey.name ?? "Unnamed"): \(passkey.credentialID ?? "")")
        }
    }

    /// The completion-handler forms.
    func passkeyEnrollWithCompletion() {
        guard #available(iOS 16.0, macOS 12.0, *) else { return }
        Auth.auth().currentUser?.startPasskeyEnrollment(withName: passkeyName) { request, error in
            guard let request else {
                self.showMessagePrompt(error?.localizedDescription ?? "No request")
                return
            }
            let controller = ASAuthorizationController(authorizationRequests: [request])
            controller.delegate = self
            controller.presentationContextProvider = self
            controller.performRequests()
        }
        Auth.auth().startPasskeySignIn { request, error in
            if let error {
                self.showMessagePrompt(error.localizedDescription)
            }
        }
        Auth.auth().currentUser?.unenrollPasskey(withCredentialID: credentialIdFromUser) { error in
            if let error {
                self.showMessagePrompt(error.localizedDescription)
            }
        }
    }

    @available(iOS 16.0, macOS 12.0, *)
    func finalizeWithCompletion(_ regCred: ASAuthorizationPlatformPublicKeyCredentialRegistration,
                                _ assertion: ASAuthorizationPlatformPublicKeyCredentialAssertion) {
        Auth.auth().currentUser?.finalizePasskeyEnrollment(withPlatformCredential: regCred) { result, error in
            self.showMessagePrompt(result == nil ? "Enrollment failed" : "Enrolled")
        }
        Auth.auth().finalizePasskeySignIn(withPlatformCredential: assertion) { result, error in
            self.showMessagePrompt(result?.user.uid ?? "Sign-in failed")
        }
    }
}

extension PasskeyViewController: ASAuthorizationControllerDelegate, ASAuthorizationControllerPresentationContextProviding {
    func authorizationController(controller: ASAuthorizationController,
                                 didCompleteWithAuthorization authorization: ASAuthorization) {
        if #available(iOS 16.0, macOS 12.0, *),
           let regCred = authorization.credential as? ASAuthorizationPlatformPublicKeyCredentialRegistration {
            Task { @MainActor [weak self] in
                guard let self else { return }
                do {
                    guard let user = Auth.auth().currentUser else {
                        self.showMessagePrompt("No signed-in user.")
                        return
                    }
                    _ = try await user.finalizePasskeyEnrollment(withPlatformCredential: regCred)
                    self.showMessagePrompt("Passkey enrollment succeeded.")
                } catch {
                    self.showMessagePrompt("Finalize enrollment failed: \(error.localizedDescription)")
                }
            }
            return
        }
        if #available(iOS 16.0, macOS 12.0, *),
           let assertion = authorization.credential as? ASAuthorizationPlatformPublicKeyCredentialAssertion {
            Task { @MainActor [weak self] in
                guard let self else { return }
                do {
                    let _ = try await Auth.auth().finalizePasskeySignIn(withPlatformCredential: assertion)
                    self.showMessagePrompt("Passkey sign-in succeeded.")
                } catch {
                    self.showMessagePrompt("Finalize passkey sign-in failed: \(error.localizedDescription)")
                }
            }
            return
        }
    }

    func authorizationController(controller: ASAuthorizationController, didCompleteWithError error: any Error) {
        showMessagePrompt("Passkey request failed: \(error.localizedDescription)")
    }

    func presentationAnchor(for controller: ASAuthorizationController) -> ASPresentationAnchor {
        ASPresentationAnchor()
    }
}
