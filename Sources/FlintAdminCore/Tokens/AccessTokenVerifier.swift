import FlintWire
import Foundation

extension AdminAuth {
    /// The issuer of this client's OpenID provider, which names itself in its access tokens (`iss`) and serves its
    /// endpoints under (`<issuer>/token`, `<issuer>/introspect`): `<Flint URL>/<project>`, or for a tenant's client
    /// (``tenant(_:)``) `<Flint URL>/<project>/tenants/<tenant>`. It is the authorization server a resource server's
    /// ``ProtectedResourceMetadata`` names.
    public var accessTokenIssuer: String {
        let realm = tenantID.map { projectID + "/tenants/" + $0 } ?? projectID
        return endpoints.idTokenIssuerPrefix + realm
    }

    /// Checks an OAuth access token that Flint's OpenID provider issued for `resource` (RFC 9068), as a resource server
    /// (an API, an MCP server) does with each request's `Authorization: Bearer` token, and returns its claims.
    ///
    /// In order: the token is a JWS whose header names a key (`kid`) and RS256; its `typ` is `at+jwt` (or
    /// `application/at+jwt`; so a Firebase or OpenID Connect ID token, `typ: JWT`, is refused); its issuer is
    /// ``accessTokenIssuer`` (a tenant's client takes its tenant's tokens only, a project's client none of its
    /// tenants'); its audience (`aud`, a string or an array) contains `resource`; it has a `sub` and a `client_id`; the
    /// signature is that of a key the server publishes (the same JWKS, and cache, as ``verifyIDToken(_:checkRevoked:)``);
    /// it was issued and became valid (`iat`, `nbf`) no later than now and has not expired (`exp`), each give or take
    /// the client's clock skew. With `checkRevoked`, Flint's introspection endpoint (RFC 7662) is asked whether the token
    /// is still active, with the OAuth client given to ``introspecting(clientID:clientSecret:cacheLifetime:)``; its
    /// positive answers are kept briefly. Last, the token must have been granted every scope of `requiredScopes`.
    ///
    /// - Parameters:
    ///   - token: the bearer token, without `Bearer `.
    ///   - resource: the resource server's own identifier, as clients name it in `resource` (RFC 8707). Today Flint's
    ///     access tokens are for `<issuer>/userinfo` unless a resource is asked for.
    ///   - requiredScopes: scopes the call needs; a token without one of them is ``AccessTokenError/Code/insufficientScope``.
    ///   - checkRevoked: whether to ask the issuer if the token was revoked, or its user disabled or deleted.
    /// - Throws: ``AccessTokenError`` when the token is refused; ``AdminError`` when it could not be checked
    ///   (`certificateFetchFailed`, `networkError`, `invalidCredential` for refused introspection credentials,
    ///   ``AdminError/Code/missingIntrospectionClient`` for `checkRevoked` without them, `invalidArgument` for an
    ///   emulator's client, whose provider signs nothing).
    public func verifyAccessToken(_ token: String, resource: String, requiredScopes: [String] = [],
                                  checkRevoked: Bool = false) async throws -> VerifiedAccessToken {
        guard !endpoints.isEmulator else {
            throw AdminError(.invalidArgument, "access tokens are verified against a Flint server in production mode; an emulator signs nothing")
        }
        guard !resource.isEmpty else { throw AdminError(.invalidArgument, "the resource to verify an access token for is empty") }
        let verifier = AccessTokenVerifier(issuer: accessTokenIssuer, resource: resource, keys: idTokens, clockSkew: clockSkew,
                                           now: now)
        let verified = try await verifier.verify(token)
        if checkRevoked {
            guard let introspection else {
                throw AdminError(.missingIntrospectionClient, "checkRevoked needs an OAuth client to introspect with: "
                    + "register a confidential client for the resource server and pass it to introspecting(clientID:clientSecret:)")
            }
            guard try await introspection.isActive(token, issuer: accessTokenIssuer, expiresAt: verified.expiresAt,
                                                   transport: connection.transport, now: now)
            else {
                throw AccessTokenError(.accessTokenRevoked,
                                       "the issuer says the access token is no longer active: revoked, or its user disabled or deleted")
            }
        }
        let missing = requiredScopes.filter { !verified.scopes.contains($0) }
        guard missing.isEmpty else {
            throw AccessTokenError(.insufficientScope,
                                   "the access token lacks the scope\(missing.count == 1 ? "" : "s") \(missing.joined(separator: " "))",
                                   requiredScopes: requiredScopes, missingScopes: missing)
        }
        return verified
    }

    /// The same client, which `verifyAccessToken(checkRevoked: true)` has ask Flint's introspection endpoint
    /// (`<issuer>/introspect`, RFC 7662) whether a token is still active, authenticated as `clientID` with
    /// `client_secret_basic`. The client is a confidential OAuth client registered for the resource server in the
    /// same project or tenant as this client (``createOAuthClient(_:)``); ``tenant(_:)`` and ``project(_:)`` of the
    /// result drop it, since a client is its realm's only.
    ///
    /// - Parameters:
    ///   - clientID: the resource server's OAuth client.
    ///   - clientSecret: its secret.
    ///   - cacheLifetime: how long an answer that a token is active is kept (0 to 300 seconds, and never past the
    ///     token's expiry); a revocation takes up to this long to be seen. Refusals are not kept.
    public func introspecting(clientID: String, clientSecret: String, cacheLifetime: TimeInterval = 30) throws -> AdminAuth {
        guard !clientID.isEmpty, !clientSecret.isEmpty else {
            throw AdminError(.invalidArgument, "an introspection client needs its client ID and secret")
        }
        guard (0...300).contains(cacheLifetime) else {
            throw AdminError(.invalidArgument, "cacheLifetime must be 0 to 300 seconds")
        }
        return AdminAuth(projectID: projectID, tenant: tenantID, of: self,
                         introspection: AccessTokenIntrospection(clientID: clientID, clientSecret: clientSecret,
                                                                 cacheLifetime: cacheLifetime))
    }
}

/// Checks an access token's header, claims, signature and times for one issuer and resource (RFC 9068 §4), with the
/// JWT parsing, key set and RS256 of `TokenVerifier`.
struct AccessTokenVerifier: Sendable {
    let issuer: String
    let resource: String
    let keys: PublicKeySet
    let clockSkew: Int64
    let now: @Sendable () -> Date

    /// RFC 9068's media type, with and without its `application/` prefix (compared case-insensitively, RFC 7515 §4.1.9).
    static let types: Set<String> = ["at+jwt", "application/at+jwt"]

    func verify(_ token: String) async throws -> VerifiedAccessToken {
        guard !token.isEmpty else { throw refusal("the access token is empty") }
        guard let jwt = JWT(token) else { throw refusal("the access token is not a JWT (three base64url parts, JSON header and claims)") }
        guard jwt.header.alg == "RS256" else {
            throw refusal("the access token is signed with \(jwt.header.alg ?? "no algorithm"), not RS256")
        }
        guard let kid = jwt.header.kid else { throw refusal("the access token has no kid") }
        guard let type = jwt.header.typ, Self.types.contains(type.lowercased()) else {
            throw refusal("the token's type is \(jwt.header.typ.map { "\"\($0)\"" } ?? "missing"), not at+jwt: it is no access token (an ID token, perhaps)")
        }
        let claims = jwt.claims
        guard claims["iss"]?.stringValue == issuer else {
            throw refusal("the access token's issuer is \(Self.show(claims["iss"])), not \(issuer)")
        }
        guard let audiences = Self.audiences(claims["aud"]) else {
            throw refusal("the access token's audience (aud) must be a string or an array of strings")
        }
        guard audiences.contains(resource) else {
            throw refusal("the access token is for \(audiences.map { "\"\($0)\"" }.joined(separator: ", ")), not \(resource)")
        }
        guard let subject = claims["sub"]?.stringValue, !subject.isEmpty else {
            throw refusal("the access token has no subject (sub)")
        }
        guard let clientID = claims["client_id"]?.stringValue, !clientID.isEmpty else {
            throw refusal("the access token has no client_id")
        }
        guard let key = try await keys.key(id: kid) else {
            throw refusal("the access token names the key \(kid), which is not among the published keys")
        }
        guard key.isValidSignature(jwt.signature, for: jwt.signingInput) else {
            throw refusal("the access token's signature is not valid")
        }
        guard let issuedAt = Self.seconds(claims["iat"]), let expiresAt = Self.seconds(claims["exp"]) else {
            throw refusal("the access token lacks a numeric iat or exp")
        }
        let now = Int64(now().timeIntervalSince1970.rounded(.down))
        guard issuedAt <= now + clockSkew else { throw refusal("the access token is issued in the future (iat \(issuedAt))") }
        if let notBefore = claims["nbf"] {
            guard let seconds = Self.seconds(notBefore) else { throw refusal("the access token's nbf is not a number") }
            guard seconds <= now + clockSkew else { throw refusal("the access token is not valid before \(seconds) (nbf)") }
        }
        guard expiresAt > now - clockSkew else {
            throw AccessTokenError(.accessTokenExpired, "the access token expired at \(expiresAt); the client gets a fresh one")
        }
        let scopes: [String]
        switch claims["scope"] {
        case nil: scopes = []
        case .string(let text)?: scopes = text.split(separator: " ").map(String.init)
        default: throw refusal("the access token's scope is not a string")
        }
        return VerifiedAccessToken(claims: claims, subject: subject, clientID: clientID, scopes: scopes,
                                   audiences: audiences, issuedAt: issuedAt, expiresAt: expiresAt)
    }

    private func refusal(_ message: String) -> AccessTokenError { AccessTokenError(.invalidAccessToken, message) }

    /// `aud` as RFC 7519 §4.1.3 allows it: one string, or an array of strings.
    private static func audiences(_ claim: JSONValue?) -> [String]? {
        switch claim {
        case .string(let audience)?: return [audience]
        case .array(let values)?:
            let audiences = values.compactMap(\.stringValue)
            return audiences.count == values.count ? audiences : nil
        default: return nil
        }
    }

    /// Whole seconds of a numeric claim.
    private static func seconds(_ claim: JSONValue?) -> Int64? {
        guard let number = claim?.numberValue, number.isFinite, abs(number) < 1e15 else { return nil }
        return Int64(number.rounded(.down))
    }

    private static func show(_ claim: JSONValue?) -> String {
        claim?.stringValue.map { "\"\($0)\"" } ?? "missing"
    }
}

/// The OAuth client a resource server introspects tokens with (RFC 7662), and the tokens it was lately told are active.
actor AccessTokenIntrospection {
    let clientID: String
    private let clientSecret: String
    let cacheLifetime: TimeInterval
    /// Token → until when its positive answer stands.
    private var active: [String: Date] = [:]

    /// Entries past which expired ones are swept (and, if none expired, all are dropped).
    static let cacheLimit = 10_000

    init(clientID: String, clientSecret: String, cacheLifetime: TimeInterval) {
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.cacheLifetime = cacheLifetime
    }

    /// RFC 6749 §2.3.1: each part form-encoded, then `id:secret` in base64.
    var authorization: String {
        "Basic " + Data((FormURLEncoding.escape(clientID) + ":" + FormURLEncoding.escape(clientSecret)).utf8).base64EncodedString()
    }

    /// Whether `<issuer>/introspect` says `token` is active; a positive answer kept from the last `cacheLifetime` counts.
    func isActive(_ token: String, issuer: String, expiresAt: Date, transport: any AdminTransport,
                  now: @Sendable () -> Date) async throws -> Bool {
        if let until = active[token], now() < until { return true }
        let url = issuer + "/introspect"
        guard let address = URL(string: url) else { throw AdminError(.invalidArgument, "\(url) is not a URL") }
        let request = AdminHTTPRequest(
            method: "POST", url: address,
            headers: ["Authorization": authorization, "Content-Type": "application/x-www-form-urlencoded",
                      "Accept": "application/json"],
            body: Data(FormURLEncoding.encode([("token", token), ("token_type_hint", "access_token")]).utf8),
            timeout: AdminConnection.timeout)
        let response = try await AdminConnection.send(request, with: transport)
        let reply = (try? JSONDecoder().decode(JSONValue.self, from: response.body))?.objectValue
        guard response.status == 200 else {
            let error = reply?["error"]?.stringValue
            let detail = reply?["error_description"]?.stringValue.map { ": " + $0 } ?? ""
            if response.status == 401 || error == "invalid_client" {
                throw AdminError(.invalidCredential, "\(url) refused the introspection client \(clientID)\(detail)",
                                 serverCode: error, httpStatus: response.status)
            }
            throw AdminError(.internalError, "\(url) answered HTTP \(response.status)\(detail)", serverCode: error,
                             httpStatus: response.status)
        }
        guard let reply, let isActive = reply["active"]?.boolValue else {
            throw AdminError(.internalError, "\(url) answered what is no introspection response (RFC 7662)")
        }
        guard isActive else {
            active[token] = nil
            return false
        }
        if cacheLifetime > 0 {
            if active.count >= Self.cacheLimit {
                let instant = now()
                active = active.filter { $0.value > instant }
                if active.count >= Self.cacheLimit { active.removeAll() }
            }
            active[token] = min(now().addingTimeInterval(cacheLifetime), expiresAt)
        }
        return true
    }
}
