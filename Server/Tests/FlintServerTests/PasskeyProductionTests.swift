import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
import Testing

/// Production mode's WebAuthn relying party over HTTP, with FlintTestSupport's software authenticator: what a browser
/// or an iOS app sends is taken, and every hostile variant is refused with a 4xx, storing nothing.
/// (The verifier's own cases, made by python-fido2, are `WebAuthnVerifierTests`; a real browser is `PasskeyBrowserTests`.)
@Suite struct PasskeyProductionTests {
    static let relyingParty = "example.com"

    /// A production server whose project's relying party is `example.com`, and a fresh sign-in to an account there.
    private static func withRelyingParty(
        database: TestDatabase = .sqlite,
        _ body: (TestServer, TestClient, _ idToken: String, _ localID: String) async throws -> Void
    ) async throws {
        try await withServer(emulator: false, database: database) { server, client in
            _ = try await server.server.configurePasskeys(
                server.projectID, PasskeyConfig(rpId: relyingParty, expectedOrigins: ["https://app.example.com"]))
            let signedUp = try await client.signUp(email: "owner@example.com", password: "password123")
            try await body(server, client, try #require(signedUp.string("idToken")), try #require(signedUp.string("localId")))
        }
    }

    static func enroll(_ client: TestClient, _ idToken: String, _ authenticator: SoftwareAuthenticator,
                               tampering: SoftwareAuthenticator.Tampering = .init(),
                               format: SoftwareAuthenticator.ResponseFormat = .webAuthnJSON,
                               edit: (inout [String: JSONValue]) -> Void = { _ in }) async throws -> TestClient.Reply {
        let start = try await client.post("/v2/accounts/passkeyEnrollment:start", ["idToken": .string(idToken)])
        #expect(start.status == 200, "\(start.body)")
        let registration = try authenticator.register(creationOptions: start["credentialCreationOptions"], tampering: tampering)
        var response = registration.json(format).objectValue ?? [:]
        edit(&response)
        return try await client.post("/v2/accounts/passkeyEnrollment:finalize", [
            "idToken": .string(idToken), "name": "Laptop", "authenticatorRegistrationResponse": .object(response),
        ])
    }

    static func startSignIn(_ client: TestClient, tenantID: String? = nil) async throws -> JSONValue? {
        let start = try await client.post("/v2/accounts/passkeySignIn:start", tenantID.map { ["tenantId": .string($0)] } ?? [:])
        #expect(start.status == 200, "\(start.body)")
        return start["credentialRequestOptions"]
    }

    static func finishSignIn(_ client: TestClient, _ assertion: SoftwareAuthenticator.Assertion,
                                     format: SoftwareAuthenticator.ResponseFormat = .webAuthnJSON, tenantID: String? = nil,
                                     edit: (inout [String: JSONValue]) -> Void = { _ in }) async throws -> TestClient.Reply {
        var response = assertion.json(format).objectValue ?? [:]
        edit(&response)
        var body: [String: JSONValue] = ["authenticatorAuthenticationResponse": .object(response)]
        if let tenantID { body["tenantId"] = .string(tenantID) }
        return try await client.post("/v2/accounts/passkeySignIn:finalize", body)
    }

    static func signIn(_ client: TestClient, _ authenticator: SoftwareAuthenticator,
                               tampering: SoftwareAuthenticator.Tampering = .init(),
                               format: SoftwareAuthenticator.ResponseFormat = .webAuthnJSON) async throws -> TestClient.Reply {
        try await finishSignIn(
            client, try authenticator.authenticate(requestOptions: try await startSignIn(client), tampering: tampering), format: format)
    }

    private static func expectRefused(_ reply: TestClient.Reply, _ code: String = "INVALID_AUTHENTICATOR_RESPONSE",
                                      sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(reply.status == 400 && reply.errorCode == code, "\(reply.status) \(reply.body)", sourceLocation: sourceLocation)
    }

    @Test(arguments: TestDatabase.allCases)
    func enrolsAndSignsInAsBrowsersAndAppsSendIt(database: TestDatabase) async throws {
        try await Self.withRelyingParty(database: database) { _, client, idToken, localID in
            let browser = SoftwareAuthenticator(origin: "https://app.example.com", attestation: .packedSelf)
            let enrolled = try await Self.enroll(client, idToken, browser)
            #expect(enrolled.status == 200 && enrolled.string("localId") == localID, "\(enrolled.body)")
            // An iOS app (origin https://example.com, the RP ID: allowed since the options name it... via its config here)
            // sends standard base64.
            let options = try await client.post("/v2/accounts/passkeyEnrollment:start", ["idToken": .string(idToken)])
            #expect(options["credentialCreationOptions"]?["excludeCredentials"]?.arrayValue?.count == 1)
            #expect(options["credentialCreationOptions"]?["authenticatorSelection"]?["userVerification"]?.stringValue == "required")

            for format in [SoftwareAuthenticator.ResponseFormat.webAuthnJSON, .firebaseIOS, .webAuthnJSON] {
                let signedIn = try await Self.signIn(client, browser, format: format)
                #expect(signedIn.status == 200 && signedIn.string("localId") == localID, "\(signedIn.body)")
                #expect(claims(of: signedIn.string("idToken"))["firebase"]?["sign_in_provider"]?.stringValue == "passkey")
            }
            let info = try await client.lookup(idToken: idToken).firstUser?["passkeyInfo"]?.arrayValue
            #expect(info?.count == 1 && info?.first?["name"]?.stringValue == "Laptop")
            #expect(info?.first?["credentialId"]?.stringValue == browser.credentials.first.map { Base64URL.encode($0.id) })
        }
    }

    @Test(arguments: TestDatabase.allCases)
    func hostileEnrollmentsAreRefused(database: TestDatabase) async throws {
        try await Self.withRelyingParty(database: database) { _, client, idToken, _ in
            let authenticator = SoftwareAuthenticator(origin: "https://app.example.com")
            Self.expectRefused(try await Self.enroll(client, idToken, authenticator, tampering: .init(origin: "https://evil.example")))
            Self.expectRefused(try await Self.enroll(client, idToken, authenticator, tampering: .init(origin: "http://app.example.com")))
            Self.expectRefused(try await Self.enroll(
                client, idToken, authenticator, tampering: .init(relyingPartyIDHash: Data(repeating: 7, count: 32))))
            Self.expectRefused(try await Self.enroll(client, idToken, authenticator, tampering: .init(userVerified: false)))
            Self.expectRefused(try await Self.enroll(client, idToken, authenticator, tampering: .init(clientDataType: "webauthn.get")))
            // Malformed CBOR and JSON: refused, never a 5xx.
            Self.expectRefused(try await Self.enroll(client, idToken, authenticator) { response in
                response["response"]?.set("attestationObject", .string(Base64URL.encode(Data([0xBF, 0x63, 0x66, 0x6D]))))
            })
            Self.expectRefused(try await Self.enroll(client, idToken, authenticator) { response in
                response["response"]?.set("clientDataJSON", .string(Base64URL.encode(Data("{\"type\":".utf8))))
            })
            Self.expectRefused(try await Self.enroll(client, idToken, authenticator) { response in
                response["response"]?.set("attestationObject", "not base64!")
            })
            // The response's id must be the credential the authenticator attested.
            Self.expectRefused(try await Self.enroll(client, idToken, authenticator) { response in
                response["id"] = .string(Base64URL.encode(Data(repeating: 1, count: 16)))
            })
            #expect(try await client.lookup(idToken: idToken).firstUser?["passkeyInfo"] == nil)
        }
    }

    @Test(arguments: TestDatabase.allCases)
    func hostileSignInsAreRefused(database: TestDatabase) async throws {
        try await Self.withRelyingParty(database: database) { server, client, idToken, _ in
            let authenticator = SoftwareAuthenticator(origin: "https://app.example.com")
            #expect(try await Self.enroll(client, idToken, authenticator).status == 200)
            #expect(try await Self.signIn(client, authenticator).status == 200)

            Self.expectRefused(try await Self.signIn(client, authenticator, tampering: .init(origin: "https://example.org")))
            Self.expectRefused(try await Self.signIn(
                client, authenticator, tampering: .init(relyingPartyIDHash: Data(repeating: 0, count: 32))))
            Self.expectRefused(try await Self.signIn(client, authenticator, tampering: .init(userVerified: false)))
            Self.expectRefused(try await Self.signIn(client, authenticator, tampering: .init(clientDataType: "webauthn.create")))
            // A counter that does not move on (a cloned key) is refused, and logged.
            Self.expectRefused(try await Self.signIn(client, authenticator, tampering: .init(signCount: 1)))
            #expect(server.log.all.contains { $0.level == .warning && $0.message.contains("signature counter went back") })
            // A replayed assertion: its challenge is spent.
            #expect(try await Self.signIn(client, authenticator).status == 200)
            Self.expectRefused(try await Self.finishSignIn(client, try authenticator.replayLastAssertion()))
            // An expired challenge.
            let options = try await Self.startSignIn(client)
            server.clock.advance(seconds: 301)
            Self.expectRefused(try await Self.finishSignIn(client, try authenticator.authenticate(requestOptions: options)))
            // A signature that does not verify, and malformed parts.
            Self.expectRefused(try await Self.finishSignIn(
                client, try authenticator.authenticate(requestOptions: try await Self.startSignIn(client))) { response in
                    response["response"]?.set("signature", .string(Base64URL.encode(Data([0x30, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x01]))))
                })
            Self.expectRefused(try await Self.finishSignIn(
                client, try authenticator.authenticate(requestOptions: try await Self.startSignIn(client))) { response in
                    response["response"]?.set("authenticatorData", .string(Base64URL.encode(Data([1, 2, 3]))))
                })
            // Discoverable sign-in: the user handle must be there (WebAuthn §7.2 step 6), not absent, empty or another's.
            for handle: JSONValue? in [nil, "", .string(Base64URL.encode(Data("someone-else".utf8)))] {
                Self.expectRefused(try await Self.finishSignIn(
                    client, try authenticator.authenticate(requestOptions: try await Self.startSignIn(client))) { response in
                        response["response"]?.set("userHandle", handle)
                    })
            }
            // An enrolment challenge does not finish a sign-in.
            let enrollment = try await client.post("/v2/accounts/passkeyEnrollment:start", ["idToken": .string(idToken)])
            Self.expectRefused(try await Self.finishSignIn(client, try authenticator.authenticate(requestOptions: [
                "rpId": .string(Self.relyingParty),
                "challenge": enrollment["credentialCreationOptions"]?["challenge"] ?? .null,
            ])))
            // Still usable after all that.
            #expect(try await Self.signIn(client, authenticator).status == 200)
        }
    }

    @Test func credentialsStayWithTheirAccountAndRealm() async throws {
        try await Self.withRelyingParty { server, client, idToken, _ in
            let authenticator = SoftwareAuthenticator(origin: "https://app.example.com")
            #expect(try await Self.enroll(client, idToken, authenticator).status == 200)

            // Another account cannot take the same credential, nor finish an enrolment challenge issued to the first.
            let other = try #require(try await client.signUp(email: "other@example.com", password: "password123").string("idToken"))
            let start = try await client.post("/v2/accounts/passkeyEnrollment:start", ["idToken": .string(idToken)])
            let registration = try SoftwareAuthenticator(origin: "https://app.example.com")
                .register(creationOptions: start["credentialCreationOptions"])
            Self.expectRefused(try await client.post("/v2/accounts/passkeyEnrollment:finalize", [
                "idToken": .string(other), "authenticatorRegistrationResponse": registration.json(),
            ]))
            let bytes = try #require(authenticator.credentials.first?.id)
            let duplicate = try await Self.enroll(client, other, SoftwareAuthenticator(origin: "https://app.example.com")) { response in
                response["id"] = .string(Base64URL.encode(bytes))
            }
            Self.expectRefused(duplicate)

            // A tenant has its own passkeys: the project's credential is unknown there.
            let tenant = try #require(try await server.server.createTenant(TenantConfig(displayName: "Acme"), projectID: server.projectID).tenantId)
            let options = try await Self.startSignIn(client, tenantID: tenant)
            let answer = try await Self.finishSignIn(client, try authenticator.authenticate(requestOptions: options), tenantID: tenant)
            Self.expectRefused(answer, "PASSKEY_CREDENTIAL_NOT_FOUND")
            // Nor does a project challenge finish a tenant sign-in.
            let projectOptions = try await Self.startSignIn(client)
            Self.expectRefused(try await Self.finishSignIn(
                client, try authenticator.authenticate(requestOptions: projectOptions), tenantID: tenant))
        }
    }

    @Test func passkeyConfigIsValidatedAndReadBack() async throws {
        try await withServer { _, client in
            let admin = ["Authorization": "Bearer owner"]
            let path = "/v2/projects/demo-flint/passkeyConfig"
            let empty = try await client.send("GET", path, headers: admin)
            #expect(empty.status == 200 && empty.string("rpId") == nil, "\(empty.body)")
            func patch(_ body: JSONValue) async throws -> TestClient.Reply {
                try await client.send("PATCH", path, body: try JSONEncoder().encode(body), headers: admin)
            }
            Self.expectRefused(try await patch(["expectedOrigins": ["https://example.com"]]), "INVALID_ARGUMENT")
            Self.expectRefused(try await patch(["rpId": "https://example.com"]), "INVALID_ARGUMENT")
            Self.expectRefused(try await patch(["rpId": "example.com", "expectedOrigins": ["https://evil.com"]]), "INVALID_ARGUMENT")
            Self.expectRefused(try await patch(["rpId": "example.com", "expectedOrigins": ["http://example.com"]]), "INVALID_ARGUMENT")
            let saved = try await patch([
                "rpId": "example.com", "expectedOrigins": ["https://app.example.com", "android:apk-key-hash:abc"],
            ])
            #expect(saved.status == 200, "\(saved.body)")
            let read = try await client.send("GET", path, headers: admin)
            #expect(read.string("name") == "projects/demo-flint/passkeyConfig" && read.string("rpId") == "example.com")
            #expect(read["expectedOrigins"]?.arrayValue?.count == 2)
            // Without admin credentials: refused.
            #expect(try await client.send("GET", path).status >= 400)
        }
    }
}

private extension JSONValue {
    /// Sets a member of an object, or removes it when `value` is nil (other values are left alone).
    mutating func set(_ key: String, _ value: JSONValue?) {
        guard case .object(var members) = self else { return }
        members[key] = value
        self = .object(members)
    }
}
