#if canImport(AuthenticationServices) && !os(tvOS) && !os(watchOS)
import AuthenticationServices
#if canImport(UIKit)
import UIKit
#else
import AppKit
#endif
#endif
import Foundation

// The Apple side of passkeys: FirebaseAuth's request and credential types, and the system's passkey sheet as the
// `PasskeyAuthenticator` FlintAuth uses when the app passes none. Where AuthenticationServices is missing this
// compiles against the stand-ins of AuthenticationServicesStandIns.swift.

@available(iOS 15.0, macOS 12.0, *)
extension PasskeyCreationOptions {
    /// The request FirebaseAuth's `startPasskeyEnrollment(withName:)` returns, for an `ASAuthorizationController`.
    func registrationRequest() -> ASAuthorizationPlatformPublicKeyCredentialRegistrationRequest {
        ASAuthorizationPlatformPublicKeyCredentialProvider(relyingPartyIdentifier: relyingPartyIdentifier)
            .createCredentialRegistrationRequest(challenge: challenge, name: name, userID: userID)
    }
}

@available(iOS 15.0, macOS 12.0, *)
extension PasskeyRequestOptions {
    /// The request FirebaseAuth's `startPasskeySignIn()` returns, for an `ASAuthorizationController`.
    func assertionRequest() -> ASAuthorizationPlatformPublicKeyCredentialAssertionRequest {
        ASAuthorizationPlatformPublicKeyCredentialProvider(relyingPartyIdentifier: relyingPartyIdentifier)
            .createCredentialAssertionRequest(challenge: challenge)
    }
}

@available(iOS 15.0, macOS 12.0, *)
extension PasskeyRegistration {
    /// The bytes of a passkey the system created. Throws `invalidAuthenticatorResponse` if a part is missing.
    init(_ credential: ASAuthorizationPlatformPublicKeyCredentialRegistration) throws {
        let attestationObject: Data? = credential.rawAttestationObject
        guard let attestationObject, !attestationObject.isEmpty, !credential.credentialID.isEmpty,
              !credential.rawClientDataJSON.isEmpty
        else {
            throw AuthErrorUtils.error(.invalidAuthenticatorResponse,
                                       message: "The passkey has no credential ID, client data or attestation object.")
        }
        self.init(credentialID: credential.credentialID, rawClientDataJSON: credential.rawClientDataJSON,
                  rawAttestationObject: attestationObject)
    }
}

@available(iOS 15.0, macOS 12.0, *)
extension PasskeyAssertion {
    /// The bytes of a passkey's signature. Throws `invalidAuthenticatorResponse` if a part is missing.
    init(_ credential: ASAuthorizationPlatformPublicKeyCredentialAssertion) throws {
        // Typed optional: Apple's SDK declares these implicitly unwrapped.
        let authenticatorData: Data? = credential.rawAuthenticatorData
        let signature: Data? = credential.signature
        let userID: Data? = credential.userID
        guard let authenticatorData, let signature, let userID, !credential.credentialID.isEmpty,
              !credential.rawClientDataJSON.isEmpty
        else {
            throw AuthErrorUtils.error(.invalidAuthenticatorResponse,
                                       message: "The passkey's signature lacks authenticator data, signature or user handle.")
        }
        self.init(credentialID: credential.credentialID, rawClientDataJSON: credential.rawClientDataJSON,
                  rawAuthenticatorData: authenticatorData, signature: signature, userID: userID)
    }
}

/// The authenticator where the app passes none: the system's passkey sheet (`ASAuthorizationController`), shown from
/// the app's key window. Its errors (`ASAuthorizationError.canceled` when the user closes the sheet) reach the caller
/// as they are.
@available(iOS 15.0, macOS 12.0, *)
struct SystemPasskeyAuthenticator: PasskeyAuthenticator {
    func register(_ options: PasskeyCreationOptions) async throws -> PasskeyRegistration {
        let credential = try await PasskeyAuthorization.perform { options.registrationRequest() }
        guard case .registration(let registration) = credential else {
            throw AuthErrorUtils.error(.invalidAuthenticatorResponse, message: "The system answered with no new passkey.")
        }
        return registration
    }

    func authenticate(_ options: PasskeyRequestOptions) async throws -> PasskeyAssertion {
        let credential = try await PasskeyAuthorization.perform { options.assertionRequest() }
        guard case .assertion(let assertion) = credential else {
            throw AuthErrorUtils.error(.invalidAuthenticatorResponse, message: "The system answered with no passkey signature.")
        }
        return assertion
    }
}

/// What the passkey sheet produced, read into FlintAuth's `Sendable` types inside the delegate callback.
private enum SystemPasskeyCredential: Sendable {
    case registration(PasskeyRegistration)
    case assertion(PasskeyAssertion)
}

/// One `ASAuthorizationController` run, its delegate and presentation context.
@available(iOS 15.0, macOS 12.0, *)
@MainActor
private final class PasskeyAuthorization: NSObject, ASAuthorizationControllerDelegate,
    ASAuthorizationControllerPresentationContextProviding {
    private let outcome = OneShot<Result<SystemPasskeyCredential, any Error>>()
    /// The controller, and this object itself (the controller's delegate reference is weak), until the outcome.
    private var running: (ASAuthorizationController, PasskeyAuthorization)?

    /// Shows the sheet for the request `makeRequest` makes and returns what the user's passkey produced.
    static func perform(_ makeRequest: @MainActor () -> ASAuthorizationRequest) async throws -> SystemPasskeyCredential {
        let authorization = PasskeyAuthorization()
        let controller = ASAuthorizationController(authorizationRequests: [makeRequest()])
        controller.delegate = authorization
        controller.presentationContextProvider = authorization
        authorization.running = (controller, authorization)
        controller.performRequests()
        return try await authorization.outcome.wait().get()
    }

    private func finish(_ result: Result<SystemPasskeyCredential, any Error>) {
        outcome.resolve(result)
        running = nil
    }

    func authorizationController(controller: ASAuthorizationController,
                                 didCompleteWithAuthorization authorization: ASAuthorization) {
        finish(Result {
            if let registration = authorization.credential as? ASAuthorizationPlatformPublicKeyCredentialRegistration {
                return .registration(try PasskeyRegistration(registration))
            }
            if let assertion = authorization.credential as? ASAuthorizationPlatformPublicKeyCredentialAssertion {
                return .assertion(try PasskeyAssertion(assertion))
            }
            throw AuthErrorUtils.error(.invalidAuthenticatorResponse, message: "The system answered with no passkey.")
        })
    }

    func authorizationController(controller: ASAuthorizationController, didCompleteWithError error: any Error) {
        finish(.failure(error))
    }

    func presentationAnchor(for controller: ASAuthorizationController) -> ASPresentationAnchor {
        Self.keyWindow ?? ASPresentationAnchor()
    }

    /// The window the user is working in.
    private static var keyWindow: ASPresentationAnchor? {
        #if canImport(AuthenticationServices) && canImport(UIKit) && !os(tvOS) && !os(watchOS)
        UIApplication.shared.connectedScenes.compactMap { ($0 as? UIWindowScene)?.keyWindow }.first
        #elseif canImport(AuthenticationServices) && canImport(AppKit)
        NSApplication.shared.keyWindow ?? NSApplication.shared.mainWindow
        #else
        nil
        #endif
    }
}
