/// One signed-in session of a user: what one sign-in began (its refresh token), as the user's own
/// `v2/accounts/sessions:list` and the admin API's `v2/projects/{p}[/tenants/{t}]/accounts/{uid}/sessions` show it
/// (Flint extensions in the v2 style). The ID tokens of the session carry `sessionId` as their `sid` claim.
public struct UserSession: Codable, Sendable, Equatable {
    public var sessionId: String
    /// How the session signed in: `password`, `phone`, `google.com`, `custom`, `anonymous`…
    public var signInProvider: String
    /// The second factor the sign-in passed (`phone`, `totp`), if any.
    public var secondFactor: String?
    /// RFC 3339: when the sign-in happened, and when the session last got a fresh ID token.
    public var createTime: String
    public var lastRefreshTime: String
    /// Where the sign-in came from, and the last refresh: the client's address and its `User-Agent`.
    public var createIpAddress: String?
    public var createUserAgent: String?
    public var lastRefreshIpAddress: String?
    public var lastRefreshUserAgent: String?
    /// The tenant the session belongs to, if any.
    public var tenantId: String?
    /// The OpenID provider's client the session was granted to: a token family a Flint OAuth client holds, which has
    /// no address or user agent of its own. Nil for the sign-ins of the app's own SDKs.
    public var clientId: String?
    /// In the user's own list: whether this is the session of the ID token that asked.
    public var current: Bool?

    public init(sessionId: String, signInProvider: String, secondFactor: String? = nil, createTime: String,
                lastRefreshTime: String, createIpAddress: String? = nil, createUserAgent: String? = nil,
                lastRefreshIpAddress: String? = nil, lastRefreshUserAgent: String? = nil, tenantId: String? = nil,
                clientId: String? = nil, current: Bool? = nil) {
        self.sessionId = sessionId
        self.signInProvider = signInProvider
        self.secondFactor = secondFactor
        self.createTime = createTime
        self.lastRefreshTime = lastRefreshTime
        self.createIpAddress = createIpAddress
        self.createUserAgent = createUserAgent
        self.lastRefreshIpAddress = lastRefreshIpAddress
        self.lastRefreshUserAgent = lastRefreshUserAgent
        self.tenantId = tenantId
        self.clientId = clientId
        self.current = current
    }
}

/// The answer listing a user's sessions, the most recently refreshed first.
public struct ListUserSessionsResponse: Codable, Sendable, Equatable {
    public var sessions: [UserSession]

    public init(sessions: [UserSession]) { self.sessions = sessions }
}

/// `v2/accounts/sessions:list` (`{idToken}`) and `v2/accounts/sessions:revoke` (`{idToken, sessionId}` ends that
/// session; `{idToken, allButCurrent: true}` ends every other): the signed-in user's own sessions.
public struct UserSessionsRequest: Codable, Sendable, Equatable, IDTokenCarryingRequest, TenantScopedRequest {
    public var idToken: String?
    public var sessionId: String?
    public var allButCurrent: Bool?
    public var tenantId: String?

    public init(idToken: String? = nil, sessionId: String? = nil, allButCurrent: Bool? = nil, tenantId: String? = nil) {
        self.idToken = idToken
        self.sessionId = sessionId
        self.allButCurrent = allButCurrent
        self.tenantId = tenantId
    }
}

/// What `sessions:revoke` ended.
public struct RevokeUserSessionsResponse: Codable, Sendable, Equatable {
    /// The sessions that ended, by ID.
    public var revokedSessionIds: [String]

    public init(revokedSessionIds: [String]) { self.revokedSessionIds = revokedSessionIds }
}
