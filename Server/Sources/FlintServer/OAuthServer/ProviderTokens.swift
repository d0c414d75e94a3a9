import Crypto
import FlintWire
import Foundation

/// What a user granted a client in one authorization, carried by its code and kept by the token family the code
/// begins: the scopes, and how and when the user signed in.
struct ProviderGrant: Codable, Sendable, Equatable {
    var scopes: [String]
    /// OpenID Connect's `nonce`, echoed in the ID tokens of the code's exchange.
    var nonce: String?
    var authTime: Int64
    /// RFC 8176's methods (`pwd`, `otp`, `sms`, `mfa`, `hwk`, `fed`).
    var amr: [String]
    var acr: String
    /// The browser session it was granted in (`sid`), if any.
    var sid: String?
    /// RFC 8707's resources it was granted for (nil: none named); a token request may narrow them.
    var resources: [String]? = nil
}

/// The provider's tokens, signed with the project's keys, each typed so that none is taken for another:
/// ID tokens (OpenID Connect Core §2, `typ: JWT`, audience the client, no `firebase` claim, so Firebase's own
/// verification refuses them) and access tokens (RFC 9068, `typ: at+jwt`, audience the resources asked for, RFC 8707,
/// else the issuer's userinfo endpoint). Refresh tokens are opaque and stored hashed (`OAuthStore`).
struct OAuthTokens: Sendable {
    let keyring: SigningKeyring
    let clock: any FlintClock
    let random: any RandomSource
    let address: PublicAddress

    /// Access and ID tokens live an hour, as Firebase's ID tokens do.
    static let lifetime: Int64 = 3600
    /// How far in the future an `iat` may lie (other nodes' clocks).
    static let allowedClockSkew: Int64 = 300

    /// The issuer of a realm: the project's is the one its Firebase ID tokens name (`<public URL>/<project>`), a
    /// tenant's `<public URL>/<project>/tenants/<tenant>`.
    func issuer(realm: String) -> String { address.url + "/" + realm }

    /// The audience of access tokens asked for no particular resource: the provider's own userinfo endpoint.
    func defaultAudience(realm: String) -> String { issuer(realm: realm) + ProviderEndpoints.userinfo }

    /// Who an access token is for: the resources it was granted for (RFC 8707 §2), and the userinfo endpoint too where
    /// it was granted `openid`; the userinfo endpoint alone where no resource was named.
    func audiences(of grant: ProviderGrant, realm: String) -> [String] {
        guard let resources = grant.resources, !resources.isEmpty else { return [defaultAudience(realm: realm)] }
        return resources + (grant.scopes.contains("openid") ? [defaultAudience(realm: realm)] : [])
    }

    /// `aud`: one audience as a string, several as an array (RFC 7519 §4.1.3).
    static func audience(_ audiences: [String]) -> JSONValue {
        audiences.count == 1 ? .string(audiences[0]) : .array(audiences.map(JSONValue.string))
    }

    /// An access token for `user`, of `family` (its `jti` starts with the family's ID, so revoking the family revokes it).
    func accessToken(for user: UserAccount, clientID: String, grant: ProviderGrant, familyID: String) async throws -> String {
        let now = clock.seconds
        var claims: [String: JSONValue] = [
            "iss": .string(issuer(realm: user.projectID)), "sub": .string(user.localID),
            "aud": Self.audience(audiences(of: grant, realm: user.projectID)), "client_id": .string(clientID),
            "scope": .string(grant.scopes.joined(separator: " ")), "iat": .number(Double(now)),
            "exp": .number(Double(now + Self.lifetime)), "auth_time": .number(Double(grant.authTime)),
            "jti": .string(familyID + "." + random.token(byteCount: 12)), "acr": .string(grant.acr),
            "amr": .array(grant.amr.map(JSONValue.string)),
        ]
        if let sid = grant.sid { claims["sid"] = .string(sid) }
        if let tenant = Realm(key: user.projectID).tenantID { claims["tenant"] = .string(tenant) }
        return try await keyring.sign(payload: Data(try JSONValue.object(claims).jsonBytes()), type: .accessToken)
    }

    /// A client's access token for itself (the client-credentials grant): `sub` is the client (RFC 9068 §2.2); its `jti`
    /// starts with `clientTokenPrefix`, since it belongs to no family.
    func clientAccessToken(clientID: String, realm: String, scopes: [String], resources: [String]) async throws -> String {
        let now = clock.seconds
        var claims: [String: JSONValue] = [
            "iss": .string(issuer(realm: realm)), "sub": .string(clientID),
            "aud": Self.audience(resources.isEmpty ? [issuer(realm: realm)] : resources), "client_id": .string(clientID),
            "scope": .string(scopes.joined(separator: " ")), "iat": .number(Double(now)),
            "exp": .number(Double(now + Self.lifetime)), "jti": .string(Self.clientTokenPrefix + "." + random.token(byteCount: 16)),
        ]
        if let tenant = Realm(key: realm).tenantID { claims["tenant"] = .string(tenant) }
        return try await keyring.sign(payload: Data(try JSONValue.object(claims).jsonBytes()), type: .accessToken)
    }

    /// The first part of a client's own token's `jti`, where a user's names its family (random, never this).
    static let clientTokenPrefix = "client"

    /// An ID token for `user` and `clientID`, with the claims its scopes allow (`userClaims`), `at_hash` of the access
    /// token issued beside it, and the nonce of the authorization when `includeNonce` (a code's exchange, not a refresh).
    func idToken(for user: UserAccount, clientID: String, grant: ProviderGrant, accessToken: String, includeNonce: Bool,
                 userClaims: [String: JSONValue]) async throws -> String {
        let now = clock.seconds
        var claims = userClaims
        claims["iss"] = .string(issuer(realm: user.projectID))
        claims["sub"] = .string(user.localID)
        claims["aud"] = .string(clientID)
        claims["azp"] = .string(clientID)
        claims["iat"] = .number(Double(now))
        claims["exp"] = .number(Double(now + Self.lifetime))
        claims["auth_time"] = .number(Double(grant.authTime))
        claims["acr"] = .string(grant.acr)
        claims["amr"] = .array(grant.amr.map(JSONValue.string))
        claims["at_hash"] = .string(Self.leftHalfHash(accessToken))
        if let sid = grant.sid { claims["sid"] = .string(sid) }
        if includeNonce, let nonce = grant.nonce { claims["nonce"] = .string(nonce) }
        return try await keyring.sign(payload: Data(try JSONValue.object(claims).jsonBytes()))
    }

    /// OpenID Connect's `at_hash`: base64url of the left half of the token's SHA-256 (for RS256).
    static func leftHalfHash(_ token: String) -> String {
        Base64URL.encode(Data(SHA256.hash(data: Data(token.utf8))).prefix(16))
    }

    /// The claims of an access token: checked signature and type, issuer of `realm`, audience, expiry.
    struct AccessToken: Sendable {
        let subject: String
        let clientID: String
        let scopes: [String]
        let familyID: String
        let issuedAt: Int64
        let expiresAt: Int64
        let audiences: [String]
        let claims: [String: JSONValue]

        /// A client's token for itself (client credentials), of no family and no user.
        var isClientToken: Bool { familyID == OAuthTokens.clientTokenPrefix }
    }

    /// Verifies an access token of `realm`: our key, `typ: at+jwt`, the realm's issuer, `audience` among its audiences
    /// (when given: the userinfo endpoint checks its own), not expired and not issued in the future. A Firebase ID token
    /// or a provider ID token (`typ: JWT`) is refused.
    func verifyAccessToken(_ token: String, realm: String, audience: String? = nil) async throws(OAuthError) -> AccessToken {
        guard let verified = await keyring.verify(token, type: .accessToken),
              case .object(let claims)? = try? JSONBody.decoder.decode(JSONValue.self, from: verified.payload),
              claims["iss"]?.stringValue == issuer(realm: realm),
              let subject = claims["sub"]?.stringValue, let clientID = claims["client_id"]?.stringValue,
              let jti = claims["jti"]?.stringValue, let familyID = jti.split(separator: ".").first.map(String.init),
              let exp = claims["exp"]?.numberValue, let iat = claims["iat"]?.numberValue
        else { throw OAuthError(.invalidToken, "The access token is not one of this issuer's.") }
        let audiences = claims["aud"]?.stringValue.map { [$0] } ?? (claims["aud"]?.arrayValue ?? []).compactMap(\.stringValue)
        if let audience, !audiences.contains(audience) {
            throw OAuthError(.invalidToken, "The access token is not for this resource.")
        }
        let now = clock.seconds
        guard Int64(exp) > now, Int64(iat) <= now + Self.allowedClockSkew else {
            throw OAuthError(.invalidToken, "The access token has expired.")
        }
        return AccessToken(subject: subject, clientID: clientID,
                           scopes: (claims["scope"]?.stringValue ?? "").split(separator: " ").map(String.init),
                           familyID: familyID, issuedAt: Int64(iat), expiresAt: Int64(exp), audiences: audiences, claims: claims)
    }

    /// The claims of one of our ID tokens for logout's `id_token_hint`: signature, type and issuer checked, expiry not
    /// (RFC: an expired hint still names the session), nil for anything else.
    func hintedIDToken(_ token: String, realm: String) async -> [String: JSONValue]? {
        guard let verified = await keyring.verify(token),
              case .object(let claims)? = try? JSONBody.decoder.decode(JSONValue.self, from: verified.payload),
              claims["iss"]?.stringValue == issuer(realm: realm), claims["firebase"] == nil
        else { return nil }
        return claims
    }

    /// The claims of `user` that `scopes` release (OpenID Connect Core §5.4), for ID tokens and userinfo; custom claims
    /// the realm maps to a granted scope join them.
    static func userClaims(of user: UserAccount, scopes: [String], customClaimScopes: [String: [String]]) -> [String: JSONValue] {
        var claims: [String: JSONValue] = [:]
        if scopes.contains("email"), let email = user.email {
            claims["email"] = .string(email)
            claims["email_verified"] = .bool(user.emailVerified)
        }
        if scopes.contains("phone"), let phone = user.phoneNumber {
            claims["phone_number"] = .string(phone)
            claims["phone_number_verified"] = .bool(true)
        }
        if scopes.contains("profile") {
            if let name = user.displayName { claims["name"] = .string(name) }
            if let picture = user.photoURL { claims["picture"] = .string(picture) }
        }
        if let tenant = Realm(key: user.projectID).tenantID { claims["tenant"] = .string(tenant) }
        if let custom = user.customAttributes,
           case .object(let values)? = try? JSONBody.decoder.decode(JSONValue.self, from: Data(custom.utf8)) {
            for scope in scopes {
                for name in customClaimScopes[scope] ?? [] where claims[name] == nil && !registeredClaims.contains(name) {
                    if let value = values[name] { claims[name] = value }
                }
            }
        }
        return claims
    }

    /// Claims a custom claim may never stand in for.
    static let registeredClaims: Set<String> = [
        "iss", "sub", "aud", "exp", "iat", "nbf", "jti", "auth_time", "nonce", "acr", "amr", "azp", "at_hash", "sid",
        "client_id", "scope", "firebase",
    ]
}
