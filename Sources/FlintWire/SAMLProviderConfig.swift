// Identity Platform's SAML providers (`projects/{p}/inboundSamlConfigs/{saml.…}`), the shape the Admin SDKs'
// `create_saml_provider_config` and friends send and read, with Flint's own fields beside it (the SDKs ignore them).

/// A SAML provider: the IdP Flint trusts, and Flint as the service provider (SP) the IdP knows.
public struct InboundSamlConfig: Codable, Sendable, Equatable {
    /// One X.509 certificate: base64 DER, or PEM.
    public struct Certificate: Codable, Sendable, Equatable {
        public var x509Certificate: String?
        /// Output only (the SP's certificate): when it expires, RFC 3339.
        public var expiresAt: String?

        public init(x509Certificate: String? = nil, expiresAt: String? = nil) {
            self.x509Certificate = x509Certificate
            self.expiresAt = expiresAt
        }

        /// The certificate as PEM (base64 DER wrapped at 64 characters), as IdPs' admin pages take it.
        public var pem: String? {
            guard let text = x509Certificate else { return nil }
            let trimmed = String(text.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
            if trimmed.hasPrefix("-----BEGIN") { return trimmed }
            var lines = ["-----BEGIN CERTIFICATE-----"]
            var rest = Substring(trimmed.filter { !$0.isWhitespace })
            while !rest.isEmpty {
                lines.append(String(rest.prefix(64)))
                rest = rest.dropFirst(64)
            }
            return (lines + ["-----END CERTIFICATE-----"]).joined(separator: "\n")
        }
    }

    /// The identity provider.
    public struct IdpConfig: Codable, Sendable, Equatable {
        /// The IdP's entity ID: the `Issuer` of its responses.
        public var idpEntityId: String?
        /// Where AuthnRequests go (HTTP-Redirect binding).
        public var ssoUrl: String?
        /// Whether AuthnRequests are signed with the SP's key.
        public var signRequest: Bool?
        /// The certificates whose keys may sign the IdP's responses.
        public var idpCertificates: [Certificate]?

        public init(idpEntityId: String? = nil, ssoUrl: String? = nil, signRequest: Bool? = nil,
                    idpCertificates: [Certificate]? = nil) {
            self.idpEntityId = idpEntityId
            self.ssoUrl = ssoUrl
            self.signRequest = signRequest
            self.idpCertificates = idpCertificates
        }
    }

    /// The service provider: Flint, as the IdP is told about it.
    public struct SpConfig: Codable, Sendable, Equatable {
        /// The SP's entity ID: the audience the IdP's assertions must name.
        public var spEntityId: String?
        /// The assertion consumer service URL, where the IdP posts its responses.
        public var callbackUri: String?
        /// Output only: the certificate of the SP's key (which signs AuthnRequests and decrypts assertions), made
        /// when the provider is created; the key itself is never shown.
        public var spCertificates: [Certificate]?

        public init(spEntityId: String? = nil, callbackUri: String? = nil, spCertificates: [Certificate]? = nil) {
            self.spEntityId = spEntityId
            self.callbackUri = callbackUri
            self.spCertificates = spCertificates
        }
    }

    /// Flint: the assertion attributes read for the account's email and display name (else the NameID when it is an
    /// address, and the attributes IdPs commonly use).
    public struct AttributeMapping: Codable, Sendable, Equatable {
        public var email: String?
        public var displayName: String?

        public init(email: String? = nil, displayName: String? = nil) {
            self.email = email
            self.displayName = displayName
        }
    }

    /// `projects/{p}/inboundSamlConfigs/{providerId}` (or a tenant's `projects/{p}/tenants/{t}/…`).
    public var name: String?
    public var idpConfig: IdpConfig?
    public var spConfig: SpConfig?
    public var displayName: String?
    public var enabled: Bool?
    /// Flint: whether unsolicited responses (IdP-initiated sign-in, no `InResponseTo`) are taken. Off by default.
    public var idpInitiatedSignIn: Bool?
    /// Flint: whether the IdP vouches for the addresses it names (the account's email is then verified). Off by default.
    public var emailVerifiedByIdp: Bool?
    public var attributeMapping: AttributeMapping?

    public init(name: String? = nil, idpConfig: IdpConfig? = nil, spConfig: SpConfig? = nil, displayName: String? = nil,
                enabled: Bool? = nil, idpInitiatedSignIn: Bool? = nil, emailVerifiedByIdp: Bool? = nil,
                attributeMapping: AttributeMapping? = nil) {
        self.name = name
        self.idpConfig = idpConfig
        self.spConfig = spConfig
        self.displayName = displayName
        self.enabled = enabled
        self.idpInitiatedSignIn = idpInitiatedSignIn
        self.emailVerifiedByIdp = emailVerifiedByIdp
        self.attributeMapping = attributeMapping
    }
}

/// `GET projects/{p}/inboundSamlConfigs`: one page.
public struct InboundSamlConfigList: Codable, Sendable {
    public var inboundSamlConfigs: [InboundSamlConfig]
    public var nextPageToken: String?

    public init(inboundSamlConfigs: [InboundSamlConfig], nextPageToken: String? = nil) {
        self.inboundSamlConfigs = inboundSamlConfigs
        self.nextPageToken = nextPageToken
    }
}
