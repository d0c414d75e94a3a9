import FlintWire
import Foundation

extension Endpoint {
    private static func passkeys(_ method: String) -> Endpoint {
        Endpoint(hostAndPath: "identitytoolkit.googleapis.com/v2/accounts/\(method)")
    }

    static let startPasskeyEnrollment = passkeys("passkeyEnrollment:start")
    static let finalizePasskeyEnrollment = passkeys("passkeyEnrollment:finalize")
    static let startPasskeySignIn = passkeys("passkeySignIn:start")
    static let finalizePasskeySignIn = passkeys("passkeySignIn:finalize")
}

/// The RPCs of passkeys. The authenticator's bytes travel in standard base64, as FirebaseAuth sends them; the
/// options' challenge and user handle are read in base64 or base64url.
extension AuthBackend {
    /// `passkeyEnrollment:start`: the options of a new passkey for the user of `idToken`, to be enrolled as `name`.
    func startPasskeyEnrollment(idToken: String, name: String) async throws -> PasskeyCreationOptions {
        var request = StartPasskeyEnrollmentRequest(idToken: idToken)
        request.tenantId = configuration.tenantID
        let response: StartPasskeyEnrollmentResponse = try await post(.startPasskeyEnrollment, request)
        let options = response.credentialCreationOptions?.objectValue
        guard let relyingParty = options?["rp"]?.objectValue?["id"]?.stringValue,
              let userID = options?["user"]?.objectValue?["id"]?.stringValue.flatMap(Self.bytes(base64OrBase64URL:)),
              let challenge = options?["challenge"]?.stringValue.flatMap(Self.bytes(base64OrBase64URL:))
        else { throw Self.unreadable(response.credentialCreationOptions) }
        return PasskeyCreationOptions(relyingPartyIdentifier: relyingParty, challenge: challenge, userID: userID, name: name)
    }

    /// `passkeyEnrollment:finalize`: enrolls `registration` as `name`; the user's new tokens.
    func finalizePasskeyEnrollment(idToken: String, name: String, registration: PasskeyRegistration) async throws
        -> PasskeyFinalizeResponse {
        var request = FinalizePasskeyEnrollmentRequest(idToken: idToken, authenticatorRegistrationResponse: [
            "id": .string(registration.credentialID.base64EncodedString()),
            "response": [
                "clientDataJSON": .string(registration.rawClientDataJSON.base64EncodedString()),
                "attestationObject": .string(registration.rawAttestationObject.base64EncodedString()),
            ],
        ], name: name)
        request.tenantId = configuration.tenantID
        return try await post(.finalizePasskeyEnrollment, request)
    }

    /// `passkeySignIn:start`: the options of a passkey sign-in.
    func startPasskeySignIn() async throws -> PasskeyRequestOptions {
        var request = StartPasskeySignInRequest()
        request.tenantId = configuration.tenantID
        let response: StartPasskeySignInResponse = try await post(.startPasskeySignIn, request)
        let options = response.credentialRequestOptions?.objectValue
        guard let relyingParty = options?["rpId"]?.stringValue,
              let challenge = options?["challenge"]?.stringValue.flatMap(Self.bytes(base64OrBase64URL:))
        else { throw Self.unreadable(response.credentialRequestOptions) }
        return PasskeyRequestOptions(relyingPartyIdentifier: relyingParty, challenge: challenge)
    }

    /// `passkeySignIn:finalize`: signs in with `assertion`; the account's tokens. An answer that asks for a second
    /// factor is thrown as a `SecondFactorChallenge`.
    func finalizePasskeySignIn(_ assertion: PasskeyAssertion) async throws -> PasskeyFinalizeResponse {
        var request = FinalizePasskeySignInRequest(authenticatorAuthenticationResponse: [
            "id": .string(assertion.credentialID.base64EncodedString()),
            "response": [
                "clientDataJSON": .string(assertion.rawClientDataJSON.base64EncodedString()),
                "authenticatorData": .string(assertion.rawAuthenticatorData.base64EncodedString()),
                "signature": .string(assertion.signature.base64EncodedString()),
                "userHandle": .string(assertion.userID.base64EncodedString()),
            ],
        ])
        request.tenantId = configuration.tenantID
        return try await postFirstFactor(.finalizePasskeySignIn, request)
    }

    /// The bytes of `text` in base64 (the emulator's and Google's form) or base64url (WebAuthn's JSON), padded or not.
    static func bytes(base64OrBase64URL text: String) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64)
    }

    private static func unreadable(_ options: JSONValue?) -> NSError {
        let json = options.flatMap { try? JSONEncoder().encode($0) }.map { String(decoding: $0, as: UTF8.self) }
        return AuthErrorUtils.internalError(response: "Passkey options without rp ID, user ID or challenge: \(json ?? "none")")
    }
}
