/// A passkey on a user record (`passkeyInfo[]`).
public struct PasskeyInfo: Codable, Sendable, Equatable {
    /// The credential's ID, base64url as WebAuthn's JSON gives it.
    public var credentialId: String?
    public var name: String?
    /// Flint's, for admin callers only (exports), so a moved account keeps its passkeys: the credential's public key,
    /// base64url of its COSE form (absent for a passkey enrolled in emulator mode, whose key is never checked).
    public var publicKey: String?
    /// Flint's, for admin callers only (exports), so a moved account keeps its passkeys: the key's COSE algorithm
    /// (-7 ES256, -8 EdDSA, -257 RS256), with `publicKey`.
    public var algorithm: Int?
    /// Flint's, for admin callers only (exports), so a moved account keeps its passkeys: the authenticator's signature
    /// counter when last used, an int64 as a string.
    public var signCount: String?
    /// Flint's, for admin callers only (exports), so a moved account keeps its passkeys: when it was enrolled, epoch
    /// milliseconds as a string.
    public var createdAt: String?
    /// Flint's, for admin callers only (exports), so a moved account keeps its passkeys: its last sign-in, epoch
    /// milliseconds as a string.
    public var lastUsedAt: String?

    public init(credentialId: String? = nil, name: String? = nil) {
        self.credentialId = credentialId
        self.name = name
    }
}

/// `v2/accounts/passkeyEnrollment:start`.
public struct StartPasskeyEnrollmentRequest: Codable, Sendable {
    public var idToken: String?
    public var tenantId: String?

    public init(idToken: String? = nil) { self.idToken = idToken }
}

/// WebAuthn's `PublicKeyCredentialCreationOptions` in its JSON form, for `navigator.credentials.create` or
/// `ASAuthorizationPlatformPublicKeyCredentialProvider`.
public struct StartPasskeyEnrollmentResponse: Codable, Sendable {
    public var credentialCreationOptions: JSONValue?

    public init(credentialCreationOptions: JSONValue? = nil) { self.credentialCreationOptions = credentialCreationOptions }
}

/// `v2/accounts/passkeyEnrollment:finalize`.
public struct FinalizePasskeyEnrollmentRequest: Codable, Sendable {
    public var idToken: String?
    public var tenantId: String?
    /// WebAuthn's `RegistrationResponseJSON` (`id`, `rawId`, `response.clientDataJSON`, `response.attestationObject`).
    public var authenticatorRegistrationResponse: JSONValue?
    public var name: String?
    public var displayName: String?

    public init(idToken: String? = nil, authenticatorRegistrationResponse: JSONValue? = nil, name: String? = nil) {
        self.idToken = idToken
        self.authenticatorRegistrationResponse = authenticatorRegistrationResponse
        self.name = name
    }
}

/// The answer of both finalize operations (`passkeyEnrollment:finalize`, `passkeySignIn:finalize`): the account and
/// its new tokens.
public struct PasskeyFinalizeResponse: Codable, Sendable {
    public var localId: String?
    public var idToken: String?
    public var refreshToken: String?
    public var expiresIn: String?
    /// In place of the tokens, when a passkey sign-in must still pass an enrolled second factor (production mode).
    public var mfaPendingCredential: String?
    public var mfaInfo: [MFAEnrollment]?

    public init(localId: String? = nil, idToken: String? = nil, refreshToken: String? = nil) {
        self.localId = localId
        self.idToken = idToken
        self.refreshToken = refreshToken
    }
}

/// `v2/accounts/passkeySignIn:start`.
public struct StartPasskeySignInRequest: Codable, Sendable {
    public var tenantId: String?

    public init() {}
}

/// WebAuthn's `PublicKeyCredentialRequestOptions` in its JSON form.
public struct StartPasskeySignInResponse: Codable, Sendable {
    public var credentialRequestOptions: JSONValue?

    public init(credentialRequestOptions: JSONValue? = nil) { self.credentialRequestOptions = credentialRequestOptions }
}

/// `v2/accounts/passkeySignIn:finalize`.
public struct FinalizePasskeySignInRequest: Codable, Sendable {
    public var tenantId: String?
    /// WebAuthn's `AuthenticationResponseJSON` (`id`, `response.clientDataJSON`, `response.authenticatorData`,
    /// `response.signature`, `response.userHandle`).
    public var authenticatorAuthenticationResponse: JSONValue?
    public var name: String?
    public var displayName: String?

    public init(authenticatorAuthenticationResponse: JSONValue? = nil) {
        self.authenticatorAuthenticationResponse = authenticatorAuthenticationResponse
    }
}

/// `v2/projects/{p}/passkeyConfig` (and a tenant's): the WebAuthn relying party of a project, as firebase-admin's
/// `PasskeyConfigManager` reads and writes it.
public struct PasskeyConfig: Codable, Sendable, Equatable {
    /// `projects/{p}/passkeyConfig` or `projects/{p}/tenants/{t}/passkeyConfig`.
    public var name: String?
    /// The relying party ID: the domain passkeys are bound to (`example.com`).
    public var rpId: String?
    /// The web and app origins whose answers count (`https://example.com`, `android:apk-key-hash:…`).
    public var expectedOrigins: [String]?

    public init(name: String? = nil, rpId: String? = nil, expectedOrigins: [String]? = nil) {
        self.name = name
        self.rpId = rpId
        self.expectedOrigins = expectedOrigins
    }
}
