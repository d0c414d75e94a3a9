import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
import Testing

/// SAML sign-in in production mode over HTTP: `createAuthUri` makes the AuthnRequest, an IdP written in Python
/// (`Tests/python/saml_flow.py`: zlib to read the request, `cryptography` to check its signature, signxml to sign the
/// answer) answers it, and `signInWithIdp` takes the response — or refuses it with a 400, never a 5xx.
@Suite struct SAMLSignInTests {
    static let provider = "saml.acme"
    static let idpEntity = "https://idp.acme.test/metadata"
    static let spEntity = "https://flint.acme.test/sp"
    static let appPage = "http://localhost/app"

    /// Runs `saml_flow.py command` with `argument` and decodes what it prints.
    static func python(_ command: String, _ argument: JSONValue) async throws -> JSONValue {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("python/saml_flow.py")
        let text = String(decoding: try JSONEncoder().encode(argument), as: UTF8.self)
        let (status, output, errors) = await (try ChildProcess.launch("python3", [script.path, command, text])).finish()
        guard status == 0 else { throw DriverError(description: "saml_flow.py \(command): \(errors)\(output)") }
        return try JSONDecoder().decode(JSONValue.self, from: Data(output.utf8))
    }

    /// A production server with `saml.acme` configured for a test IdP, what the admin API answered, the IdP's keys,
    /// and an admin caller.
    struct Setup {
        let server: TestServer
        let client: TestClient
        let idp: JSONValue
        let config: TestClient.Reply

        var callback: String { server.baseURL.absoluteString + "/__/auth/handler" }
        var now: Double { server.clock.now().timeIntervalSince1970 }

        func admin(_ method: String, _ path: String, _ body: JSONValue? = nil) async throws -> TestClient.Reply {
            try await SAMLSignInTests.admin(client, server, method, path, body)
        }

        /// `count` SP-initiated sign-ins started with `createAuthUri`: their IdP URLs and session IDs.
        func start(_ count: Int = 1) async throws -> [(authURI: String, sessionID: String)] {
            var started: [(String, String)] = []
            for _ in 0..<count {
                let reply = try await client.post("/v1/accounts:createAuthUri", [
                    "providerId": .string(SAMLSignInTests.provider), "continueUri": .string(SAMLSignInTests.appPage),
                ])
                started.append((try #require(reply.string("authUri"), "\(reply.body)"), try #require(reply.string("sessionId"))))
            }
            return started
        }

        /// The IdP's answers to `cases` (each an IdP URL and overrides of the response's making).
        func answers(_ cases: [JSONValue]) async throws -> [JSONValue] {
            let spCertificate = config["spConfig"]?["spCertificates"]?.arrayValue?.first?["x509Certificate"]?.stringValue ?? ""
            let der = spCertificate.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
            let reply = try await SAMLSignInTests.python("answer", [
                "idp": idp, "entity_id": .string(SAMLSignInTests.idpEntity), "now": .number(now),
                "sp_cert_der_b64": .string(der), "cases": .array(cases),
            ])
            return reply["answers"]?.arrayValue ?? []
        }

        /// The IdP's unsolicited (IdP-initiated) responses for `cases`, to the callback URI.
        func unsolicited(_ cases: [JSONValue]) async throws -> [String] {
            let reply = try await SAMLSignInTests.python("unsolicited", [
                "idp": idp, "entity_id": .string(SAMLSignInTests.idpEntity), "now": .number(now),
                "acs": .string(callback), "audience": .string(SAMLSignInTests.spEntity), "cases": .array(cases),
            ])
            return reply["answers"]?.arrayValue?.compactMap { $0["saml_response"]?.stringValue } ?? []
        }

        /// `signInWithIdp` with an unsolicited response in FirebaseAuth's shape: put into `postBody` as it is (its
        /// `+` then read as spaces).
        func sendUnsolicited(_ response: String) async throws -> TestClient.Reply {
            try await client.post("/v1/accounts:signInWithIdp", [
                "requestUri": .string(callback), "returnSecureToken": true,
                "postBody": .string("SAMLResponse=\(response)&providerId=\(SAMLSignInTests.provider)"),
            ])
        }

        /// `signInWithIdp` with the link the handler would give the app.
        func finish(_ answer: JSONValue, sessionID: String?) async throws -> TestClient.Reply {
            let link = SAMLSignInTests.appPage + "?" + FormURLEncoding.encode([
                ("SAMLResponse", answer["saml_response"]?.stringValue ?? ""), ("RelayState", answer["relay_state"]?.stringValue ?? ""),
            ])
            var body: [String: JSONValue] = ["requestUri": .string(link), "returnSecureToken": true, "returnIdpCredential": true]
            body["sessionId"] = sessionID.map(JSONValue.string)
            return try await client.post("/v1/accounts:signInWithIdp", body)
        }
    }

    /// The admin API's `inboundSamlConfigs` collection, as the project's owner.
    static func admin(_ client: TestClient, _ server: TestServer, _ method: String, _ path: String,
                      _ body: JSONValue? = nil) async throws -> TestClient.Reply {
        try await client.send(method, "/v2/projects/\(server.projectID)/inboundSamlConfigs" + path,
                              body: try body.map { try JSONEncoder().encode($0) },
                              headers: ["Authorization": try await adminAuthorization(server)], includeKey: false)
    }

    /// Production mode's admin credential: a service account's self-signed JWT.
    static func adminAuthorization(_ server: TestServer) async throws -> String {
        let key = try await server.server.serviceAccounts.create(projectID: server.projectID)
        return "Bearer " + (try key.signedJWT(audience: "https://identitytoolkit.googleapis.com/", now: server.clock.seconds))
    }

    static func withSAML(database: TestDatabase = .sqlite, extra: [String: JSONValue] = [:],
                         _ body: (Setup) async throws -> Void) async throws {
        try await withServer(emulator: false, database: database) { server, client in
            let idp = try await python("keypair", ["cn": "Acme test IdP"])
            var config: [String: JSONValue] = [
                "displayName": "Acme", "enabled": true,
                "idpConfig": ["idpEntityId": .string(idpEntity), "ssoUrl": "https://idp.acme.test/sso", "signRequest": true,
                              "idpCertificates": [["x509Certificate": idp["cert_pem"] ?? .null]]],
                "spConfig": ["spEntityId": .string(spEntity), "callbackUri": .string(server.baseURL.absoluteString + "/__/auth/handler")],
            ]
            config.merge(extra) { $1 }
            let created = try await admin(client, server, "POST", "?inboundSamlConfigId=\(provider)", .object(config))
            #expect(created.status == 200, "\(created.body)")
            try await body(Setup(server: server, client: client, idp: idp, config: created))
        }
    }

    @Test(arguments: TestDatabase.allCases)
    func anSPInitiatedSignInCreatesTheAccountOnce(database: TestDatabase) async throws {
        try await Self.withSAML(database: database) { setup in
            let (authURI, sessionID) = try await setup.start()[0]
            let answer = try #require(try await setup.answers([[
                "auth_uri": .string(authURI), "name_id": "Grace@Acme.test",
                "attributes": ["displayName": ["Grace Hopper"], "groups": ["engineering", "navy"]],
            ]]).first)
            // The IdP read a signed request for Flint's entity ID, answered at the callback URI.
            let request = answer["request"]
            #expect(request?["signature_verified"] == true && request?["issuer"]?.stringValue == Self.spEntity)
            #expect(request?["acs"]?.stringValue == setup.callback && request?["destination"]?.stringValue == "https://idp.acme.test/sso")
            #expect(request?["binding"]?.stringValue == "urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST")

            // Without the app's session ID the response signs no one in; with it, once.
            #expect(try await setup.finish(answer, sessionID: "someone-else").errorCode == "INVALID_IDP_RESPONSE")
            let reply = try await setup.finish(answer, sessionID: sessionID)
            #expect(reply.status == 200, "\(reply.body)")
            #expect(reply["providerId"] == .string(Self.provider) && reply["federatedId"] == "Grace@Acme.test")
            #expect(reply["email"] == "grace@acme.test" && reply["emailVerified"] == false && reply["displayName"] == "Grace Hopper")
            #expect(reply["isNewUser"] == true)
            let raw = try JSONDecoder().decode(JSONValue.self, from: Data((reply.string("rawUserInfo") ?? "{}").utf8))
            #expect(raw["groups"] == ["engineering", "navy"] && raw["displayName"] == "Grace Hopper")
            #expect(claims(of: reply.string("idToken"))["firebase"]?["sign_in_provider"]?.stringValue == Self.provider)
            // The attribute statement rides in every ID token of the session, refreshed ones too.
            let attributes: JSONValue = ["displayName": "Grace Hopper", "groups": ["engineering", "navy"]]
            #expect(claims(of: reply.string("idToken"))["firebase"]?["sign_in_attributes"] == attributes)
            let refreshed = try await setup.client.refresh(reply.string("refreshToken"))
            #expect(claims(of: refreshed.string("id_token"))["firebase"]?["sign_in_attributes"] == attributes, "\(refreshed.body)")
            #expect(try await setup.finish(answer, sessionID: sessionID).errorCode == "INVALID_IDP_RESPONSE")

            // A second sign-in finds the same account.
            let (again, againSession) = try await setup.start()[0]
            let second = try #require(try await setup.answers([["auth_uri": .string(again), "name_id": "Grace@Acme.test"]]).first)
            let signedIn = try await setup.finish(second, sessionID: againSession)
            #expect(signedIn["localId"] == reply["localId"] && signedIn["isNewUser"] == nil, "\(signedIn.body)")
        }
    }

    /// Each response below is refused with 400 `INVALID_IDP_RESPONSE`, and nothing signs in.
    @Test(arguments: TestDatabase.allCases)
    func hostileAndWrongResponsesAreRefused(database: TestDatabase) async throws {
        try await Self.withSAML(database: database) { setup in
            let cases: [(String, JSONValue)] = [
                ("wrong audience", ["audience": "https://someone-else.test/sp"]),
                ("wrong recipient", ["recipient": "https://evil.test/acs"]),
                ("wrong destination", ["destination": "https://evil.test/acs", "sign": "both"]),
                ("wrong issuer", ["issuer": "https://evil.test/idp"]),
                ("another request", ["in_response_to": "_not-this-request"]),
                ("expired", ["not_on_or_after": .number(-180), "not_before": .number(-900)]),
                ("not yet valid", ["not_before": .number(600), "not_on_or_after": .number(900)]),
                ("unsigned", ["sign": .null]),
                ("another key", ["other_key": true]),
                ("sha-1", ["digest": "sha1"]),
            ]
            let started = try await setup.start(cases.count)
            let answers = try await setup.answers(zip(cases, started).map { testCase, flow in
                var overrides = testCase.1.objectValue ?? [:]
                overrides["auth_uri"] = .string(flow.authURI)
                return .object(overrides)
            })
            #expect(answers.count == cases.count)
            for ((name, _), (answer, flow)) in zip(cases, zip(answers, started)) {
                let reply = try await setup.finish(answer, sessionID: flow.sessionID)
                #expect(reply.status == 400 && reply.errorCode == "INVALID_IDP_RESPONSE", "\(name): \(reply.body)")
            }
            // Garbage and an XML entity attack are refused before anything is read.
            let (authURI, sessionID) = try await setup.start()[0]
            let relayState = try #require(URLComponents(string: authURI)?.queryItems?.first { $0.name == "RelayState" }?.value)
            let xxe = #"<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]><samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol">&x;</samlp:Response>"#
            for body in ["not base64 at all!", Data("<not xml".utf8).base64EncodedString(), Data(xxe.utf8).base64EncodedString()] {
                let reply = try await setup.finish(["saml_response": .string(body), "relay_state": .string(relayState)], sessionID: sessionID)
                #expect(reply.status == 400 && reply.errorCode == "INVALID_IDP_RESPONSE", "\(reply.body)")
            }
            let users = try await setup.client.send("GET", "/v1/projects/\(setup.server.projectID)/accounts:batchGet?maxResults=10",
                                                    headers: ["Authorization": try await Self.adminAuthorization(setup.server)],
                                                    includeKey: false)
            #expect(users["users"]?.arrayValue?.isEmpty ?? true, "\(users.body)")
        }
    }

    /// A NameID with a comment inside is read whole: `a@victim.test<!---->.evil.test` is `a@victim.test.evil.test`.
    @Test func aCommentInTheNameIDDoesNotTruncateIt() async throws {
        try await Self.withSAML { setup in
            let (authURI, sessionID) = try await setup.start()[0]
            let answer = try #require(try await setup.answers([[
                "auth_uri": .string(authURI), "name_id": "a@victim.test.evil.test", "mutate": "comment_in_name_id",
            ]]).first)
            let reply = try await setup.finish(answer, sessionID: sessionID)
            #expect(reply["federatedId"] == "a@victim.test.evil.test", "\(reply.body)")
        }
    }

    /// Unsolicited responses are refused until the provider allows IdP-initiated sign-in; then each assertion signs in
    /// once (the replay cache), through the app's own callback, as FirebaseAuth's `signInWithSamlIdp` sends it.
    @Test(arguments: TestDatabase.allCases)
    func idpInitiatedSignInNeedsTheProvidersConsentAndIsTakenOnce(database: TestDatabase) async throws {
        try await Self.withSAML(database: database, extra: ["emailVerifiedByIdp": true]) { setup in
            let responses = try await setup.unsolicited([["name_id": "lin@acme.test"], ["name_id": "lin@acme.test", "in_response_to": "_x"]])
            #expect(try await setup.sendUnsolicited(responses[0]).errorCode == "INVALID_IDP_RESPONSE")

            let allowed = try await setup.admin("PATCH", "/\(Self.provider)?updateMask=idpInitiatedSignIn", ["idpInitiatedSignIn": true])
            #expect(allowed.status == 200 && allowed["idpInitiatedSignIn"] == true, "\(allowed.body)")
            let reply = try await setup.sendUnsolicited(responses[0])
            #expect(reply.status == 200 && reply["email"] == "lin@acme.test" && reply["emailVerified"] == true, "\(reply.body)")
            #expect(try await setup.sendUnsolicited(responses[0]).errorCode == "INVALID_IDP_RESPONSE")
            // A response to some request is not unsolicited.
            #expect(try await setup.sendUnsolicited(responses[1]).errorCode == "INVALID_IDP_RESPONSE")
        }
    }

    /// An assertion ID signs in once per issuer, whatever times the response around it names: re-signed by the IdP
    /// with later times or with the same ones, unsolicited or answering a new sign-in, or sent twice at once.
    @Test(arguments: TestDatabase.allCases)
    func anAssertionIDSignsInOnceWhateverItsTimes(database: TestDatabase) async throws {
        try await Self.withSAML(database: database, extra: ["idpInitiatedSignIn": true]) { setup in
            let responses = try await setup.unsolicited([
                ["name_id": "lin@acme.test", "assertion_id": "_once-1"],
                ["name_id": "lin@acme.test", "assertion_id": "_once-1", "not_on_or_after": 301],
                ["name_id": "lin@acme.test", "assertion_id": "_once-1", "not_on_or_after": 3000, "not_before": -30],
                ["name_id": "lin@acme.test", "assertion_id": "_once-1"],
            ])
            #expect(Set(responses).count == 4, "four different responses")
            let first = try await setup.sendUnsolicited(responses[0])
            #expect(first.status == 200, "\(first.body)")
            for again in responses.dropFirst() {
                #expect(try await setup.sendUnsolicited(again).errorCode == "INVALID_IDP_RESPONSE")
            }
            // A new sign-in started by the app, answered with the spent ID: refused too.
            let (authURI, sessionID) = try await setup.start()[0]
            let answer = try #require(try await setup.answers([
                ["auth_uri": .string(authURI), "assertion_id": "_once-1", "not_on_or_after": 299],
            ]).first)
            #expect(try await setup.finish(answer, sessionID: sessionID).errorCode == "INVALID_IDP_RESPONSE")

            // Two responses carrying one new ID, with other times, at the same instant: one signs in.
            let racing = try await setup.unsolicited([
                ["name_id": "lin@acme.test", "assertion_id": "_once-2"],
                ["name_id": "lin@acme.test", "assertion_id": "_once-2", "not_on_or_after": 302],
            ])
            async let one = setup.sendUnsolicited(racing[0])
            async let other = setup.sendUnsolicited(racing[1])
            let statuses = try await [one.status, other.status]
            #expect(statuses.sorted() == [200, 400], "\(statuses)")
        }
    }

    /// An assertion encrypted to Flint's SP certificate is decrypted with its key.
    @Test func anEncryptedAssertionIsDecryptedWithTheSPKey() async throws {
        try await Self.withSAML { setup in
            let (authURI, sessionID) = try await setup.start()[0]
            let spCertificate = try #require(setup.config["spConfig"]?["spCertificates"]?.arrayValue?.first?["x509Certificate"]?.stringValue)
            let answer = try #require(try await setup.answers([[
                "auth_uri": .string(authURI), "name_id": "secret@acme.test", "encrypt_to_cert": .string(spCertificate),
            ]]).first)
            let reply = try await setup.finish(answer, sessionID: sessionID)
            #expect(reply.status == 200 && reply["federatedId"] == "secret@acme.test", "\(reply.body)")
        }
    }

    /// A disabled provider signs no one in, and its flow does not start.
    @Test func aDisabledProviderIsRefused() async throws {
        try await Self.withSAML { setup in
            let (authURI, sessionID) = try await setup.start()[0]
            let answer = try #require(try await setup.answers([["auth_uri": .string(authURI)]]).first)
            #expect(try await setup.admin("PATCH", "/\(Self.provider)?updateMask=enabled", ["enabled": false]).status == 200)
            #expect(try await setup.finish(answer, sessionID: sessionID).errorCode == "OPERATION_NOT_ALLOWED")
            let start = try await setup.client.post("/v1/accounts:createAuthUri", [
                "providerId": .string(Self.provider), "continueUri": .string(Self.appPage),
            ])
            #expect(start.errorCode == "OPERATION_NOT_ALLOWED")
        }
    }
}
