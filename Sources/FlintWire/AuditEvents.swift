/// What a security event in the audit trail records. The raw value is the event's `type` on the wire and in filters.
public enum AuditEventType: String, Codable, Sendable, CaseIterable {
    // The user's own.
    /// A new account, by its first sign-in method (`detail.method`); made by an admin, `principal` says who.
    case signUp
    /// A sign-in began a session: `detail.method`, and `detail.secondFactor` when one was passed.
    case signIn
    /// A sign-in was refused: `detail.method` and `detail.reason` (the error's code).
    case signInFailed
    /// A sign-in stopped for its second factor (`detail.method`: the first).
    case secondFactorRequired
    /// A refresh token was refused (`detail.reason`).
    case refreshRefused
    /// The user signed out of the OpenID provider's session.
    case signOut
    /// A session ended by the user or an admin (`sessionId`).
    case sessionEnded
    /// Every session of the user ended (`revokeRefreshTokens`, a password change that revokes them).
    case sessionsRevoked
    case passwordChanged
    case emailChanged
    case emailVerified
    case phoneChanged
    /// Second factors enrolled or removed (`detail.enrolled`, `detail.removed`: factor IDs).
    case secondFactorsChanged
    case passkeysChanged
    /// The display name or photo changed.
    case profileChanged
    case providerLinked
    case providerUnlinked
    /// An email action code was sent (`detail.kind`: `PASSWORD_RESET`, `VERIFY_EMAIL`, `EMAIL_SIGNIN`, …).
    case actionCodeSent
    // Admins' changes to users.
    case userDisabled
    case userEnabled
    case claimsChanged
    case userDeleted
    /// A batch of users imported (`detail.count`).
    case usersImported
    // Defences.
    /// A budget refused a request (`detail.budget`).
    case budgetRefused
    /// A blocking function refused a sign-up or sign-in (`detail.reason`).
    case blockingFunctionRefused
    // Admin changes to the realm.
    case projectCreated
    case tenantCreated
    /// A project's or tenant's configuration changed: `fields` names what, never the values.
    case configChanged
    case tenantDeleted
    case apiKeyCreated
    case signingKeyAdded
    case signingKeyRemoved
    case serviceAccountCreated
    case serviceAccountRevoked
    case oauthClientCreated
    case oauthClientUpdated
    case oauthClientDeleted
    /// A user's consent to an OAuth client withdrawn.
    case oauthGrantRevoked
}

/// One event of the audit trail, as the admin API answers it
/// (`GET v2/projects/{p}[/tenants/{t}]/auditEvents`, a Flint extension in the v2 style).
public struct AuditEvent: Codable, Sendable, Equatable {
    /// Increases with every event written: newer events have larger IDs.
    public var eventId: String
    /// RFC 3339, milliseconds.
    public var time: String
    public var type: AuditEventType
    public var tenantId: String?
    /// The user the event is about.
    public var localId: String?
    /// The session it happened in (an ID token's `sid`).
    public var sessionId: String?
    /// The client's address and `User-Agent`.
    public var ipAddress: String?
    public var userAgent: String?
    /// Who acted: `user` (the user themself, or nobody signed in), `serviceAccount:<key ID>`, `console:<key ID>`,
    /// `console:owner`, `owner` (the emulator's admin), `flint` (the CLI on the database) or `server` (Flint itself).
    public var principal: String
    /// The endpoint that made the change, if a request did.
    public var operation: String?
    /// For a change: the fields it changed, never their values.
    public var fields: [String]?
    /// What else the type says (its doc comment names the keys).
    public var detail: [String: String]?

    public init(eventId: String, time: String, type: AuditEventType, tenantId: String? = nil, localId: String? = nil,
                sessionId: String? = nil, ipAddress: String? = nil, userAgent: String? = nil, principal: String,
                operation: String? = nil, fields: [String]? = nil, detail: [String: String]? = nil) {
        self.eventId = eventId
        self.time = time
        self.type = type
        self.tenantId = tenantId
        self.localId = localId
        self.sessionId = sessionId
        self.ipAddress = ipAddress
        self.userAgent = userAgent
        self.principal = principal
        self.operation = operation
        self.fields = fields
        self.detail = detail
    }
}

/// A page of the audit trail, the newest first; `nextPageToken` asks for the older ones after it.
public struct ListAuditEventsResponse: Codable, Sendable, Equatable {
    public var events: [AuditEvent]
    public var nextPageToken: String?

    public init(events: [AuditEvent], nextPageToken: String? = nil) {
        self.events = events
        self.nextPageToken = nextPageToken
    }
}
