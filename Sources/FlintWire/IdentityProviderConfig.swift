// The Identity Toolkit v2 configuration of built-in identity providers
// (`projects/{p}/defaultSupportedIdpConfigs/{idpId}`), the shape the Admin APIs use.

/// One built-in provider's configuration (`apple.com`, `facebook.com`).
public struct DefaultSupportedIdpConfig: Codable, Sendable, Equatable {
    public struct AppleSignInConfig: Codable, Sendable, Equatable {
        /// Apple's "Sign in with Apple" server-to-server credentials (for token revocation).
        public struct CodeFlowConfig: Codable, Sendable, Equatable {
            public var teamId: String?
            public var keyId: String?
            /// The .p8 key's PEM text. Write-only: never returned.
            public var privateKey: String?

            public init(teamId: String? = nil, keyId: String? = nil, privateKey: String? = nil) {
                self.teamId = teamId
                self.keyId = keyId
                self.privateKey = privateKey
            }
        }

        /// The app bundle IDs whose identity tokens are accepted (their `aud`).
        public var bundleIds: [String]?
        public var codeFlowConfig: CodeFlowConfig?

        public init(bundleIds: [String]? = nil, codeFlowConfig: CodeFlowConfig? = nil) {
            self.bundleIds = bundleIds
            self.codeFlowConfig = codeFlowConfig
        }
    }

    /// `projects/{p}/defaultSupportedIdpConfigs/{idpId}`.
    public var name: String?
    public var enabled: Bool?
    /// Apple: the Services ID (web); Facebook: the app ID; Google, GitHub, Microsoft: the OAuth client ID.
    public var clientId: String?
    /// Facebook: the app secret; Google, GitHub, Microsoft: the OAuth client secret. Apple: unused (the client secret
    /// is built from `codeFlowConfig`). Write-only: returned as `REDACTED`.
    public var clientSecret: String?
    public var appleSignInConfig: AppleSignInConfig?
    /// Google (a Flint extension): the app's other OAuth client IDs whose ID and access tokens are accepted too, e.g.
    /// the iOS and Android clients of the project whose web client is `clientId`.
    public var additionalClientIds: [String]?

    public init(name: String? = nil, enabled: Bool? = nil, clientId: String? = nil, clientSecret: String? = nil,
                appleSignInConfig: AppleSignInConfig? = nil, additionalClientIds: [String]? = nil) {
        self.name = name
        self.enabled = enabled
        self.clientId = clientId
        self.clientSecret = clientSecret
        self.appleSignInConfig = appleSignInConfig
        self.additionalClientIds = additionalClientIds
    }
}

/// `GET projects/{p}/defaultSupportedIdpConfigs`.
public struct DefaultSupportedIdpConfigList: Codable, Sendable {
    public var defaultSupportedIdpConfigs: [DefaultSupportedIdpConfig]
    public var nextPageToken: String?

    public init(defaultSupportedIdpConfigs: [DefaultSupportedIdpConfig], nextPageToken: String? = nil) {
        self.defaultSupportedIdpConfigs = defaultSupportedIdpConfigs
        self.nextPageToken = nextPageToken
    }
}

/// An OpenID Connect provider (`projects/{p}/oauthIdpConfigs/{oidc.…}`), as the Admin SDKs'
/// `create_oidc_provider_config` and friends send and read it.
public struct OAuthIdpConfig: Codable, Sendable, Equatable {
    /// Which flows the provider is used with.
    public struct ResponseType: Codable, Sendable, Equatable {
        /// The app sends the provider's ID token.
        public var idToken: Bool?
        /// The authorization-code flow (needs `clientSecret`).
        public var code: Bool?

        public init(idToken: Bool? = nil, code: Bool? = nil) {
            self.idToken = idToken
            self.code = code
        }
    }

    /// `projects/{p}/oauthIdpConfigs/{providerId}`.
    public var name: String?
    /// The OAuth client ID: the audience of the provider's ID tokens.
    public var clientId: String?
    /// The provider's issuer; its discovery document is at `{issuer}/.well-known/openid-configuration`.
    public var issuer: String?
    public var displayName: String?
    public var enabled: Bool?
    /// Write-only in effect: answers carry `REDACTED` when one is stored.
    public var clientSecret: String?
    public var responseType: ResponseType?

    public init(name: String? = nil, clientId: String? = nil, issuer: String? = nil, displayName: String? = nil,
                enabled: Bool? = nil, clientSecret: String? = nil, responseType: ResponseType? = nil) {
        self.name = name
        self.clientId = clientId
        self.issuer = issuer
        self.displayName = displayName
        self.enabled = enabled
        self.clientSecret = clientSecret
        self.responseType = responseType
    }
}

/// `GET projects/{p}/oauthIdpConfigs`: one page.
public struct OAuthIdpConfigList: Codable, Sendable {
    public var oauthIdpConfigs: [OAuthIdpConfig]
    public var nextPageToken: String?

    public init(oauthIdpConfigs: [OAuthIdpConfig], nextPageToken: String? = nil) {
        self.oauthIdpConfigs = oauthIdpConfigs
        self.nextPageToken = nextPageToken
    }
}
