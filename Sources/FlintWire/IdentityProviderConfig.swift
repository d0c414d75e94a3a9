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
    /// Apple: the Services ID (web); Facebook: the app ID.
    public var clientId: String?
    /// Facebook: the app secret. Apple: unused (the client secret is built from `codeFlowConfig`).
    public var clientSecret: String?
    public var appleSignInConfig: AppleSignInConfig?

    public init(name: String? = nil, enabled: Bool? = nil, clientId: String? = nil, clientSecret: String? = nil,
                appleSignInConfig: AppleSignInConfig? = nil) {
        self.name = name
        self.enabled = enabled
        self.clientId = clientId
        self.clientSecret = clientSecret
        self.appleSignInConfig = appleSignInConfig
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
