import Crypto
import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
import Testing

/// Phone sign-in in production mode with the real outside-service clients, each against a local fake
/// that checks what the real service checks: Twilio, the signed webhook, APNs and a siteverify captcha.
@Suite struct PhoneDeliveryFlowTests {
    static let number = "+15551234567"

    /// A production server whose delivery is configured by `configure`; app verification stays required
    /// unless `requireAppCredential` is false.
    private func withServer(requireAppCredential: Bool = true, clock: TestClock = TestClock(),
                            configure: (inout ServerConfiguration) -> Void,
                            _ body: (TestServer, TestClient) async throws -> Void) async throws {
        try await FlintTestSupport.withServer(emulator: false, clock: clock, configure: configure) { server, client in
            if !requireAppCredential {
                try await server.server.projects.updateSettings(server.projectID) { $0.phone.appVerificationRequired = false }
            }
            try await body(server, client)
        }
    }

    /// The 6-digit code in a message text.
    private static func code(in text: String) -> String? {
        text.split(whereSeparator: { !$0.isNumber }).first { $0.count == 6 }.map(String.init)
    }

    @Test func codeDeliveredThroughTwilioSignsIn() async throws {
        let twilio = try await FakeTwilio.start()
        defer { Task { await twilio.stop() } }
        try await withServer(requireAppCredential: false, configure: { $0.delivery.sms = twilio.provider() }) { _, client in
            let sessionInfo = try await client.sendCode(Self.number)
            let message = try #require(twilio.messages.all.last)
            #expect(message.to == Self.number)
            #expect(message.from == twilio.from)
            let code = try #require(Self.code(in: message.body))
            let signedIn = try await client.verify(sessionInfo, code)
            #expect(signedIn.status == 200)
            #expect(signedIn["isNewUser"] == .bool(true))
        }
        // Twilio refusing the credentials: nothing is sent and the caller hears so.
        try await withServer(requireAppCredential: false, configure: { $0.delivery.sms = twilio.provider(authToken: "wrong") }) {
            _, client in
            let reply = try await client.post("/v1/accounts:sendVerificationCode", ["phoneNumber": .string(Self.number)])
            #expect(reply.status == 503)
            // The gateway's answer goes to the log, not to the client.
            #expect(reply.errorMessage == "Sending the verification code is unavailable; please try again later.")
            #expect(twilio.messages.all.count == 1)
        }
    }

    @Test func codeDeliveredThroughTheSignedWebhookSignsIn() async throws {
        let webhook = try await FakeWebhookReceiver.start()
        defer { Task { await webhook.stop() } }
        try await withServer(requireAppCredential: false, configure: { $0.delivery.sms = webhook.provider() }) { _, client in
            let sessionInfo = try await client.post(
                "/v1/accounts:sendVerificationCode", ["phoneNumber": .string(Self.number)], headers: ["X-Firebase-Locale": "de"]
            ).string("sessionInfo")
            let message = try #require(webhook.messages.all.last)
            #expect(message.phoneNumber == Self.number)
            #expect(message.locale == "de")
            #expect(message.text.contains(message.code))
            #expect(try await client.verify(sessionInfo, message.code).status == 200)
        }
        try await withServer(requireAppCredential: false, configure: { $0.delivery.sms = webhook.provider(secret: "forged") }) {
            _, client in
            let reply = try await client.post("/v1/accounts:sendVerificationCode", ["phoneNumber": .string(Self.number)])
            #expect(reply.status == 503)
            #expect(webhook.messages.all.count == 1)
        }
    }

    @Test func apnsSilentPushProvesTheApp() async throws {
        let teamKey = P256.Signing.PrivateKey()
        let clock = TestClock()
        let apns = try await FakeAPNs.start(publicKey: teamKey.publicKey, clock: clock)
        defer { Task { await apns.stop() } }
        try await withServer(clock: clock, configure: {
            $0.delivery.apns = apns.configuration(privateKeyPEM: teamKey.pemRepresentation)
            $0.delivery.extraTrustRootsPEM = [apns.caCertificatePEM]
        }) { server, client in
            let device = apns.registerDevice(sandbox: true)
            let started = try await client.post("/v1/accounts:verifyClient", ["appToken": .string(device), "isSandbox": true])
            #expect(started.status == 200, "\(started.body)")
            #expect(started.string("suggestedTimeout").flatMap(Int.init) != nil)
            let receipt = try #require(started.string("receipt"))
            let push = try #require(apns.pushes.all.last)
            #expect(push.deviceToken == device && push.sandbox && push.topic == apns.topic)
            #expect(push.credential.receipt == receipt)

            // The receipt with a wrong secret is refused; with the pushed one a code goes out.
            let forged = try await client.post("/v1/accounts:sendVerificationCode", [
                "phoneNumber": .string(Self.number), "iosReceipt": .string(receipt), "iosSecret": "guess",
            ])
            #expect(forged.errorCode == "INVALID_APP_CREDENTIAL")
            let sent = try await client.post("/v1/accounts:sendVerificationCode", [
                "phoneNumber": .string(Self.number), "iosReceipt": .string(receipt),
                "iosSecret": .string(push.credential.secret),
            ])
            #expect(sent.status == 200, "\(sent.body)")
            let code = server.log.smsCodes(to: Self.number).last
            #expect(try await client.verify(sent.string("sessionInfo"), code).status == 200)

            // The credential expires.
            clock.advance(seconds: 3601)
            let late = try await client.post("/v1/accounts:sendVerificationCode", [
                "phoneNumber": .string(Self.number), "iosReceipt": .string(receipt),
                "iosSecret": .string(push.credential.secret),
            ])
            #expect(late.errorCode == "INVALID_APP_CREDENTIAL")

            // A device APNs does not know: the push fails and verifyClient says so.
            let unknown = try await client.post("/v1/accounts:verifyClient", [
                "appToken": .string(String(repeating: "ab", count: 32)), "isSandbox": false,
            ])
            #expect(unknown.errorCode == "INVALID_APP_CREDENTIAL")
            #expect(apns.refusals.all.last?.reason == "BadDeviceToken")
        }
    }

    @Test func siteVerifyCaptchaTokensWorkOnce() async throws {
        let siteVerify = try await FakeSiteVerify.start()
        defer { Task { await siteVerify.stop() } }
        try await withServer(configure: { $0.delivery.siteVerify = siteVerify.configuration() }) { server, client in
            try await server.server.projects.updateSettings(server.projectID) { $0.phone.captcha = .siteVerify }
            let token = siteVerify.issueToken()
            let sent = try await client.post(
                "/v1/accounts:sendVerificationCode", ["phoneNumber": .string(Self.number), "recaptchaToken": .string(token)])
            #expect(sent.status == 200, "\(sent.body)")
            #expect(siteVerify.verifications.all.last?.remoteIP == "127.0.0.1")
            server.clock.advance(seconds: 60)
            let replay = try await client.post(
                "/v1/accounts:sendVerificationCode", ["phoneNumber": .string(Self.number), "recaptchaToken": .string(token)])
            #expect(replay.errorCode == "INVALID_APP_CREDENTIAL")
            // A proof-of-work token means nothing to a project that uses siteverify.
            let other = try await client.post(
                "/v1/accounts:sendVerificationCode", ["phoneNumber": .string(Self.number), "recaptchaToken": "flint-pow.x"])
            #expect(other.errorCode == "INVALID_APP_CREDENTIAL")
        }
    }
}
