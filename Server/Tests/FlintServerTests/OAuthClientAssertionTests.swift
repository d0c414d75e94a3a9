import FlintTestSupport
import FlintWire
import Foundation
import Testing

/// RFC 7523 `private_key_jwt` client authentication at the token, revocation and introspection endpoints, with the
/// client's keys and assertions made by an independent implementation (client_assertion.py: PyJWT and `cryptography`)
/// and its JWKS served on a loopback port.
@Suite struct OAuthClientAssertionTests {
    private static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("python").appendingPathComponent("client_assertion.py")
    private static let assertionType = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"

    /// The script's JWKS and assertions for `clientID` at the server's instant.
    private func assertions(clientID: String, otherClientID: String, fixture: ProviderFixture)
        async throws -> (jwks: [[String: String]], assertions: [String: String]) {
        let process = try ChildProcess.launch(
            "timeout", ["60", "python3", Self.script.path, clientID, otherClientID, fixture.issuer, String(fixture.server.clock.seconds)])
        let result = await process.finish()
        #expect(result.status == 0, "\(result.errors)")
        let output = try JSONDecoder().decode(JSONValue.self, from: Data(result.output.utf8))
        let keys = try #require(output["jwks"]?["keys"]?.arrayValue).map { key in
            (key.objectValue ?? [:]).compactMapValues(\.stringValue)
        }
        let assertions = try #require(output["assertions"]?.objectValue).compactMapValues(\.stringValue)
        return (keys, assertions)
    }

    /// A form authenticated with `assertion` (and `client_id` when given), posted to `endpoint`.
    private func call(_ fixture: ProviderFixture, _ endpoint: String, _ form: [(String, String)], assertion: String?,
                      clientID: String? = nil, headers: [String: String] = [:]) async throws -> CookieBrowser.Answer {
        var fields = form
        if let assertion { fields += [("client_assertion_type", Self.assertionType), ("client_assertion", assertion)] }
        if let clientID { fields.append(("client_id", clientID)) }
        return try await CookieBrowser().send("POST", fixture.issuer + endpoint, form: fields, headers: headers)
    }

    @Test func aClientSignedAssertionAuthenticatesAndEveryBadOneIsRefused() async throws {
        let jwks = try await FakeJWKSServer.start()
        do {
            try await ProviderFixture.with { fixture in try await run(fixture, jwks: jwks) }
        } catch {
            await jwks.stop()
            throw error
        }
        await jwks.stop()
    }

    private func run(_ fixture: ProviderFixture, jwks: FakeJWKSServer) async throws {
        let discovery = try await CookieBrowser().send("GET", fixture.issuer + "/.well-known/openid-configuration")
        #expect(discovery.json["token_endpoint_auth_methods_supported"]?.arrayValue?.contains("private_key_jwt") == true)
        #expect(discovery.json["token_endpoint_auth_signing_alg_values_supported"] == ["RS256", "ES256"])

        let (clientID, secret) = try await fixture.register([
            "displayName": "Keyed", "redirectUris": ["http://127.0.0.1:4567/callback"], "firstParty": true,
            "jwksUri": .string(jwks.url),
        ])
        #expect(secret == nil)
        let shown = try await fixture.client.send("GET", "/v2/projects/\(fixture.server.projectID)/oauthClients/\(clientID)",
                                                  headers: fixture.admin)
        #expect(shown.string("tokenEndpointAuthMethod") == "private_key_jwt", "\(shown.body)")
        let (otherID, otherSecret) = try await fixture.register([
            "displayName": "Secret", "redirectUris": ["http://127.0.0.1:4567/callback"], "firstParty": true,
        ])
        let made = try await assertions(clientID: clientID, otherClientID: otherID, fixture: fixture)
        jwks.setKeys(made.jwks)
        let assertion = { (name: String) throws -> String in try #require(made.assertions[name], "no assertion \(name)") }

        // A code for the client; refused authentications do not spend it.
        let browser = CookieBrowser()
        let start = try await browser.send("GET", fixture.authorizeURL(clientID: clientID, scope: "openid email offline_access"))
        let next = try await fixture.signInOnPage(browser, signInPage: try #require(start.headers["location"]), email: "keys@example.com")
        let code = try #require(URLComponents(string: next)?.queryItems?.first { $0.name == "code" }?.value, "\(next)")
        let exchange: [(String, String)] = [
            ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", "http://127.0.0.1:4567/callback"),
            ("code_verifier", ProviderFixture.verifier),
        ]

        func expectRefused(_ answer: CookieBrowser.Answer, _ what: String, because reason: String = "",
                           sourceLocation: SourceLocation = #_sourceLocation) {
            #expect(answer.status == 401 && answer.json["error"] == "invalid_client", "\(what): \(answer.status) \(answer.body)",
                    sourceLocation: sourceLocation)
            let description = answer.json["error_description"]?.stringValue ?? ""
            #expect(reason.isEmpty || description.contains(reason), "\(what): \(description)", sourceLocation: sourceLocation)
        }
        let refusals: KeyValuePairs = [
            "wrong_audience": "aud", "expired": "expired", "expires_too_late": "an hour ahead", "issued_in_future": "iat",
            "issuer_not_subject": "iss and sub", "no_jti": "jti", "alg_none": "alg", "hs256_public_key_secret": "alg",
            "unknown_kid": "no key", "stranger_under_known_kid": "signature", "es256_under_rsa_kid": "is not for ES256",
        ]
        for (name, reason) in refusals {
            expectRefused(try await call(fixture, "/token", exchange, assertion: try assertion(name)), name, because: reason)
        }
        // Not a JWT at all, and the wrong assertion type.
        expectRefused(try await call(fixture, "/token", exchange, assertion: "not.a-jwt", clientID: clientID), "garbage")
        var wrongType = exchange + [("client_assertion_type", "urn:example:other"), ("client_assertion", try assertion("valid_rs256"))]
        wrongType.append(("client_id", clientID))
        expectRefused(try await CookieBrowser().send("POST", fixture.issuer + "/token", form: wrongType), "assertion type")
        // This client has no secret to use, nor may it send one beside its assertion.
        expectRefused(try await fixture.tokenCall(exchange, clientID: clientID, secret: "guessed-secret"), "secret for a keyed client",
                      because: "private_key_jwt")
        expectRefused(try await call(fixture, "/token", exchange + [("client_secret", "guessed-secret")],
                                     assertion: try assertion("valid_rs256"), clientID: clientID), "secret and assertion")
        // A client_id that is not the assertion's.
        expectRefused(try await call(fixture, "/token", exchange, assertion: try assertion("valid_rs256"), clientID: otherID),
                      "another client's name", because: "no JWKS URI")
        // A client with a secret cannot switch to assertions.
        expectRefused(try await call(fixture, "/token", exchange, assertion: try assertion("for_secret_client")), "secret client",
                      because: "no JWKS URI")

        // The genuine RS256 assertion (its jti unspent by the refusals above) gets the tokens, the form naming the client.
        let tokens = try await call(fixture, "/token", exchange, assertion: try assertion("valid_rs256"), clientID: clientID)
        #expect(tokens.status == 200, "\(tokens.body)")
        let accessToken = try #require(tokens.json["access_token"]?.stringValue)
        let refreshToken = try #require(tokens.json["refresh_token"]?.stringValue)
        #expect(ProviderFixture.claims(try #require(tokens.json["id_token"]?.stringValue))["aud"] == .string(clientID))
        // Its jti again, in a newly signed assertion: a replay.
        expectRefused(try await call(fixture, "/introspect", [("token", accessToken)], assertion: try assertion("replayed_jti")),
                      "replayed jti", because: "used before")
        // And the same assertion itself.
        expectRefused(try await call(fixture, "/introspect", [("token", accessToken)], assertion: try assertion("valid_rs256")),
                      "replayed assertion", because: "used before")

        // ES256, the issuer as the audience, at the introspection endpoint (no client_id: the assertion names the client).
        let introspected = try await call(fixture, "/introspect", [("token", accessToken)],
                                          assertion: try assertion("valid_es256_issuer_audience"))
        #expect(introspected.status == 200 && introspected.json["active"] == true, "\(introspected.body)")
        #expect(introspected.json["client_id"] == .string(clientID))
        // ES256 at the revocation endpoint, its own URL in the audience list.
        let revoked = try await call(fixture, "/revoke", [("token", refreshToken)], assertion: try assertion("valid_es256_revocation"),
                                     clientID: clientID)
        #expect(revoked.status == 200, "\(revoked.body)")
        // RS256 at the introspection endpoint, its own URL the audience: the revoked family's token is inactive.
        let afterRevocation = try await call(fixture, "/introspect", [("token", accessToken)],
                                             assertion: try assertion("valid_rs256_introspection"))
        #expect(afterRevocation.status == 200 && afterRevocation.json["active"] == false, "\(afterRevocation.body)")

        // The secret client still authenticates with its secret.
        let otherIntrospection = try await fixture.tokenCall([("token", accessToken)], clientID: otherID, secret: otherSecret,
                                                             endpoint: "/introspect")
        #expect(otherIntrospection.status == 200, "\(otherIntrospection.body)")
        #expect(jwks.requestCount >= 1)
    }
}
