import FlintWire
import Foundation
import HTTPTypes
import Hummingbird

/// The provider's back-channel endpoints: the token endpoint's grants (RFC 6749 §4.1.3 and §6), revocation (RFC 7009),
/// introspection (RFC 7662) and userinfo (OpenID Connect Core §5.3). Each authenticates its client first (RFC 6749
/// §2.3: `client_secret_basic`, `client_secret_post`, or a public client's bare `client_id`).
struct ProviderGrants: Sendable {
    let clients: OAuthClientRegistry
    let tokens: OAuthTokens
    let store: OAuthStore
    let accounts: AccountStore
    let projects: ProjectDirectory
    let budgets: BudgetLedger
    let clock: any FlintClock
    let random: any RandomSource
    /// Checks `private_key_jwt` clients' assertions.
    let assertions: ClientAssertions
    /// Where the revocations of clients' own tokens are marked.
    let counters: CounterStore
    /// Service accounts, which may use the client-credentials grant with `private_key_jwt`.
    let serviceAccounts: ServiceAccountClients

    /// A token request's form fields and its `Authorization` header.
    struct Request: Sendable {
        var fields: [String: String]
        var authorization: String?
        var clientAddress: String?
        /// The issuer and the URL of the endpoint called: what a client assertion's `aud` may name (RFC 7523 §3).
        var issuer: String?
        var endpoint: String?
    }

    // MARK: Client authentication

    /// The client a request authenticates as, in `realm`. A confidential client must prove itself with its secret, in
    /// the header or the form but not both, or (one registered with a JWKS URI, and only such a one) with a client
    /// assertion (RFC 7523, `private_key_jwt`); a public client names itself and presents no secret (or an empty one).
    func authenticate(_ request: Request, realm: String) async throws -> RegisteredClient {
        var clientID = request.fields["client_id"]
        var secret = request.fields["client_secret"]
        if let authorization = request.authorization {
            guard secret == nil, let (id, password) = Self.basicCredentials(authorization) else {
                throw OAuthError(.invalidClient, "Send the client's credentials once, in an Authorization: Basic header or the form.")
            }
            if let clientID, clientID != id { throw OAuthError(.invalidClient, "client_id does not match the credentials.") }
            (clientID, secret) = (id, password)
        }
        let assertion = request.fields["client_assertion"]
        if assertion != nil || request.fields["client_assertion_type"] != nil {
            guard secret == nil else {
                throw OAuthError(.invalidClient, "Authenticate once: with a client assertion or with the client's secret.")
            }
            guard request.fields["client_assertion_type"] == ClientAssertions.assertionType, let assertion, !assertion.isEmpty else {
                throw OAuthError(.invalidClient, "client_assertion_type must be \(ClientAssertions.assertionType), with a client_assertion.")
            }
            guard let named = clientID ?? ClientAssertions.claimedClient(assertion), !named.isEmpty else {
                throw OAuthError(.invalidClient, "The client is not named.")
            }
            return try await authenticate(named, assertion: assertion, request, realm: realm)
        }
        guard let clientID, !clientID.isEmpty else { throw OAuthError(.invalidClient, "The client is not named.") }
        let failures = [clientID, request.clientAddress ?? "unknown"].joined(separator: "|")
        guard let client = try await clients.client(clientID, realm: realm) else {
            try await spendFailure(failures, realm: realm)
            throw OAuthError(.invalidClient, "The client is not known.")
        }
        if client.settings.confidential {
            guard client.settings.jwksURI == nil else {
                try await spendFailure(failures, realm: realm)
                throw OAuthError(.invalidClient, "This client authenticates with a client assertion (private_key_jwt), not a secret.")
            }
            guard let secret, OAuthClientRegistry.secretMatches(secret, of: client) else {
                try await spendFailure(failures, realm: realm)
                throw OAuthError(.invalidClient, "The client's credentials are not valid.")
            }
        } else if let secret, !secret.isEmpty {
            // An empty password is no secret: how some public clients (oidc-agent) still send a Basic header.
            throw OAuthError(.invalidClient, "A public client has no secret.")
        }
        return client
    }

    /// `clientID` proven by `assertion`, signed by a key at the client's JWKS URI (or a service account's own key);
    /// failures spend the same budget as a wrong secret.
    private func authenticate(_ clientID: String, assertion: String, _ request: Request, realm: String) async throws -> RegisteredClient {
        let failures = [clientID, request.clientAddress ?? "unknown"].joined(separator: "|")
        let issuer = request.issuer ?? tokens.issuer(realm: realm)
        let audiences = Set([issuer, issuer + ProviderEndpoints.token] + (request.endpoint.map { [$0] } ?? []))
        let claimed: RegisteredClient
        let verify: () async throws(OAuthError) -> Void
        if let client = try await clients.client(clientID, realm: realm) {
            guard client.settings.confidential, let jwksURI = client.settings.jwksURI else {
                try await spendFailure(failures, realm: realm)
                throw OAuthError(.invalidClient, "This client has no JWKS URI: it authenticates with its secret, not an assertion.")
            }
            claimed = client
            verify = { () async throws(OAuthError) in
                try await assertions.verify(assertion, clientID: clientID, jwksURI: jwksURI, audiences: audiences)
            }
        } else if let (account, record) = try await serviceAccounts.client(clientID, realm: realm) {
            claimed = account
            verify = { () async throws(OAuthError) in
                try await assertions.verify(assertion, clientID: clientID, audiences: audiences) { kid throws(OAuthError) in
                    try ServiceAccountClients.key(of: record, kid: kid)
                }
            }
        } else {
            try await spendFailure(failures, realm: realm)
            throw OAuthError(.invalidClient, "The client is not known.")
        }
        do {
            try await verify()
            return claimed
        } catch {
            if error.code == .invalidClient { try await spendFailure(failures, realm: realm) }
            throw error
        }
    }

    /// Counts a failed client authentication, and refuses once the client and address have spent their tries.
    private func spendFailure(_ subject: String, realm: String) async throws {
        try await budgets.spendAtProtocolEndpoint(.oauthClientAuthenticationFailures, in: realm, for: subject)
    }

    /// `Authorization: Basic base64(id:secret)`, each part form-encoded (RFC 6749 §2.3.1).
    static func basicCredentials(_ header: String) -> (String, String)? {
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "basic", let data = Data(base64Encoded: String(parts[1])),
              let text = String(data: data, encoding: .utf8), let colon = text.firstIndex(of: ":")
        else { return nil }
        let decode = { (part: Substring) in FormURLEncoding.decode("x=" + part).first?.1 ?? "" }
        return (decode(text[..<colon]), decode(text[text.index(after: colon)...]))
    }

    // MARK: The token endpoint

    /// RFC 6749 §5.1's answer.
    struct TokenResponse: Codable, Sendable, JSONWritable {
        var access_token: String
        var token_type = "Bearer"
        var expires_in: Int64
        var scope: String
        var id_token: String?
        var refresh_token: String?

        func write(to writer: inout JSONWriter) throws {
            writer.beginObject()
            writer.member("access_token", access_token)
            writer.member("expires_in", expires_in)
            writer.member("id_token", id_token)
            writer.member("refresh_token", refresh_token)
            writer.member("scope", scope)
            writer.member("token_type", token_type)
            writer.endObject()
        }
    }

    func token(_ request: Request, realm: String) async throws -> TokenResponse {
        guard let grantType = request.fields["grant_type"], !grantType.isEmpty else {
            throw OAuthError(.invalidRequest, "grant_type is missing.")
        }
        guard OAuthClientRegistry.supportedGrantTypes.contains(grantType) else {
            throw OAuthError(.unsupportedGrantType, "Only authorization_code, refresh_token, client_credentials and device codes are granted.")
        }
        let client = try await authenticate(request, realm: realm)
        guard client.allows(grantType: grantType) else {
            throw OAuthError(.unauthorizedClient, "The client may not use the \(grantType) grant.")
        }
        try await budgets.spendAtProtocolEndpoint(.oauthTokenRequestsPerClient, in: realm, for: client.clientID)
        switch grantType {
        case "authorization_code": return try await exchangeCode(request.fields, client: client)
        case "refresh_token": return try await refresh(request.fields, client: client)
        case ProviderDeviceFlow.grantType: return try await deviceToken(request.fields, client: client)
        default: return try await clientCredentials(request.fields, client: client)
        }
    }

    /// RFC 6749 §4.4: a confidential client's token for itself. Its `sub` is the client (RFC 9068 §2.2), never a user; it
    /// has no refresh or ID token. It is for the `resource`s named (registered and open to the client), with their
    /// scopes, else for the issuer alone, which serves it nothing a user's token gets (userinfo refuses it).
    private func clientCredentials(_ fields: [String: String], client: RegisteredClient) async throws -> TokenResponse {
        let resources = try await registered(Scopes.parse(fields["resource"]) ?? [], for: client)
        let available = resources.flatMap(\.scopes)
        guard let scopes = fields["scope"].map({ Scopes.parse($0) }) ?? .some(available) else {
            throw OAuthError(.invalidScope, "scope is not a list of scopes.")
        }
        if let scope = scopes.first(where: { !available.contains($0) }) {
            throw OAuthError(.invalidScope, OAuthClientRegistry.defaultScopes.contains(scope)
                ? "\(scope) is a user's scope; a client acting as itself has no user."
                : "\(scope) is not a scope of the resources asked for.")
        }
        let accessToken = try await tokens.clientAccessToken(clientID: client.clientID, realm: client.realm, scopes: scopes,
                                                             resources: resources.map(\.resource))
        return TokenResponse(access_token: accessToken, expires_in: OAuthTokens.lifetime, scope: scopes.joined(separator: " "))
    }

    /// A code for tokens: once, within its minute, by its client, with its redirect URI and its PKCE verifier. A code
    /// presented again revokes everything its first exchange issued (RFC 6749 §4.1.2).
    private func exchangeCode(_ fields: [String: String], client: RegisteredClient) async throws -> TokenResponse {
        guard let code = fields["code"], (1...128).contains(code.utf8.count) else {
            throw OAuthError(.invalidRequest, "code is missing.")
        }
        guard let verifier = fields["code_verifier"] else { throw OAuthError(.invalidRequest, "code_verifier is missing.") }
        let familyID = random.timeOrderedID(milliseconds: clock.milliseconds)
        let refreshToken = client.allows(grantType: "refresh_token") ? random.token(byteCount: 32) : nil
        let now = clock.seconds
        let redemption = try await store.redeemCode(hash: Hex.sha256(code), clientID: client.clientID, familyID: familyID, now: now) {
            payload, transaction in
            // A mismatch throws, which rolls the redemption back: the code stays the rightful holder's.
            guard let issued = try? JSONBody.decoder.decode(ProviderAuthorization.IssuedCode.self, from: Data(payload.utf8)),
                  issued.realm == client.realm, fields["redirect_uri"] == issued.redirectURI,
                  PKCE.verifies(verifier, challenge: issued.codeChallenge)
            else { throw OAuthError(.invalidGrant, "The code, its redirect URI or its verifier does not match.") }
            let family = OAuthFamilyRow(
                familyID: familyID, realm: issued.realm, localID: issued.localID, clientID: client.clientID,
                grant: String(decoding: try JSONBody.encoder.encode(issued.grant), as: UTF8.self), createdAt: now,
                revokedAt: nil)
            try await OAuthStore.insertFamily(family, refreshTokenHash: refreshToken.map(Hex.sha256), transaction)
            return (issued, family)
        }
        switch redemption {
        case .unknown: throw OAuthError(.invalidGrant, "The code is not valid: unknown, expired, or another client's.")
        case .reused: throw OAuthError(.invalidGrant, "The code was used before; what it issued is revoked.")
        case .redeemed(let (issued, family)):
            let user = try await liveUser(of: family)
            let resources = try await resources(fields, of: issued.grant, client: client)
            return try await issue(for: user, client: client, grant: issued.grant, scopes: issued.grant.scopes,
                                   resources: resources, familyID: familyID, refreshToken: refreshToken, includeNonce: true)
        }
    }

    /// A refresh token for new tokens. A public client's token rotates (the answer carries its successor); a token
    /// used after its rotation revokes its family. `scope` may narrow what the family was granted, never widen it.
    private func refresh(_ fields: [String: String], client: RegisteredClient) async throws -> TokenResponse {
        guard let token = fields["refresh_token"], (1...256).contains(token.utf8.count) else {
            throw OAuthError(.invalidRequest, "refresh_token is missing.")
        }
        let successor = client.settings.confidential ? nil : random.token(byteCount: 32)
        switch try await store.useRefreshToken(hash: Hex.sha256(token), clientID: client.clientID,
                                               rotatingTo: successor.map(Hex.sha256), now: clock.seconds) {
        case .unknown: throw OAuthError(.invalidGrant, "The refresh token is not valid.")
        case .reused: throw OAuthError(.invalidGrant, "The refresh token was used before; its whole family is revoked.")
        case .live(let family):
            guard let grant = try? JSONBody.decoder.decode(ProviderGrant.self, from: Data(family.grant.utf8)) else {
                throw OAuthError(.serverError)
            }
            var scopes = grant.scopes
            if let asked = fields["scope"] {
                guard let narrowed = Scopes.parse(asked), !narrowed.isEmpty, Set(narrowed).isSubset(of: grant.scopes) else {
                    throw OAuthError(.invalidScope, "A refresh may narrow the granted scopes, not widen them.")
                }
                scopes = narrowed
            }
            let user = try await liveUser(of: family)
            let resources = try await resources(fields, of: grant, client: client)
            return try await issue(for: user, client: client, grant: grant, scopes: scopes, resources: resources,
                                   familyID: family.familyID, refreshToken: successor, includeNonce: false)
        }
    }

    /// Whether a verified access token still counts: a client's own while the client exists and it was not revoked
    /// (such tokens have no family: a revocation marks them until they expire), a user's while its family and user live.
    private func isLive(_ access: OAuthTokens.AccessToken, realm: String) async throws -> Bool {
        if access.isClientToken {
            var exists = try await clients.client(access.clientID, realm: realm) != nil
            if !exists { exists = try await serviceAccounts.client(access.clientID, realm: realm) != nil }
            guard exists else { return false }
            return try await counters.counter(Self.revokedMarker(access), windowStart: access.expiresAt) == 0
        }
        guard let family = try await store.family(access.familyID) else { return false }
        return (try? await liveUser(of: family)) != nil
    }

    private static func revokedMarker(_ access: OAuthTokens.AccessToken) -> String {
        "oauth-revoked-access:" + Hex.sha256(access.claims["jti"]?.stringValue ?? "")
    }

    /// The family's user, who must still exist, be enabled, and not have had their sessions revoked since
    /// (`revokeRefreshTokens` ends the provider's tokens too); else the family is revoked.
    func liveUser(of family: OAuthFamilyRow) async throws -> UserAccount {
        guard let user = try await accounts.user(projectID: family.realm, localID: family.localID), !user.disabled,
              family.createdAt >= user.validSince
        else {
            try await store.revokeFamily(family.familyID, at: clock.seconds)
            throw OAuthError(.invalidGrant, "The user's account is disabled, deleted, or was signed out everywhere.")
        }
        return user
    }

    /// The resources a token request's access token is for (RFC 8707 §2.2): those granted, or the `resource`s it names,
    /// which must be among them (a grant narrows, never widens) and still registered and open to the client.
    private func resources(_ fields: [String: String], of grant: ProviderGrant, client: RegisteredClient) async throws
        -> [String]? {
        let granted = grant.resources ?? []
        let asked = Scopes.parse(fields["resource"]) ?? []
        guard asked.allSatisfy(granted.contains) else {
            throw OAuthError(.invalidTarget, "A token request may narrow the granted resources, not widen them.")
        }
        let wanted = asked.isEmpty ? granted : asked
        guard !wanted.isEmpty else { return nil }
        return try await registered(wanted, for: client).map(\.resource)
    }

    /// `resources` as the client's realm registers them, each open to the client; else `invalid_target`.
    func registered(_ resources: [String], for client: RegisteredClient) async throws -> [OAuthResourceSettings] {
        guard let settings = try await projects.project(client.realm)?.settings else { throw OAuthError(.serverError) }
        return try OAuthResourceRegistry.requested(resources, by: client.clientID, in: settings)
    }

    func issue(for user: UserAccount, client: RegisteredClient, grant: ProviderGrant, scopes: [String],
                       resources: [String]?, familyID: String, refreshToken: String?, includeNonce: Bool) async throws
        -> TokenResponse {
        var granted = grant
        granted.scopes = scopes
        granted.resources = resources
        let accessToken = try await tokens.accessToken(for: user, clientID: client.clientID, grant: granted, familyID: familyID)
        var idToken: String?
        if scopes.contains("openid") {
            idToken = try await tokens.idToken(
                for: user, clientID: client.clientID, grant: granted, accessToken: accessToken, includeNonce: includeNonce,
                userClaims: try await userClaims(of: user, scopes: scopes))
        }
        return TokenResponse(access_token: accessToken, expires_in: OAuthTokens.lifetime, scope: scopes.joined(separator: " "),
                             id_token: idToken, refresh_token: refreshToken)
    }

    /// The claims `scopes` release, with the realm's custom claims mapped to scopes.
    private func userClaims(of user: UserAccount, scopes: [String]) async throws -> [String: JSONValue] {
        let mapping = try await projects.project(user.projectID)?.settings.oauthServer?.customClaimScopes ?? [:]
        return OAuthTokens.userClaims(of: user, scopes: scopes, customClaimScopes: mapping)
    }

    // MARK: Revocation, introspection, userinfo

    /// RFC 7009: revokes the family of a refresh or access token the client holds. Unknown tokens, and tokens of other
    /// clients, change nothing and get the same empty answer.
    func revoke(_ request: Request, realm: String) async throws {
        let client = try await authenticate(request, realm: realm)
        guard let token = request.fields["token"], !token.isEmpty else { throw OAuthError(.invalidRequest, "token is missing.") }
        if token.utf8.count <= 256, let (family, _) = try await store.familyOfRefreshToken(hash: Hex.sha256(token)),
           family.clientID == client.clientID {
            try await store.revokeFamily(family.familyID, at: clock.seconds)
            return
        }
        if let access = try? await tokens.verifyAccessToken(token, realm: realm), access.clientID == client.clientID {
            if access.isClientToken {
                try await counters.incrementCounter(Self.revokedMarker(access), windowStart: access.expiresAt)
            } else {
                try await store.revokeFamily(access.familyID, at: clock.seconds)
            }
        }
    }

    /// RFC 7662: whether a token is active, and what it is for. Only confidential clients (resource servers included)
    /// may ask; a refresh token is shown to its own client only.
    func introspect(_ request: Request, realm: String) async throws -> [String: JSONValue] {
        let client = try await authenticate(request, realm: realm)
        guard client.settings.confidential else {
            throw OAuthError(.invalidClient, "Only a confidential client may introspect tokens.")
        }
        guard let token = request.fields["token"], !token.isEmpty else { throw OAuthError(.invalidRequest, "token is missing.") }
        let inactive: [String: JSONValue] = ["active": false]
        if request.fields["token_type_hint"] != "access_token", token.utf8.count <= 256,
           let (family, rotated) = try await store.familyOfRefreshToken(hash: Hex.sha256(token)) {
            guard family.clientID == client.clientID, family.revokedAt == nil, !rotated,
                  let user = try? await liveUser(of: family),
                  let grant = try? JSONBody.decoder.decode(ProviderGrant.self, from: Data(family.grant.utf8))
            else { return inactive }
            return ["active": true, "token_type": "refresh_token", "client_id": .string(family.clientID),
                    "sub": .string(user.localID), "scope": .string(grant.scopes.joined(separator: " ")),
                    "iss": .string(tokens.issuer(realm: realm)), "iat": .number(Double(family.createdAt))]
        }
        guard let access = try? await tokens.verifyAccessToken(token, realm: realm), try await isLive(access, realm: realm) else {
            return inactive
        }
        return ["active": true, "token_type": "Bearer", "client_id": .string(access.clientID), "sub": .string(access.subject),
                "scope": .string(access.scopes.joined(separator: " ")), "iss": .string(tokens.issuer(realm: realm)),
                "aud": OAuthTokens.audience(access.audiences), "exp": .number(Double(access.expiresAt)),
                "iat": .number(Double(access.issuedAt)), "jti": access.claims["jti"] ?? .null]
    }

    /// OpenID Connect's userinfo: the claims an access token with `openid` releases, for a live token of a live user.
    func userinfo(accessToken: String?, realm: String) async throws -> [String: JSONValue] {
        guard let accessToken, !accessToken.isEmpty else { throw OAuthError(.invalidToken, "An access token is required.") }
        let access = try await tokens.verifyAccessToken(accessToken, realm: realm, audience: tokens.defaultAudience(realm: realm))
        guard let family = try await store.family(access.familyID), let user = try? await liveUser(of: family) else {
            throw OAuthError(.invalidToken, "The access token was revoked.")
        }
        guard access.scopes.contains("openid") else {
            throw OAuthError(.invalidToken, "The access token was not granted the openid scope.")
        }
        var claims = try await userClaims(of: user, scopes: access.scopes)
        claims["sub"] = .string(user.localID)
        return claims
    }
}
