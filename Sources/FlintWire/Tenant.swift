/// An Identity Platform tenant as the v2 admin API shows and takes it (`v2/projects/{p}/tenants/{t}`). Every field is
/// optional on the way in; on the way out the switches are always present and the rest only when set.
public struct TenantConfig: Codable, Sendable, Equatable {
    /// `projects/{p}/tenants/{t}` (output only).
    public var name: String?
    /// Output only.
    public var tenantId: String?
    public var displayName: String?
    public var allowPasswordSignup: Bool?
    public var enableEmailLinkSignin: Bool?
    public var disableAuth: Bool?
    public var enableAnonymousUser: Bool?
    public var mfaConfig: ProjectConfig.MultiFactorConfig?
    /// Fictional numbers and their fixed codes.
    public var testPhoneNumbers: [String: String]?
    public var smsRegionConfig: ProjectConfig.SmsRegionConfig?
    public var passwordPolicyConfig: PasswordPolicyConfig?
    /// When the tenant's sessions end by themselves (Flint's, as the project config's `sessionPolicy`): the tenant's
    /// own. Absent, its project's applies.
    public var sessionPolicy: ProjectConfig.SessionPolicyConfig?

    public init(name: String? = nil, tenantId: String? = nil, displayName: String? = nil, allowPasswordSignup: Bool? = nil,
                enableEmailLinkSignin: Bool? = nil, disableAuth: Bool? = nil, enableAnonymousUser: Bool? = nil,
                mfaConfig: ProjectConfig.MultiFactorConfig? = nil, testPhoneNumbers: [String: String]? = nil,
                smsRegionConfig: ProjectConfig.SmsRegionConfig? = nil, passwordPolicyConfig: PasswordPolicyConfig? = nil,
                sessionPolicy: ProjectConfig.SessionPolicyConfig? = nil) {
        self.name = name
        self.tenantId = tenantId
        self.displayName = displayName
        self.allowPasswordSignup = allowPasswordSignup
        self.enableEmailLinkSignin = enableEmailLinkSignin
        self.disableAuth = disableAuth
        self.enableAnonymousUser = enableAnonymousUser
        self.mfaConfig = mfaConfig
        self.testPhoneNumbers = testPhoneNumbers
        self.smsRegionConfig = smsRegionConfig
        self.passwordPolicyConfig = passwordPolicyConfig
        self.sessionPolicy = sessionPolicy
    }
}

/// A page of `GET v2/projects/{p}/tenants`.
public struct ListTenantsResponse: Codable, Sendable, Equatable {
    public var tenants: [TenantConfig]
    public var nextPageToken: String?

    public init(tenants: [TenantConfig], nextPageToken: String? = nil) {
        self.tenants = tenants
        self.nextPageToken = nextPageToken
    }
}
