import _CryptoExtras
import Crypto
import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
import Testing

/// The Sign in with Apple and Facebook fakes themselves: what they serve and what they refuse.
@Suite struct FederatedFakesTests {
    static let clientID = "dev.flint.example.signin"

    static func client(_ baseURL: String) -> TestClient { TestClient(baseURL: URL(string: baseURL)!, apiKey: nil) }

    static func get(_ baseURL: String, _ path: String) async throws -> TestClient.Reply {
        try await client(baseURL).send("GET", path, includeKey: false)
    }

    static func postForm(_ baseURL: String, _ path: String, _ fields: [String: String]) async throws -> TestClient.Reply {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let body = fields.sorted { $0.key < $1.key }
            .map { "\($0.key)=\($0.value.addingPercentEncoding(withAllowedCharacters: allowed)!)" }.joined(separator: "&")
        return try await client(baseURL).send("POST", path, body: Data(body.utf8),
                                              headers: ["Content-Type": "application/x-www-form-urlencoded"],
                                              includeKey: false)
    }

    /// An ES256 JWT as Apple wants the client secret.
    static func clientSecret(key: P256.Signing.PrivateKey, keyID: String = "FLINTSIWA1", teamID: String = "FLINTTEAM1",
                             clientID: String = clientID, audience: String = "https://appleid.apple.com",
                             lifetime: Int64 = 3600) throws -> String {
        let now = Int64(Date().timeIntervalSince1970)
        let header = try JSONSerialization.data(withJSONObject: ["alg": "ES256", "kid": keyID], options: [.sortedKeys])
        let claims = try JSONSerialization.data(withJSONObject: [
            "iss": teamID, "sub": clientID, "aud": audience, "iat": now, "exp": now + lifetime,
        ] as [String: Any], options: [.sortedKeys])
        let input = Base64URL.encode(header) + "." + Base64URL.encode(claims)
        let signature = try key.signature(for: Data(input.utf8))
        return input + "." + Base64URL.encode(signature.rawRepresentation)
    }

    /// Verifies an RS256 token against a JWKS reply; returns its claims, or nil.
    static func verify(_ token: String, jwks: TestClient.Reply) throws -> [String: JSONValue]? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerData = Base64URL.decode(parts[0]),
              case .object(let header)? = try? JSONDecoder().decode(JSONValue.self, from: headerData),
              header["alg"]?.stringValue == "RS256", let kid = header["kid"]?.stringValue,
              let keys = jwks["keys"]?.arrayValue,
              let jwk = keys.first(where: { $0.objectValue?["kid"]?.stringValue == kid })?.objectValue,
              let n = jwk["n"]?.stringValue.flatMap(Base64URL.decode), let e = jwk["e"]?.stringValue.flatMap(Base64URL.decode),
              let signature = Base64URL.decode(parts[2])
        else { return nil }
        let key = try _RSA.Signing.PublicKey(n: n, e: e)
        guard key.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: signature),
                                   for: Data("\(parts[0]).\(parts[1])".utf8), padding: .insecurePKCS1v1_5)
        else { return nil }
        return claims(of: token)
    }

    // MARK: Apple

    @Test func appleJWKSVerifiesItsIdentityTokensAndOnlyThose() async throws {
        let apple = try await FakeApple.start(teamKey: P256.Signing.PrivateKey().publicKey)
        do {
            let token = try apple.makeIdentityToken(sub: "001.apple", audience: Self.clientID, nonce: "abc",
                                                    email: "a@privaterelay.appleid.com", isPrivateEmail: true)
            let jwks = try await Self.get(apple.baseURL, "/auth/keys")
            #expect(jwks.status == 200)
            let claims = try #require(try Self.verify(token, jwks: jwks))
            #expect(claims["iss"]?.stringValue == "https://appleid.apple.com")
            #expect(claims["aud"]?.stringValue == Self.clientID)
            #expect(claims["sub"]?.stringValue == "001.apple")
            #expect(claims["nonce"]?.stringValue == "abc")
            #expect(claims["email_verified"]?.stringValue == "true")
            #expect(claims["is_private_email"]?.stringValue == "true")

            let foreign = try apple.makeIdentityToken(sub: "001.apple", audience: Self.clientID, signWith: .foreignKey)
            #expect(try Self.verify(foreign, jwks: jwks) == nil)
            let none = try apple.makeIdentityToken(sub: "001.apple", audience: Self.clientID, signWith: .none)
            #expect(try Self.verify(none, jwks: jwks) == nil)

            // After a rotation both keys are published and the new one signs.
            let oldKid = apple.currentKeyID
            let newKid = try apple.rotateKey()
            let rotated = try await Self.get(apple.baseURL, "/auth/keys")
            #expect(rotated["keys"]?.arrayValue?.compactMap { $0.objectValue?["kid"]?.stringValue } == [oldKid, newKid])
            let fresh = try apple.makeIdentityToken(sub: "001.apple", audience: Self.clientID)
            #expect(try Self.verify(fresh, jwks: rotated) != nil)
            #expect(try Self.verify(fresh, jwks: jwks) == nil)
        } catch {
            await apple.stop()
            throw error
        }
        await apple.stop()
    }

    @Test func appleTokenEndpointChecksClientSecretAndCode() async throws {
        let teamKey = P256.Signing.PrivateKey()
        let apple = try await FakeApple.start(teamKey: teamKey.publicKey)
        do {
            let code = apple.makeAuthorizationCode(for: "001.apple", clientID: Self.clientID)
            func exchange(secret: String, code: String) async throws -> TestClient.Reply {
                try await Self.postForm(apple.baseURL, "/auth/token", [
                    "client_id": Self.clientID, "client_secret": secret, "code": code, "grant_type": "authorization_code",
                ])
            }
            let wrongKey = try await exchange(secret: Self.clientSecret(key: P256.Signing.PrivateKey()), code: code)
            #expect(wrongKey.status == 400)
            #expect(wrongKey.string("error") == "invalid_client")
            let wrongAudience = try await exchange(secret: Self.clientSecret(key: teamKey, audience: "https://example.com"),
                                                   code: code)
            #expect(wrongAudience.string("error") == "invalid_client")
            let tooLong = try await exchange(secret: Self.clientSecret(key: teamKey, lifetime: 200 * 24 * 3600), code: code)
            #expect(tooLong.string("error") == "invalid_client")

            let secret = try Self.clientSecret(key: teamKey)
            let reply = try await exchange(secret: secret, code: code)
            #expect(reply.status == 200)
            #expect(reply.string("token_type") == "Bearer")
            #expect(reply["expires_in"] == .number(3600))
            let jwks = try await Self.get(apple.baseURL, "/auth/keys")
            let idToken = try #require(reply.string("id_token"))
            #expect(try Self.verify(idToken, jwks: jwks)?["sub"]?.stringValue == "001.apple")

            let reused = try await exchange(secret: secret, code: code)
            #expect(reused.status == 400)
            #expect(reused.string("error") == "invalid_grant")
            let unknown = try await exchange(secret: secret, code: "not-a-code")
            #expect(unknown.string("error") == "invalid_grant")

            // Revocation.
            let refreshToken = try #require(reply.string("refresh_token"))
            func revoke(_ token: String, secret: String) async throws -> TestClient.Reply {
                try await Self.postForm(apple.baseURL, "/auth/revoke", [
                    "client_id": Self.clientID, "client_secret": secret, "token": token, "token_type_hint": "refresh_token",
                ])
            }
            #expect(try await revoke(refreshToken, secret: Self.clientSecret(key: P256.Signing.PrivateKey())).status == 400)
            #expect(try await revoke("unknown", secret: secret).status == 400)
            #expect(try await revoke(refreshToken, secret: secret).status == 200)
            let revocations = apple.revocations.all
            #expect(revocations.map(\.token) == [refreshToken])
            #expect(revocations.first?.clientID == Self.clientID)
            #expect(revocations.first?.tokenTypeHint == "refresh_token")
            #expect(apple.requests.all.allSatisfy { $0.fields["client_secret"] == nil })
        } catch {
            await apple.stop()
            throw error
        }
        await apple.stop()
    }

    // MARK: Facebook

    @Test func facebookDebugTokenAndMe() async throws {
        let facebook = try await FakeFacebook.start()
        do {
            let token = facebook.makeUserAccessToken(userID: "10001", name: "Ada", email: "ada@example.com")
            let escapedAppToken = facebook.appAccessToken.replacingOccurrences(of: "|", with: "%7C")
            let debug = try await Self.get(facebook.graphURL, "/debug_token?input_token=\(token)&access_token=\(escapedAppToken)")
            #expect(debug.status == 200)
            let data = try #require(debug["data"]?.objectValue)
            #expect(data["is_valid"] == .bool(true))
            #expect(data["app_id"]?.stringValue == facebook.appID)
            #expect(data["user_id"]?.stringValue == "10001")

            let wrongApp = try await Self.get(facebook.graphURL, "/debug_token?input_token=\(token)&access_token=\(facebook.appID)%7Cnope")
            #expect(wrongApp.status == 400)
            #expect(wrongApp.body.objectValue?["error"]?.objectValue?["code"] == .number(190))

            let otherApp = facebook.makeUserAccessToken(userID: "10002", appID: "999")
            let other = try await Self.get(facebook.graphURL, "/v19.0/debug_token?input_token=\(otherApp)&access_token=\(escapedAppToken)")
            #expect(other["data"]?.objectValue?["app_id"]?.stringValue == "999")
            let revoked = facebook.makeUserAccessToken(userID: "10003", valid: false)
            let invalid = try await Self.get(facebook.graphURL, "/debug_token?input_token=\(revoked)&access_token=\(escapedAppToken)")
            #expect(invalid["data"]?.objectValue?["is_valid"] == .bool(false))

            let proof = facebook.appSecretProof(for: token)
            let me = try await Self.get(facebook.graphURL,
                                        "/v19.0/me?fields=id,name,email,picture&access_token=\(token)&appsecret_proof=\(proof)")
            #expect(me.status == 200)
            #expect(me.string("id") == "10001")
            #expect(me.string("name") == "Ada")
            #expect(me.string("email") == "ada@example.com")
            #expect(me["picture"]?.objectValue?["data"]?.objectValue?["url"]?.stringValue != nil)

            let badProof = try await Self.get(facebook.graphURL,
                                              "/me?fields=id&access_token=\(token)&appsecret_proof=\(String(repeating: "0", count: 64))")
            #expect(badProof.status == 400)
            let noProof = try await Self.get(facebook.graphURL, "/me?fields=id&access_token=\(token)")
            #expect(noProof.status == 400)

            let recorded = facebook.requests.all
            #expect(recorded.count == 7)
            #expect(recorded.allSatisfy { !($0.query["access_token"] ?? "").contains(facebook.appSecret) })
            #expect(recorded[4].path == "/me")
            #expect(recorded[4].version == "v19.0")
        } catch {
            await facebook.stop()
            throw error
        }
        await facebook.stop()
    }

    @Test func facebookLimitedLoginTokenVerifiesWithItsJWKS() async throws {
        let facebook = try await FakeFacebook.start()
        do {
            let token = try facebook.makeLimitedLoginToken(sub: "10001", nonce: "n-1", name: "Ada", email: "ada@example.com")
            let jwks = try await Self.get(facebook.graphURL, "/.well-known/oauth/openid/jwks/")
            #expect(jwks.status == 200)
            let claims = try #require(try Self.verify(token, jwks: jwks))
            #expect(claims["iss"]?.stringValue == "https://www.facebook.com")
            #expect(claims["aud"]?.stringValue == facebook.appID)
            #expect(claims["nonce"]?.stringValue == "n-1")
            #expect(claims["jti"]?.stringValue != nil)
            let forged = try facebook.makeLimitedLoginToken(sub: "10001", signWith: .hs256(secret: facebook.currentPublicKeyDER))
            #expect(try Self.verify(forged, jwks: jwks) == nil)
        } catch {
            await facebook.stop()
            throw error
        }
        await facebook.stop()
    }
}
