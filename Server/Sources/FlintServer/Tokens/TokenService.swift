import Crypto
import FlintWire
import Foundation
import NIOConcurrencyHelpers

/// ID tokens and refresh tokens: minting, refreshing and verifying.
///
/// ID tokens are RS256 JWTs with Firebase's claims, valid for one hour. Refresh tokens are opaque random
/// strings; only their SHA-256 is stored. Both are revoked by the user's `sessionEpoch` (exactly: every
/// session begun before a revocation, in the same second too) and `validSince` (an admin's whole second),
/// and refused for disabled or deleted users.
public final class TokenService: Sendable {
    /// ID token lifetime, in seconds (Firebase's one hour).
    public static let idTokenLifetime: Int64 = 3600
    /// How far in the future an `iat` may lie before a token is refused (clock skew between nodes).
    static let allowedClockSkew: Int64 = 300

    private let keyring: SigningKeyring
    private let secrets: SecretBox
    private let accounts: AccountStore
    private let sessions: SessionStore
    private let clock: any FlintClock
    private let random: any RandomSource
    private let usage: UsageCounters
    private let policy: ModePolicy
    /// Realms' session policies.
    private let projects: ProjectDirectory
    private let address: PublicAddress
    /// Claims of ID tokens whose signature, issuer and audience were already checked, with the key that signed
    /// them, so a client that calls again with the same token skips the RSA work. Expiry, the user's state and
    /// whether the key is still there (not retired) are still checked on every call.
    private let verifiedTokens = NIOLockedValueBox([String: (claims: IDTokenClaims, kid: String)]())
    /// Bound on the cache; it is emptied when full (simple, and a refill costs one verification each).
    static let verifiedTokenCacheSize = 4096
    /// `lastRefreshAt` is written at most this often per user (ms), so refreshes under load do not all write.
    static let lastRefreshGranularity: Int64 = 60_000
    /// A refresh token's `lastUsedAt` is written at most this often (seconds): idle limits are days long.
    static let lastUsedGranularity: Int64 = 3600
    /// Refresh tokens unused this long stop working (nil: never, as Firebase's).
    private let refreshTokenIdleSeconds: Int64?

    init(core: ServerCore, keyring: SigningKeyring, usage: UsageCounters) {
        policy = core.policy
        projects = core.projects
        self.keyring = keyring
        secrets = core.secrets
        refreshTokenIdleSeconds = core.configuration.refreshTokenIdleSeconds
        accounts = core.store.accounts
        sessions = core.store.sessions
        clock = core.clock
        random = core.random
        self.usage = usage
        address = core.address
    }

    /// The issuer without the project: `https://securetoken.google.com/` in emulator mode (what Admin SDKs expect
    /// there), the server's public URL plus `/` in production.
    private var issuerPrefix: String {
        policy.usesGoogleIssuers ? "https://securetoken.google.com/" : address.url + "/"
    }

    /// The same for session cookies; production's are Flint's own, signed by the same keys.
    private var sessionIssuerPrefix: String {
        policy.usesGoogleIssuers ? "https://session.firebase.google.com/" : address.url + "/session/"
    }

    /// The issuer of the ID tokens of a project and of all its tenants (`projectID` may be a tenant's store key).
    public func issuer(projectID: String) -> String { issuerPrefix + Realm(key: projectID).projectID }

    /// The tenant an ID token claims (`firebase.tenant`), unverified: only for choosing the realm a call acts in,
    /// against which the token is then verified.
    static func unverifiedTenant(of idToken: String) -> String? {
        guard let parts = CompactJWT.segments(of: idToken), let payload = Base64URL.decode(parts.payload),
              let tenant = IDTokenClaims.tenant(json: payload), !tenant.isEmpty
        else { return nil }
        return tenant
    }

    /// What a sign-in returns: a fresh ID token and a new refresh token.
    public struct IssuedTokens: Sendable {
        public let idToken: String
        public let refreshToken: String
        public var expiresIn: String { String(TokenService.idTokenLifetime) }
    }

    /// A session a sign-in is about to begin: its refresh token, and what the store keeps of it (which the
    /// store writes in the sign-in's own transaction; see `SignInPipeline`). `authTime` defaults to now;
    /// `secondFactor` is the factor the sign-in passed, which the tokens' claims name; `sessionClaims` are a
    /// custom token's developer claims, carried by every ID token of the session.
    struct SessionStart: Sendable {
        let refreshToken: String
        let session: NewSession
    }

    func startSession(projectID: String, localID: String, signInProvider: String, authTime: Int64? = nil,
                      secondFactor: PassedSecondFactor? = nil, sessionClaims: String? = nil,
                      signInAttributes: String? = nil) -> SessionStart {
        let now = clock.seconds
        // The user id travels in the token, with Flint's tag on it, so a deleted user's token can be
        // answered USER_NOT_FOUND (which makes SDKs sign out) once its row is gone; the random part is what
        // authenticates a session.
        let refreshToken = signedUserID(localID) + "." + random.token(byteCount: 32)
        var record = RefreshTokenRecord(
            projectID: projectID, localID: localID, signInProvider: signInProvider, authTime: authTime ?? now,
            createdAt: now, secondFactor: secondFactor, sessionClaims: sessionClaims)
        record.signInAttributes = signInAttributes
        record.sessionID = random.timeOrderedID(milliseconds: clock.milliseconds)
        let client = RequestClient.current
        record.createdFrom = SessionOrigin(ipAddress: client.ipAddress, userAgent: client.userAgent)
        return SessionStart(refreshToken: refreshToken, session: NewSession(tokenHash: Self.hash(refreshToken), record: record))
    }

    /// The tokens of a session the store has begun: its refresh token and a fresh ID token for `user`, the
    /// account as the sign-in left it (the session began in its `sessionEpoch`); `newAccount` when the sign-in
    /// made the account.
    func tokens(for user: UserAccount, _ start: SessionStart, newAccount: Bool) async throws -> IssuedTokens {
        let record = start.session.record
        let idToken = try await mintIDToken(for: user, session: record, sessionEpoch: user.sessionEpoch, now: clock.seconds)
        usage.sessionStarted(projectID: user.projectID, provider: record.signInProvider, newAccount: newAccount)
        return IssuedTokens(idToken: idToken, refreshToken: start.refreshToken)
    }

    /// Exchanges a refresh token for a new ID token (Secure Token's `grant_type=refresh_token`).
    /// The refresh token stays the same, as Firebase's does. A deleted user's token is `USER_NOT_FOUND`
    /// where the policy says so (`reportsDeletedUsersOnRefresh`), else `INVALID_REFRESH_TOKEN`. A session of one of the
    /// project's tenants refreshes in it; a caller that names another tenant gets `TENANT_ID_MISMATCH`.
    public func refresh(_ refreshToken: String, projectID: String) async throws -> (idToken: String, user: UserAccount) {
        guard refreshToken.utf8.count <= 512 else { throw FlintError(.invalidRefreshToken) }
        let tokenHash = Self.hash(refreshToken)
        let asked = Realm(key: projectID)
        let session = try await sessions.refreshSession(hash: tokenHash)
        if let (record, _) = session, asked.tenantID != nil, record.projectID != projectID,
           Realm(key: record.projectID).projectID == asked.projectID {
            throw FlintError(.tenantIDMismatch)
        }
        guard let (record, user) = session, Realm(key: record.projectID).projectID == asked.projectID else {
            // Only a token Flint made for a user id that is gone says so; any other unknown token, a known
            // user id with a made-up tag or secret included, gets the same answer as random text.
            if policy.reportsDeletedUsersOnRefresh, let localID = userID(inRefreshToken: refreshToken),
               try await accounts.user(projectID: projectID, localID: localID) == nil {
                throw FlintError(.userNotFound)
            }
            throw FlintError(.invalidRefreshToken)
        }
        if user.disabled { throw FlintError(.userDisabled) }
        if record.sessionEpoch < user.sessionEpoch || record.createdAt < user.validSince || record.endedAt != nil {
            throw FlintError(.tokenExpired)
        }
        let now = clock.seconds
        if let idle = refreshTokenIdleSeconds, now - record.lastUsedAt > idle + Self.lastUsedGranularity {
            throw FlintError(.tokenExpired)
        }
        if try await projects.project(record.projectID)?.settings.sessionPolicy?.hasEnded(record, now: now) == true {
            throw FlintError(.tokenExpired)
        }
        let client = RequestClient.current
        let origin = SessionOrigin(ipAddress: client.ipAddress, userAgent: client.userAgent)
        // Written at most hourly, unless the session is used from somewhere else: where it is used is what its user
        // looks at.
        if now - record.lastUsedAt >= Self.lastUsedGranularity || origin != record.lastUsedFrom {
            try await sessions.touchRefreshToken(hash: tokenHash, at: now, from: origin)
        }
        let idToken = try await mintIDToken(for: user, session: record, sessionEpoch: record.sessionEpoch, now: now)
        let nowMilliseconds = clock.milliseconds
        if nowMilliseconds - (user.lastRefreshAt ?? 0) >= Self.lastRefreshGranularity {
            try await accounts.touchLastRefresh(projectID: user.projectID, localID: user.localID, at: nowMilliseconds)
        }
        usage.tokenRefreshed()
        return (idToken, user)
    }

    /// A verified ID token: its claims and the (current) user it belongs to.
    public struct VerifiedIDToken: Sendable {
        public let claims: IDTokenClaims
        public let user: UserAccount
    }

    /// Verifies signature, issuer, audience, expiry and issue time, then that the user still exists, is
    /// enabled, and has not revoked tokens issued before `validSince`.
    /// Each verification is counted by outcome (`valid` or the error's code).
    public func verifyIDToken(_ token: String?, projectID: String) async throws -> VerifiedIDToken {
        do {
            let verified = try await checkIDToken(token, projectID: projectID)
            usage.idTokenVerified()
            return verified
        } catch let error as FlintError {
            usage.idTokenRefused(code: error.code)
            throw error
        }
    }

    private func checkIDToken(_ token: String?, projectID: String) async throws -> VerifiedIDToken {
        guard let token, !token.isEmpty else { throw FlintError(.missingIDToken) }
        let claims = try await verifiedClaims(token)
        let realm = Realm(key: projectID)
        guard claims.iss == issuer(projectID: projectID), claims.aud == realm.projectID else { throw FlintError(.invalidIDToken) }
        // A token of another tenant of the project (or of the project, in a tenant) is of the wrong realm.
        guard claims.firebase.tenant == realm.tenantID else { throw FlintError(.tenantIDMismatch) }
        let now = clock.seconds
        if claims.iat > now + Self.allowedClockSkew { throw FlintError(.invalidIDToken) }
        if claims.exp <= now { throw FlintError(.tokenExpired) }
        // A session its user or an admin ended takes its ID tokens along; the user and its session are read together.
        let found = if let sid = claims.sid {
            try await sessions.user(realm: projectID, localID: claims.sub, withSession: sid)
        } else {
            try await accounts.user(projectID: projectID, localID: claims.sub).map { (user: $0, sessionIsLive: true) }
        }
        guard let (user, sessionIsLive) = found else { throw FlintError(.userNotFound) }
        if user.disabled { throw FlintError(.userDisabled) }
        if (claims.firebase.sessionEpoch ?? 0) < user.sessionEpoch || claims.iat < user.validSince || !sessionIsLive {
            throw FlintError(.tokenExpired)
        }
        return VerifiedIDToken(claims: claims, user: user)
    }

    /// Session cookies may live from five minutes to two weeks (Firebase's bounds).
    public static let sessionCookieDurations: ClosedRange<Int64> = 300...1_209_600

    /// A session cookie for a valid ID token: its claims (custom ones too) re-signed with the session
    /// issuer and the requested lifetime, verifiable with the same published keys.
    public func createSessionCookie(idToken: String?, validDuration: Int64, projectID: String) async throws -> String {
        guard Self.sessionCookieDurations.contains(validDuration) else {
            throw FlintError(.invalidDuration)
        }
        _ = try await verifyIDToken(idToken, projectID: projectID)
        guard let idToken, let jwt = CompactJWT(idToken),
              case .object(var claims)? = try? JSONBody.decoder.decode(JSONValue.self, from: jwt.payload)
        else { throw FlintError(.invalidIDToken) }
        let now = clock.seconds
        claims["iss"] = .string(sessionIssuerPrefix + Realm(key: projectID).projectID)
        claims["iat"] = .number(Double(now))
        claims["exp"] = .number(Double(now + validDuration))
        return try await keyring.sign(payload: try JSONBody.encoder.encode(JSONValue.object(claims)))
    }

    /// How recent a sign-in must be for sensitive changes (email, password, deletion, second factors).
    public static let recentSignInWindow: Int64 = 300

    /// Throws `CREDENTIAL_TOO_OLD_LOGIN_AGAIN` unless the token's sign-in (`auth_time`) is at most five
    /// minutes old; re-authenticating with any credential renews it.
    public func requireRecentSignIn(_ verified: VerifiedIDToken) throws {
        if clock.seconds - verified.claims.authTime > Self.recentSignInWindow { throw FlintError(.credentialTooOld) }
    }

    /// The recent-login rule for a change of `account`'s credentials (password, email, phone, linked
    /// providers, second factors): required unless the account is anonymous, which has no credential to
    /// protect and cannot re-authenticate (its upgrade by linking works at any age, as in Firebase).
    public func requireRecentSignIn(_ verified: VerifiedIDToken, toChangeCredentialsOf account: UserAccount) throws {
        if !account.isAnonymous { try requireRecentSignIn(verified) }
    }

    /// The claims of a token signed by one of our keys, from the cache or by verifying the signature.
    private func verifiedClaims(_ token: String) async throws -> IDTokenClaims {
        if let cached = verifiedTokens.withLockedValue({ $0[token] }), await keyring.hasKey(cached.kid) { return cached.claims }
        guard let verified = await keyring.verify(token),
              let claims = IDTokenClaims(json: verified.payload), !claims.sub.isEmpty
        else { throw FlintError(.invalidIDToken) }
        verifiedTokens.withLockedValue { cache in
            if cache.count >= Self.verifiedTokenCacheSize { cache.removeAll(keepingCapacity: true) }
            cache[token] = (claims, verified.kid)
        }
        return claims
    }

    /// An ID token of `session` for `user` as it is now.
    private func mintIDToken(for user: UserAccount, session: RefreshTokenRecord, sessionEpoch: Int64, now: Int64) async throws
        -> String {
        let (signInProvider, secondFactor, authTime) = (session.signInProvider, session.secondFactor, session.authTime)
        var identities: [String: [String]] = [:]
        if let email = user.email { identities["email"] = [email] }
        if let phone = user.phoneNumber { identities[ProviderID.phone] = [phone] }
        for identity in user.identities { identities[identity.providerID, default: []].append(identity.rawID) }
        let claims = IDTokenClaims(
            iss: issuer(projectID: user.projectID), aud: Realm(key: user.projectID).projectID, authTime: authTime, userId: user.localID,
            iat: now, exp: now + Self.idTokenLifetime, email: user.email,
            emailVerified: user.email == nil ? nil : user.emailVerified, phoneNumber: user.phoneNumber,
            name: user.displayName, picture: user.photoURL,
            providerId: signInProvider == ProviderID.anonymous ? ProviderID.anonymous : nil,
            sid: session.sessionID.isEmpty ? nil : session.sessionID,
            firebase: FirebaseClaim(identities: identities, signInProvider: signInProvider,
                                    signInSecondFactor: secondFactor?.kind, secondFactorIdentifier: secondFactor?.enrollmentID,
                                    tenant: Realm(key: user.projectID).tenantID, sessionEpoch: sessionEpoch == 0 ? nil : sessionEpoch,
                                    signInAttributes: session.signInAttributes.flatMap {
                                        try? JSONBody.decoder.decode(JSONValue.self, from: Data($0.utf8))
                                    }))
        var payload = Data(try claims.jsonBytes())
        // Standard claims win over a custom token's developer claims, which win over the user's custom
        // claims (as in Firebase: a later `setCustomUserClaims` does not override the token's own values).
        // Each merge keeps the payload built so far, so the first merged wins.
        for custom in [session.sessionClaims, user.customAttributes].compactMap({ $0 }) where !custom.isEmpty {
            payload = try Self.merging(customClaims: custom, into: payload)
        }
        return try await keyring.sign(payload: payload)
    }

    /// Adds custom claims beside the claims already in `payload`, which win any name clash.
    private static func merging(customClaims: String, into payload: Data) throws -> Data {
        // Claims stored before JSONReader refused duplicate names are still read the way they were.
        let custom = (try? JSONReader.parse(customClaims.utf8))
            ?? (try? JSONBody.decoder.decode(JSONValue.self, from: Data(customClaims.utf8)))
        guard case .object(var merged)? = custom,
              case .object(let standard) = try JSONReader.parse(payload)
        else { return payload }
        merged.merge(standard) { _, standardValue in standardValue }
        return Data(try JSONValue.object(merged).jsonBytes())
    }

    /// `<localID>.<tag>`: the user id, and Flint's proof that it made it for a refresh token.
    private func signedUserID(_ localID: String) -> String {
        localID + "." + Base64URL.encode(userIDTag(localID))
    }

    /// Flint's tag on a user id in refresh tokens: 128 bits of an HMAC under the master key.
    private func userIDTag(_ localID: String) -> Data {
        secrets.tag(localID, context: Self.refreshTokenTagContext).prefix(16)
    }

    /// The user id of a refresh token Flint made (`<localID>.<tag>.<secret>`: three dot-separated parts, as a JWS
    /// has), whether or not its session
    /// still exists; nil for anything else.
    private func userID(inRefreshToken token: String) -> String? {
        guard let parts = CompactJWT.segments(of: token), let tag = Base64URL.decode(parts.payload) else { return nil }
        let localID = String(parts.header)
        return constantTimeEquals(tag, userIDTag(localID)) ? localID : nil
    }

    private static let refreshTokenTagContext = "refresh-token-user"

    static func hash(_ refreshToken: String) -> String {
        Base64URL.encode(Data(SHA256.hash(data: Data(refreshToken.utf8))))
    }
}
