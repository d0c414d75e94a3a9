import Crypto
@testable import FlintServer
@testable import FlintTestSupport
import FlintWire
import Foundation
import Logging
import Testing

/// Outside services that answer badly (huge, endless or dripping bodies, silence, HTML, broken or
/// mis-shaped JSON, error pages, odd `Cache-Control`; for mail: garbage, huge or endless replies, silence)
/// never crash or hang the server: every call is bounded by short `OutsideCallLimits`, the client gets a
/// Firebase-style 4xx or 503 soon, the error shows nothing of the service's answer, and the server keeps
/// answering. One test at a time: each bounds how long a proper answer may take, and many at once (each
/// fake Apple and Facebook makes RSA keys) would starve the proper answers too.
@Suite(.serialized) struct MalformedProviderTests {
    /// Short limits, so the stalled cases end soon without the tests sleeping.
    static let limits: OutsideCallLimits = {
        var limits = OutsideCallLimits()
        limits.connectTimeout = .seconds(2)
        limits.requestTimeout = .seconds(2)
        limits.smtpReplyTimeout = .seconds(2)
        limits.smtpMessageTimeout = .seconds(4)
        return limits
    }()

    /// How long a refused call may take: the limits plus generous room for a loaded machine.
    static let answerBound: Duration = .seconds(30)

    static let phoneNumber = "+15551234567"

    /// An outside service Flint calls, and the client request that makes it call.
    enum Service: String, CaseIterable, CustomStringConvertible {
        case appleKeys, appleTokens, facebookGraph, facebookKeys, captcha, apns, twilio, smsWebhook

        var description: String { rawValue }

        /// How the client's error message may begin: the code Firebase gives for the request, or an outage sentence.
        var acceptedErrors: [String] {
            switch self {
            case .appleKeys, .facebookKeys: ["INVALID_IDP_RESPONSE"]
            case .appleTokens: ["INVALID_IDP_RESPONSE", "Apple is unavailable"]
            case .facebookGraph: ["INVALID_IDP_RESPONSE", "Facebook is unavailable"]
            case .captcha: ["CAPTCHA_CHECK_FAILED"]
            case .apns: ["INVALID_APP_CREDENTIAL"]
            case .twilio, .smsWebhook: ["Sending the verification code is unavailable"]
            }
        }

        /// Whether a 2xx status alone means success, whatever the body (the contract of the SMS webhook and APNs).
        var trustsStatusAlone: Bool { self == .smsWebhook || self == .apns }
    }

    // MARK: HTTP services

    @Test(arguments: Service.allCases, FakeMisbehaviour.brokenAnswers)
    func brokenAnswersAreRefusedInBoundedTime(service: Service, behaviour: FakeMisbehaviour) async throws {
        try await Self.withService(service) { server, client, call in
            let started = ContinuousClock.now
            let reply = try await call(behaviour)
            let elapsed = ContinuousClock.now - started
            #expect(elapsed < Self.answerBound, "\(service), \(behaviour): \(elapsed)")
            if service.trustsStatusAlone, [.html, .invalidJSON, .wrongShape].contains(behaviour) {
                #expect(reply.status == 200, "\(service), \(behaviour): \(reply.body) \(server.log.all.map(\.metadata))")
            } else {
                Self.expectCleanError(reply, accepted: service.acceptedErrors, "\(service), \(behaviour)")
            }
            #expect(try await client.send("GET", "/").status == 200, "the server stopped answering")
        }
    }

    /// A key document with an odd `Cache-Control` is still used (kept for the default time, or not at all),
    /// and the odd value crashes nothing.
    @Test(arguments: [Service.appleKeys, .facebookKeys],
          ["max-age=", "=", "max-age=-1", "max-age=99999999999999999999", "max-age=1e9, =, ,,", "no-store"])
    func oddCacheControlOfKeysIsSurvived(service: Service, cacheControl: String) async throws {
        try await Self.withService(service) { server, client, call in
            for _ in 0..<2 {
                let reply = try await call(.cacheControl(cacheControl))
                #expect(reply.status == 200, "\(service), \(cacheControl): \(reply.body)")
            }
        }
    }

    /// Runs `body` with a production server whose `service` is a fake, set up so that `call(behaviour)`
    /// makes the fake answer as `behaviour` says and sends the client request that calls it.
    static func withService(
        _ service: Service,
        _ body: (TestServer, TestClient, _ call: (FakeMisbehaviour) async throws -> TestClient.Reply) async throws -> Void
    ) async throws {
        let nonce = Hex.sha256(FederatedAPITests.rawNonce)
        /// A sign-in with `postBody` fields (and the raw nonce).
        func signIn(_ client: TestClient, _ fields: [(String, String)]) async throws -> TestClient.Reply {
            try await FederatedAPITests.signIn(
                client, postBody: FederatedAPITests.postBody(fields + [("nonce", FederatedAPITests.rawNonce)]))
        }
        func withProviders(_ call: @escaping (FederatedProviders, TestClient, FakeMisbehaviour) async throws -> TestClient.Reply)
            async throws {
            try await FederatedProviders.withServer(configure: { $0.delivery.limits = limits }) { server, providers in
                let client = TestClient(server)
                try await body(server, client) { try await call(providers, client, $0) }
            }
        }
        switch service {
        case .appleKeys:
            try await withProviders { providers, client, behaviour in
                providers.apple.misbehave(behaviour)
                return try await signIn(client, [("id_token", try FederatedAPITests.appleToken(providers)), ("providerId", "apple.com")])
            }
        case .appleTokens:
            try await withProviders { providers, client, behaviour in
                let user = try await signIn(client, [("id_token", try FederatedAPITests.appleToken(providers)), ("providerId", "apple.com")])
                let code = providers.apple.makeAuthorizationCode(for: "001234.apple.user", clientID: FederatedProviders.bundleID)
                providers.apple.misbehave(behaviour)
                return try await client.post("/v2/accounts:revokeToken", [
                    "providerId": "apple.com", "tokenType": "CODE", "token": .string(code),
                    "idToken": .string(try #require(user.string("idToken"), "\(user.body)")),
                ])
            }
        case .facebookGraph:
            try await withProviders { providers, client, behaviour in
                providers.facebook.misbehave(behaviour)
                let token = providers.facebook.makeUserAccessToken(userID: "30001")
                return try await signIn(client, [("access_token", token), ("providerId", "facebook.com")])
            }
        case .facebookKeys:
            try await withProviders { providers, client, behaviour in
                providers.facebook.misbehave(behaviour)
                let token = try providers.facebook.makeLimitedLoginToken(sub: "30002", nonce: nonce)
                return try await signIn(client, [("id_token", token), ("providerId", "facebook.com")])
            }
        case .captcha:
            let fake = try await FakeSiteVerify.start()
            try await withPhoneServer(stopping: fake.stop, configure: { $0.delivery.siteVerify = fake.configuration() }) {
                server, client in
                try await server.server.projects.updateSettings(server.projectID) { $0.phone.captcha = .siteVerify }
                try await body(server, client) { behaviour in
                    fake.misbehave(behaviour)
                    return try await client.post("/v1/accounts:sendVerificationCode", [
                        "phoneNumber": .string(phoneNumber), "recaptchaToken": .string(fake.issueToken()),
                    ])
                }
            }
        case .apns:
            let teamKey = P256.Signing.PrivateKey()
            let fake = try await FakeAPNs.start(publicKey: teamKey.publicKey)
            try await withPhoneServer(stopping: fake.stop, configure: {
                $0.delivery.apns = fake.configuration(privateKeyPEM: teamKey.pemRepresentation)
                $0.delivery.extraTrustRootsPEM = [fake.caCertificatePEM]
            }) { server, client in
                try await body(server, client) { behaviour in
                    fake.misbehave(behaviour)
                    return try await client.post("/v1/accounts:verifyClient", [
                        "appToken": .string(fake.registerDevice(sandbox: true)), "isSandbox": true,
                    ])
                }
            }
        case .twilio, .smsWebhook:
            let twilio = service == .twilio ? try await FakeTwilio.start() : nil
            let webhook = service == .smsWebhook ? try await FakeWebhookReceiver.start() : nil
            let provider = try #require(twilio?.provider() ?? webhook?.provider())
            try await withPhoneServer(stopping: { await twilio?.stop(); await webhook?.stop() },
                                      configure: { $0.delivery.sms = provider }) { server, client in
                try await server.server.projects.updateSettings(server.projectID) { $0.phone.appVerificationRequired = false }
                try await body(server, client) { behaviour in
                    twilio?.misbehave(behaviour)
                    webhook?.misbehave(behaviour)
                    return try await client.post("/v1/accounts:sendVerificationCode", ["phoneNumber": .string(phoneNumber)])
                }
            }
        }
    }

    /// A production server with the short limits, changed by `configure`; `stopping` (the fake's stop) runs at the end.
    private static func withPhoneServer(stopping: () async -> Void, configure: (inout ServerConfiguration) -> Void,
                                        _ body: (TestServer, TestClient) async throws -> Void) async throws {
        do {
            try await withServer(emulator: false, configure: { configuration in
                configuration.delivery.limits = limits
                configure(&configuration)
            }, body)
        } catch {
            await stopping()
            throw error
        }
        await stopping()
    }

    /// A Firebase-style error (4xx or 503, never 500) whose message begins with one of `accepted`, and in
    /// whose body nothing of the outside service's answer or whereabouts appears.
    static func expectCleanError(_ reply: TestClient.Reply, accepted: [String], _ context: String,
                                 sourceLocation: SourceLocation = #_sourceLocation) {
        #expect((400..<500).contains(reply.status) || reply.status == 503, "\(context): \(reply.status) \(reply.body)",
                sourceLocation: sourceLocation)
        #expect(reply.body["error"]?["code"] == .number(Double(reply.status)), "\(context): \(reply.body)",
                sourceLocation: sourceLocation)
        let message = reply.errorMessage ?? ""
        #expect(accepted.contains { message.hasPrefix($0) }, "\(context): \(message)", sourceLocation: sourceLocation)
        let text = String(decoding: reply.data, as: UTF8.self)
        for secret in [FakeMisbehaviour.marker, "127.0.0.1", "localhost", "http", "<html", "SMTP"] {
            #expect(!text.contains(secret), "\(context): \(secret) in \(text)", sourceLocation: sourceLocation)
        }
    }

    // MARK: Mail relay

    /// The outbox's settings for these tests: two tries, a short pause, a short drain.
    static let outboxSettings: EmailOutbox.Settings = {
        var settings = EmailOutbox.Settings()
        settings.attempts = 2
        settings.firstRetryDelay = .milliseconds(10)
        settings.drainTimeout = .seconds(2)
        return settings
    }()

    /// A production server sending mail through `relay`, with the short limits and `outbox` settings.
    static func withMailServer(_ relay: FakeSMTPServer, database: TestDatabase = .sqlite,
                               outbox: EmailOutbox.Settings = outboxSettings,
                               _ body: (TestServer, TestClient) async throws -> Void) async throws {
        do {
            try await withServer(emulator: false, database: database, configure: {
                $0.delivery.email = .smtp(relay.configuration(from: "noreply@flint.test"))
                $0.delivery.limits = limits
                $0.delivery.emailOutbox = outbox
            }, body)
        } catch {
            await relay.stop()
            throw error
        }
        await relay.stop()
    }

    static func passwordReset(_ client: TestClient, _ email: String) async throws -> TestClient.Reply {
        try await client.post("/v1/accounts:sendOobCode", ["requestType": "PASSWORD_RESET", "email": .string(email)])
    }

    /// The answer does not wait for the relay; the delivery gives up in bounded time, is logged, and the
    /// server keeps answering. A temporary refusal is tried again, a permanent one is not.
    @Test(arguments: FakeSMTPServer.Misbehaviour.allCases)
    func brokenMailRelayIsSurvived(behaviour: FakeSMTPServer.Misbehaviour) async throws {
        let relay = try await FakeSMTPServer.start(behaviour)
        try await Self.withMailServer(relay) { server, client in
            _ = try await client.signUp(email: "ada@example.com", password: "secret123")
            let started = ContinuousClock.now
            let reply = try await Self.passwordReset(client, "ada@example.com")
            #expect(reply.status == 200, "\(behaviour): \(reply.body)")
            #expect(!String(decoding: reply.data, as: UTF8.self).contains(FakeMisbehaviour.marker))
            await server.waitForOutbox()
            #expect(ContinuousClock.now - started < Self.answerBound, "\(behaviour)")
            let failures = server.log.all.filter { $0.message.hasPrefix("Sending an email failed") }
            #expect(!failures.isEmpty, "\(behaviour): no failure logged")
            // Only a permanent refusal (5xx) is not tried again.
            #expect(relay.connectionCount == (behaviour == .refusesMail ? 1 : Self.outboxSettings.attempts),
                    "\(behaviour): \(failures.map(\.metadata))")
            #expect(try await client.send("GET", "/").status == 200, "the server stopped answering")
        }
    }

    /// A full outbox refuses at once with a 503 (it never blocks the request), and a server whose relay
    /// never answers still shuts down within the drain time, keeping the messages it acknowledged (sealed)
    /// for the next node, which sends them.
    @Test(arguments: TestDatabase.allCases)
    func fullOutboxRefusesAndShutdownDrainsInBoundedTime(database: TestDatabase) async throws {
        let relay = try await FakeSMTPServer.start(.silence)
        var settings = Self.outboxSettings
        settings.capacity = 1
        settings.concurrentSends = 1
        settings.attempts = 1
        settings.drainTimeout = .seconds(1)
        // The relay's silence outlasts the test: the message being sent is still waiting at shutdown.
        var limits = Self.limits
        limits.smtpReplyTimeout = .seconds(60)
        limits.smtpMessageTimeout = .seconds(60)
        let shared = try await ScratchDatabase.make(database)
        let server = try await TestServer.start(emulator: false, sharing: shared) {
            $0.delivery.email = .smtp(relay.configuration(from: "noreply@flint.test"))
            $0.delivery.limits = limits
            $0.delivery.emailOutbox = settings
        }
        do {
            let client = TestClient(server)
            _ = try await client.signUp(email: "ada@example.com", password: "secret123")
            var replies: [TestClient.Reply] = []
            // One is being sent, one waits: the third at the latest finds the outbox full.
            for _ in 0..<3 where replies.last?.status != 503 {
                replies.append(try await Self.passwordReset(client, "ada@example.com"))
            }
            let refused = try #require(replies.last)
            Self.expectCleanError(refused, accepted: ["Sending the email is unavailable"], "full outbox")
            #expect(refused.status == 503)
            let acknowledged = replies.count - 1
            let stopping = ContinuousClock.now
            try await server.stop()
            #expect(ContinuousClock.now - stopping < Self.answerBound)

            // Kept sealed: the links (and their codes) are not in the store in clear.
            let store = try await Store.open(databaseURL: shared.databaseURL, dataDirectory: shared.dataDirectory, logger: Logger(label: "test"))
            let kept = try await store.database.query("SELECT sealed FROM pending_emails", []).compactMap { $0.string("sealed") }
            try await store.close()
            #expect(kept.count == acknowledged && !kept.contains { $0.contains("oobCode") || $0.contains("ada@example.com") })
            // The next node sends them (through the log sender here), and takes them out of the store.
            let next = try await TestServer.start(emulator: false, sharing: shared)
            await next.waitForOutbox()
            let sent = next.log.all.filter { $0.metadata["email"] == "ada@example.com" && $0.metadata["link"] != nil }
            #expect(sent.count == acknowledged, "\(next.log.all.map(\.message))")
            #expect(try await next.server.store.outbox.takePendingEmails().isEmpty)
            try await next.stop()
        } catch {
            try? await server.stop()
            await relay.stop()
            try? await shared.drop()
            throw error
        }
        await relay.stop()
        try await shared.drop()
    }
}
