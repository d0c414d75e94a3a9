import FlintWire
import Foundation

/// The Admin SDK's auth client: verifies ID tokens and session cookies, mints custom tokens, and manages users,
/// for one project (or one tenant of it, see `tenant(_:)`). The same calls work against Firebase, a Flint server and
/// an emulator; `AdminEndpoints` says which.
///
/// ```swift
/// let auth = try AdminAuth(serviceAccount: ServiceAccount(contentsOf: keyFile), endpoints: .flint(serverURL))
/// let token = try await auth.verifyIDToken(idToken, checkRevoked: true)
/// ```
public final class AdminAuth: Sendable {
    public let projectID: String
    /// The tenant this client acts in; nil for the project's own users.
    public let tenantID: String?
    public let endpoints: AdminEndpoints
    let credential: AdminCredential
    let connection: AdminConnection
    /// The project's signing keys, which sign its OAuth access tokens too (`verifyAccessToken`).
    let idTokens: PublicKeySet
    private let sessionCookies: PublicKeySet
    let clockSkew: Int64
    /// The OAuth client `verifyAccessToken(_:resource:requiredScopes:checkRevoked:)` introspects with; see
    /// `introspecting(clientID:clientSecret:cacheLifetime:)`.
    let introspection: AccessTokenIntrospection?
    let now: @Sendable () -> Date

    /// - Parameters:
    ///   - projectID: the project; a service account's own by default.
    ///   - credential: what authorizes the calls.
    ///   - endpoints: where the calls go and where the token-signing keys are.
    ///   - clockSkew: seconds a token's times may be off by (0 to 60), for clocks that disagree.
    ///   - transport: how requests are sent (`FlintAdmin` gives every initializer URLSession's by default).
    ///   - now: the clock tokens are checked against.
    public init(projectID: String? = nil, credential: AdminCredential, endpoints: AdminEndpoints,
                clockSkew: Int = 0, transport: any AdminTransport,
                now: @escaping @Sendable () -> Date = Date.init) throws {
        let accountProject: String? = if case .serviceAccount(let account) = credential { account.projectID } else { nil }
        guard let projectID = projectID ?? accountProject, !projectID.isEmpty else {
            throw AdminError(.invalidArgument, "a project ID is needed: pass one, or a service account")
        }
        guard (0...60).contains(clockSkew) else { throw AdminError(.invalidArgument, "clockSkew must be 0 to 60 seconds") }
        self.projectID = projectID
        self.endpoints = endpoints
        self.credential = credential
        self.clockSkew = Int64(clockSkew)
        self.now = now
        tenantID = nil
        introspection = nil
        connection = AdminConnection(api: endpoints.api, transport: transport,
                                     accessTokens: AccessTokens(credential: credential, transport: transport, now: now))
        idTokens = PublicKeySet(source: endpoints.idTokenKeys, transport: transport, now: now)
        sessionCookies = endpoints.sessionCookieKeys == endpoints.idTokenKeys
            ? idTokens : PublicKeySet(source: endpoints.sessionCookieKeys, transport: transport, now: now)
    }

    /// A service account's project on `endpoints`; or, when `FIREBASE_AUTH_EMULATOR_HOST` is set, on that emulator
    /// with `Bearer owner`, as every Admin SDK does.
    public convenience init(serviceAccount: ServiceAccount, endpoints: AdminEndpoints = .firebase,
                            environment: [String: String] = ProcessInfo.processInfo.environment,
                            transport: any AdminTransport) throws {
        if let emulator = AdminEndpoints.emulatorFromEnvironment(environment) {
            try self.init(projectID: serviceAccount.projectID, credential: .emulatorOwner, endpoints: emulator, transport: transport)
        } else {
            try self.init(credential: .serviceAccount(serviceAccount), endpoints: endpoints, transport: transport)
        }
    }

    /// `parent` acting in another project or tenant; `introspection` is only ever carried to the same realm.
    init(projectID: String, tenant tenantID: String?, of parent: AdminAuth, introspection: AccessTokenIntrospection? = nil) {
        self.projectID = projectID
        self.tenantID = tenantID
        endpoints = parent.endpoints
        credential = parent.credential
        connection = parent.connection
        idTokens = parent.idTokens
        sessionCookies = parent.sessionCookies
        clockSkew = parent.clockSkew
        now = parent.now
        self.introspection = introspection
    }

    /// The same client acting in a tenant (Identity Platform's multi-tenancy): its users, its tokens only.
    public func tenant(_ tenantID: String) -> AdminAuth { AdminAuth(projectID: projectID, tenant: tenantID, of: self) }

    /// The same credential acting on another project of the same server: any project of an emulator, or another
    /// project a Flint credential administers.
    public func project(_ projectID: String) -> AdminAuth { AdminAuth(projectID: projectID, tenant: nil, of: self) }

    /// The client's project or tenant as the Admin API names it, `projects/{p}` or `projects/{p}/tenants/{t}`: the
    /// paths of `call` are built on it (`/v1/` + it + `/accounts:query`).
    public var resourceName: String {
        let project = "projects/" + FormURLEncoding.escape(projectID)
        return tenantID.map { project + "/tenants/" + FormURLEncoding.escape($0) } ?? project
    }

    /// The v1 path of `resourceName`, under which the account calls lie.
    var resource: String { "/v1/" + resourceName }

    /// Any Admin REST call, with this client's credential: for the endpoints FlintAdmin has no method for. `path` is
    /// from the API's root (`/v1/projects/my-project/accounts:query`), `body` is sent as JSON, and a refusal is an
    /// `AdminError`.
    public func call<Reply: Decodable>(_ method: String, _ path: String, body: (any Encodable)? = nil,
                                       as reply: Reply.Type) async throws -> Reply {
        try await connection.call(method, path, body: body, as: reply)
    }

    // MARK: Tokens

    /// Checks an ID token a client SDK got, and returns its claims. With `checkRevoked`, the user is also looked up:
    /// a disabled user's token is `userDisabled`, and one issued before the user's tokens were revoked is
    /// `idTokenRevoked`. Against a Flint server, a token that names its session (`sid`) is also `idTokenRevoked` once
    /// that session has ended (``revokeSession(uid:sessionID:)``, or the user signing out on that device): that costs
    /// one more call, the user's ``sessions(uid:)``, made only with `checkRevoked`.
    ///
    /// - Parameters:
    ///   - idToken: the ID token, as the client sent it.
    ///   - checkRevoked: whether to look the user (and, on Flint, the token's session) up as well: one call, or two,
    ///     to the server with each verification.
    public func verifyIDToken(_ idToken: String, checkRevoked: Bool = false) async throws -> DecodedIDToken {
        try await verify(idToken, as: .idToken, keys: idTokens, issuerPrefix: endpoints.idTokenIssuerPrefix,
                         checkRevoked: checkRevoked)
    }

    /// Checks a session cookie made by `createSessionCookie`, as `verifyIDToken` checks ID tokens: with
    /// `checkRevoked`, a cookie that names a session (`sid`) that has ended is `sessionCookieRevoked`.
    ///
    /// - Parameters:
    ///   - sessionCookie: the cookie's value.
    ///   - checkRevoked: whether to look the user (and, on Flint, the cookie's session) up as well.
    public func verifySessionCookie(_ sessionCookie: String, checkRevoked: Bool = false) async throws -> DecodedIDToken {
        try await verify(sessionCookie, as: .sessionCookie, keys: sessionCookies,
                         issuerPrefix: endpoints.sessionCookieIssuerPrefix, checkRevoked: checkRevoked)
    }

    private func verify(_ token: String, as kind: TokenVerifier.Kind, keys: PublicKeySet, issuerPrefix: String,
                        checkRevoked: Bool) async throws -> DecodedIDToken {
        let verifier = TokenVerifier(kind: kind, projectID: projectID, issuer: issuerPrefix + projectID, tenantID: tenantID,
                                     keys: keys, isEmulator: endpoints.isEmulator, clockSkew: clockSkew, now: now)
        let decoded = try await verifier.verify(token)
        guard checkRevoked else { return decoded }
        // The token's own tenant, for a project-level client verifying a tenant user's token.
        let owner = decoded.tenantID.map { tenantID == $0 ? self : tenant($0) } ?? self
        let user = try await owner.user(uid: decoded.uid)
        if user.disabled { throw AdminError(.userDisabled, "the user \(decoded.uid) is disabled") }
        if let validAfter = user.tokensValidAfterTime, decoded.issuedAt < validAfter {
            throw AdminError(kind.revoked, "the \(kind.name) was revoked: the user's tokens were revoked after it was issued")
        }
        try await owner.checkSession(of: decoded, kind: kind)
        return decoded
    }

    /// The audience of custom tokens: the Identity Toolkit's `signInWithCustomToken`.
    static let customTokenAudience = TokenVerifier.customTokenAudience

    /// A custom token for `uid`, good for an hour, which a client SDK exchanges for a session
    /// (`signIn(withCustomToken:)`); `claims` are carried by the session's ID tokens. Signed with the service account's
    /// key; unsigned (`alg: none`) against an emulator, as the Admin SDKs make them there. A uid that is not 1 to
    /// 128 characters, or a reserved claim name, is `invalidArgument`, as firebase-admin-node reports them here.
    public func createCustomToken(uid: String, claims: [String: JSONValue]? = nil) throws -> String {
        try Check.uid(uid, code: .invalidArgument)
        if let claims { try CustomClaims.checkNames(claims, code: .invalidArgument) }
        let signer: ServiceAccount?
        switch credential {
        case .serviceAccount(let account): signer = account
        case .emulatorOwner where endpoints.isEmulator: signer = nil
        case .emulatorOwner, .verificationOnly:
            throw AdminError(.invalidCredential, "custom tokens are signed with a service account's key; this client has none")
        }
        let issuedAt = Int64(now().timeIntervalSince1970)
        let email = signer?.clientEmail ?? "firebase-auth-emulator@example.com"
        var payload: [String: JSONValue] = [
            "iss": .string(email), "sub": .string(email), "aud": .string(Self.customTokenAudience),
            "iat": .number(Double(issuedAt)), "exp": .number(Double(issuedAt + 3600)), "uid": .string(uid),
        ]
        if let claims, !claims.isEmpty { payload["claims"] = .object(claims) }
        if let tenantID { payload["tenant_id"] = .string(tenantID) }
        return try JWT.encode(payload, kid: signer?.privateKeyID, signingWith: signer?.privateKey)
    }

    /// The shortest and longest session cookie lifetimes Firebase allows.
    public static let sessionCookieLifetimes: ClosedRange<TimeInterval> = 300...(14 * 24 * 3600)

    /// A session cookie for the user of a fresh ID token, good for `expiresIn` seconds (5 minutes to 14 days).
    public func createSessionCookie(idToken: String, expiresIn: TimeInterval) async throws -> String {
        guard !idToken.isEmpty else { throw AdminError(.invalidIDToken, "a session cookie is made from an ID token") }
        guard Self.sessionCookieLifetimes.contains(expiresIn) else {
            throw AdminError(.invalidSessionCookieDuration, "a session cookie lasts 5 minutes to 14 days")
        }
        let request = CreateSessionCookieRequest(idToken: idToken, validDuration: LenientString(String(Int(expiresIn))))
        return try await connection.call("POST", resource + ":createSessionCookie", body: request,
                                         as: CreateSessionCookieResponse.self).sessionCookie
    }
}
