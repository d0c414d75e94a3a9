#if !(canImport(AuthenticationServices) && !os(tvOS) && !os(watchOS))
import Foundation

// Stand-ins for the AuthenticationServices types of FirebaseAuth's passkey API, where that framework is missing
// (Linux). They carry the same names, members and isolation as Apple's, so that FlintAuth's Apple code path
// (`SystemPasskeyAuthenticator`) and app code written for FirebaseAuth's passkey API compile here too. Nothing
// shows a passkey sheet: `ASAuthorizationController.performRequests()` fails with `ASAuthorizationError.notHandled`.
// Pass a `PasskeyAuthenticator` of your own to `User.enrollPasskey(withName:authenticator:)` and
// `Auth.signInWithPasskey(authenticator:)` instead.
//
// Like Apple's, these classes are not `Sendable`, and apps cannot create the credentials.

/// Stand-in for AuthenticationServices' window type (`UIWindow` or `NSWindow` on Apple platforms).
@MainActor
public final class ASPresentationAnchor: NSObject {}

/// Stand-in for AuthenticationServices' `ASAuthorizationRequest`.
public class ASAuthorizationRequest: NSObject {}

/// Stand-in for AuthenticationServices' `ASAuthorizationCredential`.
public protocol ASAuthorizationCredential: NSObjectProtocol {}

/// Stand-in for AuthenticationServices' `ASAuthorizationProvider`.
public protocol ASAuthorizationProvider: NSObjectProtocol {}

/// Stand-in for AuthenticationServices' `ASAuthorizationError`.
public struct ASAuthorizationError: Error, Sendable {
    /// The failures of an authorization.
    public enum Code: Int, Sendable {
        case unknown = 1000
        case canceled = 1001
        case invalidResponse = 1002
        case notHandled = 1003
        case failed = 1004
        case notInteractive = 1005
    }

    /// What went wrong.
    public let code: Code

    init(_ code: Code) {
        self.code = code
    }
}

/// Stand-in for AuthenticationServices' passkey provider of one relying party.
public final class ASAuthorizationPlatformPublicKeyCredentialProvider: NSObject, ASAuthorizationProvider {
    /// The relying party's domain (WebAuthn's RP ID).
    public let relyingPartyIdentifier: String

    public init(relyingPartyIdentifier: String) {
        self.relyingPartyIdentifier = relyingPartyIdentifier
    }

    /// A request to create a passkey for the user `userID`, shown to the user as `name`.
    public func createCredentialRegistrationRequest(challenge: Data, name: String, userID: Data)
        -> ASAuthorizationPlatformPublicKeyCredentialRegistrationRequest {
        ASAuthorizationPlatformPublicKeyCredentialRegistrationRequest(
            relyingPartyIdentifier: relyingPartyIdentifier, challenge: challenge, name: name, userID: userID)
    }

    /// A request to sign `challenge` with one of the user's passkeys for this relying party.
    public func createCredentialAssertionRequest(challenge: Data) -> ASAuthorizationPlatformPublicKeyCredentialAssertionRequest {
        ASAuthorizationPlatformPublicKeyCredentialAssertionRequest(relyingPartyIdentifier: relyingPartyIdentifier,
                                                                   challenge: challenge)
    }
}

/// Stand-in for AuthenticationServices' request to create a passkey.
public final class ASAuthorizationPlatformPublicKeyCredentialRegistrationRequest: ASAuthorizationRequest {
    public let relyingPartyIdentifier: String
    public var challenge: Data
    public var name: String
    public var displayName: String?
    public var userID: Data

    init(relyingPartyIdentifier: String, challenge: Data, name: String, userID: Data) {
        self.relyingPartyIdentifier = relyingPartyIdentifier
        self.challenge = challenge
        self.name = name
        self.userID = userID
    }
}

/// Stand-in for AuthenticationServices' request to sign in with a passkey.
public final class ASAuthorizationPlatformPublicKeyCredentialAssertionRequest: ASAuthorizationRequest {
    public let relyingPartyIdentifier: String
    public var challenge: Data

    init(relyingPartyIdentifier: String, challenge: Data) {
        self.relyingPartyIdentifier = relyingPartyIdentifier
        self.challenge = challenge
    }
}

/// Stand-in for AuthenticationServices' new passkey: WebAuthn's attestation response.
public final class ASAuthorizationPlatformPublicKeyCredentialRegistration: NSObject, ASAuthorizationCredential {
    public let credentialID: Data
    public let rawClientDataJSON: Data
    public let rawAttestationObject: Data?

    init(credentialID: Data, rawClientDataJSON: Data, rawAttestationObject: Data?) {
        self.credentialID = credentialID
        self.rawClientDataJSON = rawClientDataJSON
        self.rawAttestationObject = rawAttestationObject
    }
}

/// Stand-in for AuthenticationServices' passkey signature: WebAuthn's assertion response.
public final class ASAuthorizationPlatformPublicKeyCredentialAssertion: NSObject, ASAuthorizationCredential {
    public let credentialID: Data
    public let rawClientDataJSON: Data
    public let rawAuthenticatorData: Data!
    public let signature: Data!
    public let userID: Data!

    init(credentialID: Data, rawClientDataJSON: Data, rawAuthenticatorData: Data?, signature: Data?, userID: Data?) {
        self.credentialID = credentialID
        self.rawClientDataJSON = rawClientDataJSON
        self.rawAuthenticatorData = rawAuthenticatorData
        self.signature = signature
        self.userID = userID
    }
}

/// Stand-in for AuthenticationServices' outcome of an authorization: the credential and who made it.
public final class ASAuthorization: NSObject {
    public let provider: any ASAuthorizationProvider
    public let credential: any ASAuthorizationCredential

    init(provider: any ASAuthorizationProvider, credential: any ASAuthorizationCredential) {
        self.provider = provider
        self.credential = credential
    }
}

/// Stand-in for AuthenticationServices' `ASAuthorizationControllerDelegate`.
@MainActor
public protocol ASAuthorizationControllerDelegate: NSObjectProtocol {
    func authorizationController(controller: ASAuthorizationController,
                                 didCompleteWithAuthorization authorization: ASAuthorization)
    func authorizationController(controller: ASAuthorizationController, didCompleteWithError error: any Error)
}

/// Both methods are optional, as in Apple's protocol.
extension ASAuthorizationControllerDelegate {
    public func authorizationController(controller: ASAuthorizationController,
                                        didCompleteWithAuthorization authorization: ASAuthorization) {}
    public func authorizationController(controller: ASAuthorizationController, didCompleteWithError error: any Error) {}
}

/// Stand-in for AuthenticationServices' `ASAuthorizationControllerPresentationContextProviding`.
@MainActor
public protocol ASAuthorizationControllerPresentationContextProviding: NSObjectProtocol {
    func presentationAnchor(for controller: ASAuthorizationController) -> ASPresentationAnchor
}

/// Stand-in for AuthenticationServices' `ASAuthorizationController`, which shows the system's passkey sheet.
/// Here nothing can show it: `performRequests()` reports `ASAuthorizationError.notHandled` to the delegate.
@MainActor
public final class ASAuthorizationController: NSObject {
    public let authorizationRequests: [ASAuthorizationRequest]
    public weak var delegate: (any ASAuthorizationControllerDelegate)?
    public weak var presentationContextProvider: (any ASAuthorizationControllerPresentationContextProviding)?

    public init(authorizationRequests: [ASAuthorizationRequest]) {
        self.authorizationRequests = authorizationRequests
    }

    public func performRequests() {
        delegate?.authorizationController(controller: self, didCompleteWithError: ASAuthorizationError(.notHandled))
    }
}
#endif
