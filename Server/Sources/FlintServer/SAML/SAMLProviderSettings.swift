import Foundation

/// A SAML provider's configuration (`saml.…`, the admin API's `inboundSamlConfigs`), kept with the realm's other
/// providers in `ProjectSettings.identityProviders` (whose `enabled` and `displayName` it uses).
public struct SAMLProviderSettings: Codable, Sendable, Equatable {
    /// The IdP's entity ID: the `Issuer` of its responses and assertions.
    public var idpEntityID: String
    /// The IdP's single sign-on URL, where AuthnRequests go (HTTP-Redirect binding).
    public var ssoURL: String
    /// Whether AuthnRequests are signed with the SP key.
    public var signRequest: Bool
    /// The IdP's signing certificates as Firebase carries them: base64 DER, or PEM. Only these verify a response;
    /// a certificate inside the response is never trusted.
    public var idpCertificates: [String]
    /// Flint's entity ID to the IdP: the `Audience` its assertions must name.
    public var spEntityID: String
    /// The assertion consumer service URL: where the IdP posts its responses (Flint's `/__/auth/handler`).
    public var callbackURI: String
    /// Flint's SP certificate (base64 DER) and its private key (PKCS#8 PEM, sealed with the master key): signs
    /// AuthnRequests and decrypts encrypted assertions. Made when the provider is created.
    public var spCertificate: String?
    public var sealedSPPrivateKey: String?
    /// Flint: whether unsolicited responses (IdP-initiated sign-in, no `InResponseTo`) are taken. Off by default.
    public var allowsIdPInitiated: Bool
    /// Flint: whether the IdP is trusted to vouch for the addresses it names (the account's email is then verified).
    public var trustsEmail: Bool
    /// Flint: the attribute names read for the email and the display name (else the NameID when it is an address,
    /// and common attribute names).
    public var emailAttribute: String?
    public var displayNameAttribute: String?

    public init(idpEntityID: String = "", ssoURL: String = "", signRequest: Bool = false, idpCertificates: [String] = [],
                spEntityID: String = "", callbackURI: String = "", allowsIdPInitiated: Bool = false, trustsEmail: Bool = false) {
        self.idpEntityID = idpEntityID
        self.ssoURL = ssoURL
        self.signRequest = signRequest
        self.idpCertificates = idpCertificates
        self.spEntityID = spEntityID
        self.callbackURI = callbackURI
        self.allowsIdPInitiated = allowsIdPInitiated
        self.trustsEmail = trustsEmail
    }
}
