import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
import Testing

/// Blocking functions: a local function server that verifies each event's JWT against Flint's JWKS refuses and
/// changes sign-ups and sign-ins; one that cannot be reached refuses them all (fail closed).
@Suite struct BlockingFunctionsTests {
    private func withFunction(database: TestDatabase = .sqlite, emulator: Bool = true, limits: OutsideCallLimits = .underLoad,
                              _ body: (TestServer, TestClient, FakeBlockingFunction) async throws -> Void) async throws {
        try await withServer(emulator: emulator, database: database, configure: { $0.delivery.limits = limits }) {
            server, client in
            let function = try await FakeBlockingFunction.start(
                jwksURL: server.baseURL.absoluteString + "/.well-known/jwks.json",
                issuer: server.server.tokens.issuer(projectID: server.projectID), clock: server.clock)
            do {
                try await setTriggers(client, server, ["beforeCreate": function.url("beforeCreate"),
                                                       "beforeSignIn": function.url("beforeSignIn")])
                try await body(server, client, function)
            } catch {
                Issue.record(error)
            }
            await function.stop()
        }
    }

    private func setTriggers(_ client: TestClient, _ server: TestServer, _ triggers: [String: String],
                             forwardIDToken: Bool = false) async throws {
        let reply = try await client.send(
            "PATCH", "/v2/projects/\(server.projectID)/config?updateMask=blockingFunctions",
            body: JSONEncoder().encode(JSONValue.object(["blockingFunctions": .object([
                "triggers": .object(triggers.mapValues { .object(["functionUri": .string($0)]) }),
                "forwardInboundCredentials": .object(["idToken": .bool(forwardIDToken)]),
            ])])),
            headers: ["Authorization": "Bearer owner"], includeKey: false)
        #expect(reply.status == 200, "\(reply.body)")
    }

    private func signUp(_ client: TestClient, _ email: String) async throws -> TestClient.Reply {
        try await client.post("/v1/accounts:signUp", ["email": .string(email), "password": "correct-horse", "returnSecureToken": true])
    }

    private func signIn(_ client: TestClient, _ email: String) async throws -> TestClient.Reply {
        try await client.post("/v1/accounts:signInWithPassword", [
            "email": .string(email), "password": "correct-horse", "returnSecureToken": true])
    }

    @Test(arguments: TestDatabase.allCases)
    func functionsSeeSignedEventsAndChangeTheSignIn(database: TestDatabase) async throws {
        try await withFunction(database: database) { server, client, function in
            function.answers.withLockedValue {
                $0["beforeCreate"] = .change(["updateMask": "displayName,customClaims", "displayName": "Named By Function",
                                              "customClaims": ["role": "member"]])
                $0["beforeSignIn"] = .change(["updateMask": "sessionClaims,emailVerified", "sessionClaims": ["tier": "gold"],
                                              "emailVerified": true])
            }
            let created = try await signUp(client, "ada@example.com")
            #expect(created.status == 200 && created["displayName"] == "Named By Function", "\(created.body)")
            // Both events, in order, about the new account, with the client's details; verified by the function.
            let events = function.events.all
            #expect(events.map { $0["event_type"]?.stringValue } == ["beforeCreate", "beforeSignIn"])
            #expect(events.first?["user_record"]?["email"] == "ada@example.com" && events.first?["sign_in_method"] == "password")
            #expect(events.first?["ip_address"] == "127.0.0.1" && events.first?["sub"] == created["localId"])
            // beforeCreate's changes are on the account, beforeSignIn's claims in the session's token.
            let tokenClaims = claims(of: created.string("idToken"))
            #expect(tokenClaims["name"] == "Named By Function" && tokenClaims["role"] == "member" && tokenClaims["tier"] == "gold")
            #expect(tokenClaims["email_verified"] == true)
            let stored = try #require(try await server.server.store.accounts.user(projectID: server.projectID, localID: created.string("localId") ?? ""))
            #expect(stored.displayName == "Named By Function" && stored.emailVerified)

            // A later sign-in asks beforeSignIn only, with the account as stored.
            function.answers.withLockedValue {
                $0["beforeSignIn"] = .change(["updateMask": "displayName,sessionClaims", "displayName": "Renamed At Sign-In",
                                              "sessionClaims": ["tier": "gold"]])
            }
            let again = try await signIn(client, "ada@example.com")
            #expect(again.status == 200 && function.events.all.count == 3, "\(again.body)")
            #expect(again["displayName"] == "Renamed At Sign-In")
            #expect(function.events.all.last?["user_record"]?["display_name"] == "Named By Function")
            #expect(claims(of: again.string("idToken"))["tier"] == "gold")
        }
    }

    @Test func functionsRefuseAndDisable() async throws {
        try await withFunction { server, client, function in
            function.answers.withLockedValue { $0["beforeCreate"] = .refuse(message: "Only example.org may sign up") }
            let refused = try await signUp(client, "intruder@example.com")
            #expect(refused.errorCode == "BLOCKING_FUNCTION_ERROR_RESPONSE" && refused.status == 400)
            #expect(refused.errorMessage?.contains("Only example.org may sign up") == true, "\(refused.body)")
            #expect(try await server.server.store.accounts.user(projectID: server.projectID, email: "intruder@example.com") == nil)

            // A sign-up beforeSignIn refuses leaves the account (as in Firebase), without a session.
            function.answers.withLockedValue { $0 = ["beforeSignIn": .refuse(message: "Sign-ins are paused")] }
            #expect(try await signUp(client, "grace@example.com").errorCode == "BLOCKING_FUNCTION_ERROR_RESPONSE")
            #expect(try await server.server.store.accounts.user(projectID: server.projectID, email: "grace@example.com") != nil)
            function.answers.withLockedValue { $0 = [:] }
            #expect(try await signIn(client, "grace@example.com").status == 200)
            // A function that disables the account: kept disabled, no tokens.
            function.answers.withLockedValue { $0["beforeSignIn"] = .change(["updateMask": "disabled", "disabled": true]) }
            #expect(try await signIn(client, "grace@example.com").errorCode == "USER_DISABLED")
            #expect(try await server.server.store.accounts.user(projectID: server.projectID, email: "grace@example.com")?.disabled == true)
        }
    }

    /// A function that cannot be reached, or answers what is not JSON, refuses the sign-in.
    @Test func failuresRefuseTheSignIn() async throws {
        // The HTTP client retries a refused connection until its connect bound: a short one keeps this test quick.
        var limits = OutsideCallLimits.underLoad
        limits.connectTimeout = .seconds(1)
        try await withFunction(limits: limits) { server, client, function in
            #expect(try await signUp(client, "lin@example.com").status == 200)
            try await setTriggers(client, server, ["beforeSignIn": "http://127.0.0.1:9/closed"])
            let unreachable = try await signIn(client, "lin@example.com")
            #expect(unreachable.errorCode == "BLOCKING_FUNCTION_ERROR_RESPONSE" && unreachable.status == 500, "\(unreachable.body)")
            try await setTriggers(client, server, [:])
            #expect(try await signIn(client, "lin@example.com").status == 200)
        }
    }

    /// A federated sign-in's event names its method and, when forwarded, the provider's ID token.
    @Test func federatedEventsCarryTheForwardedCredential() async throws {
        try await withFunction { server, client, function in
            try await setTriggers(client, server, ["beforeCreate": function.url("beforeCreate")], forwardIDToken: true)
            let claims = #"{"sub":"gh-9","email":"octo@example.com","email_verified":true}"#
            let reply = try await client.post("/v1/accounts:signInWithIdp", [
                "requestUri": "http://localhost", "returnSecureToken": true,
                "postBody": .string(FormURLEncoding.encode([("id_token", claims), ("providerId", "github.com")])),
            ])
            #expect(reply.status == 200, "\(reply.body)")
            let event = try #require(function.events.all.last)
            #expect(event["sign_in_method"] == "github.com" && event["oauth_id_token"] == .string(claims))
            #expect(event["user_record"]?["provider_data"]?.arrayValue?.first?["uid"] == "gh-9")
        }
    }

    /// `beforeSendEmail` and `beforeSendSms` are asked before a sign-in or reset mail and before a real SMS; a refusal
    /// sends nothing and leaves no code.
    @Test func sendTriggersSeeAndRefuseMailsAndTexts() async throws {
        try await withFunction { server, client, function in
            try await setTriggers(client, server, ["beforeSendEmail": function.url("beforeSendEmail"),
                                                   "beforeSendSms": function.url("beforeSendSms")])
            func mail(_ address: String) async throws -> TestClient.Reply {
                try await client.post("/v1/accounts:sendOobCode", [
                    "requestType": "EMAIL_SIGNIN", "email": .string(address), "continueUrl": "https://example.com/finish",
                    "canHandleCodeInApp": true,
                ])
            }
            func text(_ number: String) async throws -> TestClient.Reply {
                try await client.post("/v1/accounts:sendVerificationCode", ["phoneNumber": .string(number), "recaptchaToken": "ignored"])
            }
            func listed(_ kind: String) async throws -> Int {
                try await client.send("GET", "/emulator/v1/projects/\(server.projectID)/\(kind)")[kind]?.arrayValue?.count ?? 0
            }
            #expect(try await mail("ada@example.com").status == 200)
            let mailEvent = try #require(function.events.all.last)
            #expect(mailEvent["event_type"] == "beforeSendEmail" && mailEvent["email"] == "ada@example.com")
            #expect(mailEvent["email_type"] == "EMAIL_SIGN_IN" && mailEvent["user_record"] == nil)
            #expect(try await text("+15555550123").status == 200)
            let smsEvent = try #require(function.events.all.last)
            #expect(smsEvent["event_type"] == "beforeSendSms" && smsEvent["phone_number"] == "+15555550123")
            #expect(smsEvent["sms_type"] == "SIGN_IN_OR_SIGN_UP")

            function.answers.withLockedValue { $0 = ["beforeSendEmail": .refuse(message: "No mail today"),
                                                      "beforeSendSms": .refuse(message: "No texts today")] }
            let (oobCodes, codes) = (try await listed("oobCodes"), try await listed("verificationCodes"))
            let refusedMail = try await mail("bob@example.com")
            #expect(refusedMail.errorCode == "BLOCKING_FUNCTION_ERROR_RESPONSE" && refusedMail.errorMessage?.contains("No mail today") == true)
            #expect(try await text("+15555550124").errorCode == "BLOCKING_FUNCTION_ERROR_RESPONSE")
            #expect(try await listed("oobCodes") == oobCodes)
            #expect(try await listed("verificationCodes") == codes)
        }
    }

    /// A tenant's sign-ins go to the project's functions, their events naming the tenant.
    @Test func tenantEventsNameTheirTenant() async throws {
        try await withFunction { server, client, function in
            let reply = try await client.post("/v1/accounts:signUp", ["email": "t@example.com", "password": "secret-1",
                                                                       "tenantId": "tenant-one", "returnSecureToken": true])
            #expect(reply.status == 200, "\(reply.body)")
            let event = try #require(function.events.all.last)
            #expect(event["tenant_id"] == "tenant-one" && event["user_record"]?["tenant_id"] == "tenant-one")
            #expect(event["aud"] == .string(function.url("beforeSignIn")))
        }
    }
}
