import Foundation

/// Creates passkeys and signs in with them: what the system's passkey sheet does on Apple platforms.
///
/// ``User/enrollPasskey(withName:authenticator:)`` and ``Auth/signInWithPasskey(authenticator:)`` ask one for the
/// credential between the server's two steps. Without one, FlintAuth uses `ASAuthorizationController` with
/// `ASAuthorizationPlatformPublicKeyCredentialProvider` (iOS 15, macOS 12, visionOS); where AuthenticationServices is
/// missing (Linux), that fails with `ASAuthorizationError.notHandled`, so pass an authenticator of your own: a
/// security key, a platform API, or a software authenticator in tests.
///
/// An authenticator answers as WebAuthn's `navigator.credentials.create()` and `navigator.credentials.get()` do; its
/// byte strings are the raw ones, which FlintAuth encodes for the server.
public protocol PasskeyAuthenticator: Sendable {
    /// Creates a passkey for `options.userID` at the relying party `options.relyingPartyIdentifier`, signing over
    /// `options.challenge`. Throws if the user declines (any error reaches the caller as it is).
    func register(_ options: PasskeyCreationOptions) async throws -> PasskeyRegistration

    /// Signs `options.challenge` with a passkey of the relying party `options.relyingPartyIdentifier`, one the user
    /// picks (a discoverable credential: the server does not say which). Throws if the user declines.
    func authenticate(_ options: PasskeyRequestOptions) async throws -> PasskeyAssertion
}

/// What the server asks a new passkey to be: WebAuthn's `PublicKeyCredentialCreationOptions`, reduced to what a
/// platform authenticator uses.
public struct PasskeyCreationOptions: Sendable, Equatable {
    /// The relying party: the domain the passkey is bound to (WebAuthn's `rp.id`).
    public var relyingPartyIdentifier: String
    /// The server's challenge, raw bytes.
    public var challenge: Data
    /// The user handle the passkey stores and gives back at sign-in (`user.id`), raw bytes.
    public var userID: Data
    /// The name the passkey is shown and enrolled under.
    public var name: String

    public init(relyingPartyIdentifier: String, challenge: Data, userID: Data, name: String) {
        self.relyingPartyIdentifier = relyingPartyIdentifier
        self.challenge = challenge
        self.userID = userID
        self.name = name
    }
}

/// What the server asks a passkey to sign at sign-in: WebAuthn's `PublicKeyCredentialRequestOptions`, reduced to
/// what a platform authenticator uses.
public struct PasskeyRequestOptions: Sendable, Equatable {
    /// The relying party (WebAuthn's `rpId`).
    public var relyingPartyIdentifier: String
    /// The server's challenge, raw bytes.
    public var challenge: Data

    public init(relyingPartyIdentifier: String, challenge: Data) {
        self.relyingPartyIdentifier = relyingPartyIdentifier
        self.challenge = challenge
    }
}

/// A new passkey: WebAuthn's `AuthenticatorAttestationResponse` and the credential's ID, raw bytes (the members of
/// `ASAuthorizationPlatformPublicKeyCredentialRegistration`).
public struct PasskeyRegistration: Sendable, Equatable {
    public var credentialID: Data
    /// The JSON of WebAuthn's `CollectedClientData` (`type` `webauthn.create`, the challenge, the origin).
    public var rawClientDataJSON: Data
    /// The CBOR attestation object: its format, statement and authenticator data with the new public key.
    public var rawAttestationObject: Data

    public init(credentialID: Data, rawClientDataJSON: Data, rawAttestationObject: Data) {
        self.credentialID = credentialID
        self.rawClientDataJSON = rawClientDataJSON
        self.rawAttestationObject = rawAttestationObject
    }
}

/// A passkey's signature of the server's challenge: WebAuthn's `AuthenticatorAssertionResponse` and the credential's
/// ID, raw bytes (the members of `ASAuthorizationPlatformPublicKeyCredentialAssertion`).
public struct PasskeyAssertion: Sendable, Equatable {
    public var credentialID: Data
    /// The JSON of WebAuthn's `CollectedClientData` (`type` `webauthn.get`, the challenge, the origin).
    public var rawClientDataJSON: Data
    /// The authenticator data: the RP ID's hash, the flags and the signature counter.
    public var rawAuthenticatorData: Data
    /// The signature of the authenticator data followed by the SHA-256 of the client data JSON.
    public var signature: Data
    /// The user handle the passkey was created with (``PasskeyCreationOptions/userID``).
    public var userID: Data

    public init(credentialID: Data, rawClientDataJSON: Data, rawAuthenticatorData: Data, signature: Data, userID: Data) {
        self.credentialID = credentialID
        self.rawClientDataJSON = rawClientDataJSON
        self.rawAuthenticatorData = rawAuthenticatorData
        self.signature = signature
        self.userID = userID
    }
}
