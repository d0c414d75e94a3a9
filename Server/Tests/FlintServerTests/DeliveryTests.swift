import Crypto
@testable import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
import Logging
import Testing

/// Builds the delivery services for `configuration` (with the bounds of a loaded test machine: these fakes are local),
/// runs `body`, and always shuts them down.
private func withServices(_ configuration: DeliveryConfiguration, clock: any FlintClock = TestClock(),
                          logger: Logger = Logger(label: "delivery-test"),
                          _ body: (DeliveryServices) async throws -> Void) async throws {
    var configuration = configuration
    configuration.limits = .underLoad
    let services = try DeliveryServices.make(configuration, clock: clock, logger: logger)
    do {
        try await body(services)
    } catch {
        try? await services.shutdown()
        throw error
    }
    try await services.shutdown()
}

/// The status and detail `body` was rejected with, or nil if it did not throw `DeliveryError.rejected`.
private func rejection(_ body: () async throws -> Void) async -> (status: Int, detail: String)? {
    do {
        try await body()
        return nil
    } catch DeliveryError.rejected(let status, let detail) {
        return (status, detail)
    } catch {
        Issue.record("expected a rejection, got \(error)")
        return nil
    }
}

/// The fakes, stopped by `using`.
private protocol Stoppable: Sendable { func stop() async }
extension FakeAPNs: Stoppable {}
extension FakeTwilio: Stoppable {}
extension FakeWebhookReceiver: Stoppable {}
extension FakeSiteVerify: Stoppable {}

/// Runs `body` with a started fake and always stops it.
private func using<Fake: Stoppable>(_ fake: Fake, _ body: (Fake) async throws -> Void) async throws {
    do {
        try await body(fake)
    } catch {
        await fake.stop()
        throw error
    }
    await fake.stop()
}

private func message(to phoneNumber: String = "+15555550100", code: String = "123456", text: String? = nil,
                     locale: String = "en") -> SMSMessage {
    SMSMessage(projectID: "demo-flint", phoneNumber: phoneNumber, code: code,
               text: text ?? "\(code) is your verification code for Flint.", locale: locale)
}

@Suite struct DeliveryTests {
    // MARK: SMS

    @Test func logSenderWritesTheEmulatorsLineWithTheCodeInMetadata() async throws {
        let log = CapturedLog()
        try await withServices(DeliveryConfiguration(), logger: log.logger()) { services in
            #expect(services.push == nil && services.captcha == nil)
            try await services.sms.send(message(code: "654321"))
        }
        let entry = try #require(log.all.first)
        #expect(entry.level == .notice)
        #expect(entry.message == "To verify the phone number +15555550100, use the code 654321.")
        #expect(entry.metadata["projectID"] == "demo-flint")
        #expect(log.smsCodes(to: "+15555550100") == ["654321"])
    }

    @Test func webhookDeliversASignedPayload() async throws {
        let clock = TestClock()
        try await using(FakeWebhookReceiver.start(clock: clock)) { receiver in
            let sent = message(text: "123456 est votre code de vérification pour Flint.", locale: "fr")
            try await withServices(DeliveryConfiguration(sms: receiver.provider()), clock: clock) { services in
                try await services.sms.send(sent)
            }
            #expect(await receiver.messages.waitFor(count: 1) == [sent])
        }
    }

    @Test func webhookWithTheWrongSecretOrAStaleTimestampIsRejected() async throws {
        try await using(FakeWebhookReceiver.start(clock: TestClock())) { receiver in
            try await withServices(DeliveryConfiguration(sms: receiver.provider(secret: "not-the-secret"))) { services in
                #expect(await rejection { try await services.sms.send(message()) }?.status == 401)
            }
            let late = TestClock(Date().addingTimeInterval(-600))
            try await withServices(DeliveryConfiguration(sms: receiver.provider()), clock: late) { services in
                #expect(await rejection { try await services.sms.send(message()) }?.status == 401)
            }
            #expect(receiver.messages.all.isEmpty)
        }
    }

    @Test func webhookSignatureHelperAgreesWithTheFormatItDocuments() {
        let body = Data(#"{"code":"1"}"#.utf8)
        let header = WebhookSignature.header(body: body, secret: "s3cret", timestamp: 1_700_000_000)
        let expected = HMAC<SHA256>.authenticationCode(for: Data("1700000000.".utf8) + body,
                                                       using: SymmetricKey(data: Data("s3cret".utf8)))
        #expect(header == "t=1700000000,v1=" + expected.map { String(format: "%02x", $0) }.joined())
        #expect(WebhookSignature.isValid(header: header, body: body, secret: "s3cret", now: 1_700_000_100))
        #expect(!WebhookSignature.isValid(header: header, body: body, secret: "other", now: 1_700_000_100))
        #expect(!WebhookSignature.isValid(header: header, body: body, secret: "s3cret", now: 1_700_000_400))
        #expect(!WebhookSignature.isValid(header: header, body: Data("{}".utf8), secret: "s3cret", now: 1_700_000_000))
    }

    @Test func twilioSendsAFormEncodedMessage() async throws {
        try await using(FakeTwilio.start()) { twilio in
            // Characters that break naive form encoding: + & = % and non-ASCII.
            let text = "123456 is your verification code for Ça & Co = 100%+ 🚀."
            try await withServices(DeliveryConfiguration(sms: twilio.provider())) { services in
                try await services.sms.send(message(to: "+447700900123", text: text))
            }
            let sent = try #require(await twilio.messages.waitFor(count: 1).first)
            #expect(sent.to == "+447700900123" && sent.from == twilio.from && sent.body == text)
            #expect(sent.sid.hasPrefix("SM"))
        }
    }

    @Test func twilioRefusesAWrongTokenAndABadNumber() async throws {
        try await using(FakeTwilio.start()) { twilio in
            try await withServices(DeliveryConfiguration(sms: twilio.provider(authToken: "wrong"))) { services in
                let refused = await rejection { try await services.sms.send(message()) }
                #expect(refused?.status == 401 && refused?.detail == "Authenticate")
            }
            try await withServices(DeliveryConfiguration(sms: twilio.provider())) { services in
                let refused = await rejection { try await services.sms.send(message(to: "5555550100")) }
                #expect(refused?.status == 400 && refused?.detail.contains("Invalid 'To' Phone Number") == true)
            }
            #expect(twilio.messages.all.isEmpty)
        }
    }

    @Test func formEncodingEscapesEverythingButUnreservedCharacters() {
        #expect(FormURLEncoding.encode([("To", "+1 555"), ("Body", "a&b=c/é~._-")])
            == "To=%2B1%20555&Body=a%26b%3Dc%2F%C3%A9~._-")
    }

    @Test(arguments: [
        ("fr", "fr"), ("fr-FR", "fr"), ("pt_BR", "pt"), ("zh-CN", "zh-CN"), ("zh-Hans", "zh-CN"), ("ZH-cn", "zh-CN"),
        ("zh", "zh-CN"), ("zh-TW", "zh-TW"), ("zh-Hant-HK", "zh-TW"), ("AR", "ar"), ("hi-IN", "hi"), ("bn_BD", "bn"),
        ("es-419", "es"), ("de-AT", "de"), ("ja-JP", "ja"), ("nl-NL, de;q=0.8", "de"), ("xx-YY", "en"), ("", "en"),
    ])
    func smsTextResolvesTheLocaleAndFallsBackToEnglish(requested: String, expected: String) {
        let (text, locale) = SMSText.message(code: "482913", appName: "Flint Demo", locale: requested)
        #expect(locale == expected)
        #expect(text.contains("482913") && text.contains("Flint Demo"))
    }

    @Test func smsTextWithoutALocaleIsEnglishAndEveryLocaleHasItsOwnText() {
        #expect(SMSText.message(code: "1", appName: "A", locale: nil) == ("1 is your verification code for A.", "en"))
        let texts = SMSText.supportedLocales.map { SMSText.message(code: "1", appName: "A", locale: $0) }
        #expect(texts.map(\.locale) == SMSText.supportedLocales)
        #expect(Set(texts.map(\.text)).count == texts.count)
        for required in ["en", "fr", "es", "de", "pt", "hi", "bn", "zh-CN", "ar"] {
            #expect(SMSText.supportedLocales.contains(required))
        }
    }

    // MARK: APNs

    /// A team key, a fake APNs that knows its public half, and services pointed at it.
    private func withAPNs(clock: TestClock = TestClock(), fakeClock: TestClock? = nil,
                          _ body: (FakeAPNs, DeliveryServices, P256.Signing.PrivateKey) async throws -> Void) async throws {
        let key = P256.Signing.PrivateKey()
        try await using(FakeAPNs.start(publicKey: key.publicKey, clock: fakeClock ?? clock)) { fake in
            let configuration = DeliveryConfiguration(apns: fake.configuration(privateKeyPEM: key.pemRepresentation),
                                                      extraTrustRootsPEM: [fake.caCertificatePEM])
            try await withServices(configuration, clock: clock) { try await body(fake, $0, key) }
        }
    }

    @Test func apnsDeliversTheSilentPushToBothEnvironmentsOverHTTP2() async throws {
        try await withAPNs { fake, services, _ in
            let push = try #require(services.push)
            let sandboxDevice = fake.registerDevice(sandbox: true)
            let productionDevice = fake.registerDevice(sandbox: false)
            let credential = AppCredentialPush(receipt: "receipt-1", secret: "secret-1")
            var next = fake.pushes.stream().makeAsyncIterator()
            try await push.send(SilentPush(deviceToken: sandboxDevice.uppercased(), sandbox: true, credential: credential))
            let received = try #require(await next.next())
            #expect(received.deviceToken == sandboxDevice && received.sandbox && received.credential == credential)
            #expect(received.topic == fake.topic && received.expiration != nil)

            try await push.send(SilentPush(deviceToken: productionDevice, sandbox: false, credential: credential))
            #expect(await next.next()?.sandbox == false)
            // A sandbox token sent to production is refused, as Apple does.
            let refused = await rejection {
                try await push.send(SilentPush(deviceToken: sandboxDevice, sandbox: false, credential: credential))
            }
            #expect(refused?.status == 400 && refused?.detail == "BadDeviceToken")
        }
    }

    @Test func apnsWithTheWrongKeyIsRejectedWithInvalidProviderToken() async throws {
        let key = P256.Signing.PrivateKey()
        try await using(FakeAPNs.start(publicKey: key.publicKey)) { fake in
            let otherKey = P256.Signing.PrivateKey()
            let configuration = DeliveryConfiguration(apns: fake.configuration(privateKeyPEM: otherKey.pemRepresentation),
                                                      extraTrustRootsPEM: [fake.caCertificatePEM])
            try await withServices(configuration, clock: SystemClock()) { services in
                let device = fake.registerDevice(sandbox: true)
                let refused = await rejection {
                    try await services.push?.send(SilentPush(deviceToken: device, sandbox: true,
                                                             credential: .init(receipt: "r", secret: "s")))
                }
                #expect(refused?.status == 403 && refused?.detail == "InvalidProviderToken")
            }
            #expect(fake.pushes.all.isEmpty)
        }
    }

    @Test func apnsRefusesBadAndUnknownDeviceTokens() async throws {
        try await withAPNs { fake, services, _ in
            let push = try #require(services.push)
            let credential = AppCredentialPush(receipt: "r", secret: "s")
            // Not hex: refused before anything is sent.
            for token in ["not-hex", "abc", "", "../../3/device/00"] {
                let refused = await rejection { try await push.send(SilentPush(deviceToken: token, sandbox: true, credential: credential)) }
                #expect(refused?.status == 400 && refused?.detail == "BadDeviceToken")
            }
            #expect(fake.refusals.all.isEmpty)
            // Well-formed but unknown, then unregistered: Apple's answers.
            let unknown = String(repeating: "ab", count: 32)
            let refused = await rejection { try await push.send(SilentPush(deviceToken: unknown, sandbox: true, credential: credential)) }
            #expect(refused?.status == 400 && refused?.detail == "BadDeviceToken")
            let device = fake.registerDevice(sandbox: true)
            fake.unregister(deviceToken: device)
            let gone = await rejection { try await push.send(SilentPush(deviceToken: device, sandbox: true, credential: credential)) }
            #expect(gone?.status == 410 && gone?.detail == "Unregistered")
        }
    }

    @Test func apnsProviderTokenIsReusedForFiftyMinutes() async throws {
        let clock = TestClock()
        try await withAPNs(clock: clock) { fake, services, _ in
            let push = try #require(services.push)
            let device = fake.registerDevice(sandbox: true)
            let silent = SilentPush(deviceToken: device, sandbox: true, credential: .init(receipt: "r", secret: "s"))
            try await push.send(silent)
            clock.advance(seconds: 49 * 60)
            try await push.send(silent)
            clock.advance(seconds: 2 * 60)
            try await push.send(silent)
            let tokens = await fake.pushes.waitFor(count: 3).map(\.providerToken)
            #expect(tokens[0] == tokens[1])
            #expect(tokens[2] != tokens[1])
            let claims = try #require(CompactJWT(tokens[2])).payload
            let iat = try #require(try JSONSerialization.jsonObject(with: claims) as? [String: Any])["iat"] as? Int64
            #expect(iat == clock.seconds)
        }
    }

    @Test func fakeAPNsRefusesStaleAndTooFrequentlyRefreshedTokens() async throws {
        let fakeClock = TestClock()
        let behind = TestClock(fakeClock.now().addingTimeInterval(-2 * 3600))
        try await withAPNs(clock: behind, fakeClock: fakeClock) { fake, services, _ in
            let device = fake.registerDevice(sandbox: true)
            let refused = await rejection {
                try await services.push?.send(SilentPush(deviceToken: device, sandbox: true, credential: .init(receipt: "r", secret: "s")))
            }
            #expect(refused?.status == 403 && refused?.detail == "ExpiredProviderToken")
        }
        // Two clients, each signing its own token a minute apart: Apple refuses the second.
        let clock = TestClock()
        try await withAPNs(clock: clock) { fake, services, key in
            let device = fake.registerDevice(sandbox: true)
            let silent = SilentPush(deviceToken: device, sandbox: true, credential: .init(receipt: "r", secret: "s"))
            try await services.push?.send(silent)
            clock.advance(seconds: 60)
            let configuration = DeliveryConfiguration(apns: fake.configuration(privateKeyPEM: key.pemRepresentation),
                                                      extraTrustRootsPEM: [fake.caCertificatePEM])
            try await withServices(configuration, clock: clock) { second in
                let refused = await rejection { try await second.push?.send(silent) }
                #expect(refused?.status == 429 && refused?.detail == "TooManyProviderTokenUpdates")
            }
        }
    }

    @Test func fakeAPNsRefusesHTTP1() async throws {
        try await withAPNs { fake, _, key in
            let client = try DeliveryHTTP.makeClient(extraTrustRootsPEM: [fake.caCertificatePEM], httpVersion: .http1Only)
            let apns = try APNsClient(configuration: fake.configuration(privateKeyPEM: key.pemRepresentation),
                                      http: OutsideHTTP(client: client), clock: SystemClock())
            let device = fake.registerDevice(sandbox: true)
            let refused = await rejection {
                try await apns.send(SilentPush(deviceToken: device, sandbox: true, credential: .init(receipt: "r", secret: "s")))
            }
            try await client.shutdown()
            #expect(refused?.status == 505)
        }
    }

    @Test func apnsWithoutTheFakesCertificateAuthorityCannotConnect() async throws {
        let key = P256.Signing.PrivateKey()
        try await using(FakeAPNs.start(publicKey: key.publicKey)) { fake in
            // The system roots only; a short connect timeout, since a refused certificate is retried until then.
            // On a loaded machine the timeout may fire before the refusal is reported; either way the push
            // must fail without reaching the fake.
            var limits = OutsideCallLimits()
            limits.connectTimeout = .seconds(2)
            let client = try DeliveryHTTP.makeClient(extraTrustRootsPEM: [], limits: limits)
            let apns = try APNsClient(configuration: fake.configuration(privateKeyPEM: key.pemRepresentation),
                                      http: OutsideHTTP(client: client), clock: SystemClock())
            let device = fake.registerDevice(sandbox: true)
            await #expect {
                try await apns.send(SilentPush(deviceToken: device, sandbox: true, credential: .init(receipt: "r", secret: "s")))
            } throws: { error in
                guard case let DeliveryError.unavailable(detail) = error else { return false }
                return detail.contains("CERTIFICATE_VERIFY_FAILED") || detail.contains("connectTimeout")
            }
            try await client.shutdown()
            #expect(fake.pushes.all.isEmpty && fake.refusals.all.isEmpty)
        }
    }

    // MARK: Captcha

    @Test func siteVerifyAcceptsAnIssuedTokenOnceAndRecordsTheClientIP() async throws {
        try await using(FakeSiteVerify.start()) { siteVerify in
            try await withServices(DeliveryConfiguration(siteVerify: siteVerify.configuration())) { services in
                let captcha = try #require(services.captcha)
                let token = siteVerify.issueToken()
                #expect(try await captcha.verify(response: token, remoteIP: "203.0.113.7"))
                #expect(try await captcha.verify(response: token, remoteIP: "203.0.113.7") == false, "single use")
                #expect(try await captcha.verify(response: "made-up", remoteIP: nil) == false)
                #expect(try await captcha.verify(response: "", remoteIP: nil) == false)
            }
            try await withServices(DeliveryConfiguration(siteVerify: siteVerify.configuration(secret: "wrong"))) { services in
                let captcha = try #require(services.captcha)
                #expect(try await captcha.verify(response: siteVerify.issueToken(), remoteIP: nil) == false)
            }
            let seen = siteVerify.verifications.all
            #expect(seen.map(\.errorCodes) == [[], ["timeout-or-duplicate"], ["invalid-input-response"], ["invalid-input-secret"]])
            #expect(seen.first?.remoteIP == "203.0.113.7" && seen.last?.remoteIP == nil)
        }
    }

    // MARK: Configuration

    @Test func environmentWithoutDeliveryVariablesMeansTheLog() throws {
        #expect(try DeliveryConfiguration(environment: [:]) == DeliveryConfiguration())
        #expect(try DeliveryConfiguration(environment: ["FLINT_SMS_PROVIDER": "LOG", "FLINT_APNS_TEAM_ID": ""]) == DeliveryConfiguration())
    }

    @Test func environmentReadsEveryProvider() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("flint-delivery-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let key = P256.Signing.PrivateKey()
        let keyFile = folder.appendingPathComponent("AuthKey_ABC123DEFG.p8")
        try key.pemRepresentation.write(to: keyFile, atomically: true, encoding: .utf8)
        let roots = folder.appendingPathComponent("roots.pem")
        try FakeCertificateAuthority().caCertificatePEM.write(to: roots, atomically: true, encoding: .utf8)

        let configuration = try DeliveryConfiguration(environment: [
            "FLINT_SMS_PROVIDER": "twilio", "FLINT_TWILIO_ACCOUNT_SID": "AC1", "FLINT_TWILIO_AUTH_TOKEN": "tok",
            "FLINT_TWILIO_FROM": "+15005550006",
            "FLINT_APNS_TEAM_ID": "TEAM123456", "FLINT_APNS_KEY_ID": "ABC123DEFG", "FLINT_APNS_KEY_FILE": keyFile.path,
            "FLINT_APNS_TOPIC": "com.example.app", "FLINT_APNS_SANDBOX_URL": "https://127.0.0.1:2197",
            "FLINT_CAPTCHA_VERIFY_URL": "https://challenges.cloudflare.com/turnstile/v0/siteverify",
            "FLINT_CAPTCHA_SECRET": "0x4AAA", "FLINT_CAPTCHA_SITE_KEY": "0x4BBB",
            "FLINT_TRUST_ROOTS_FILE": roots.path,
        ])
        #expect(configuration.sms == .twilio(baseURL: "https://api.twilio.com", accountSID: "AC1", authToken: "tok", from: "+15005550006"))
        var apns = DeliveryConfiguration.APNs(teamID: "TEAM123456", keyID: "ABC123DEFG", privateKeyPEM: key.pemRepresentation,
                                              topic: "com.example.app")
        apns.sandboxURL = "https://127.0.0.1:2197"
        #expect(configuration.apns == apns)
        #expect(configuration.siteVerify == .init(url: "https://challenges.cloudflare.com/turnstile/v0/siteverify",
                                                  secret: "0x4AAA", siteKey: "0x4BBB"))
        #expect(configuration.extraTrustRootsPEM.count == 1)
        try await withServices(configuration) { _ in }

        let webhook = try DeliveryConfiguration(environment: [
            "FLINT_SMS_PROVIDER": "webhook", "FLINT_SMS_WEBHOOK_URL": "https://sms.example.com/hook",
            "FLINT_SMS_WEBHOOK_SECRET": "whsec",
        ])
        #expect(webhook.sms == .webhook(url: "https://sms.example.com/hook", secret: "whsec"))
    }

    @Test(arguments: [
        (["FLINT_SMS_PROVIDER": "webhook", "FLINT_SMS_WEBHOOK_URL": "https://x.example"], "FLINT_SMS_WEBHOOK_SECRET"),
        (["FLINT_SMS_PROVIDER": "webhook", "FLINT_SMS_WEBHOOK_SECRET": "s"], "FLINT_SMS_WEBHOOK_URL"),
        (["FLINT_SMS_PROVIDER": "twilio", "FLINT_TWILIO_ACCOUNT_SID": "AC1", "FLINT_TWILIO_AUTH_TOKEN": "t"], "FLINT_TWILIO_FROM"),
        (["FLINT_SMS_PROVIDER": "twilio"], "FLINT_TWILIO_ACCOUNT_SID"),
        (["FLINT_APNS_TEAM_ID": "T", "FLINT_APNS_KEY_ID": "K"], "FLINT_APNS_KEY_FILE"),
        (["FLINT_APNS_TOPIC": "com.example"], "FLINT_APNS_TEAM_ID"),
        (["FLINT_CAPTCHA_SECRET": "s"], "FLINT_CAPTCHA_VERIFY_URL"),
        (["FLINT_CAPTCHA_VERIFY_URL": "https://x.example/siteverify"], "FLINT_CAPTCHA_SECRET"),
    ])
    func halfConfiguredProvidersNameTheMissingVariable(environment: [String: String], missing: String) {
        #expect {
            try DeliveryConfiguration(environment: environment)
        } throws: { error in
            guard case let DeliveryConfigurationError.missing(variable, _) = error else { return false }
            return variable == missing && "\(error)".contains(missing)
        }
    }

    @Test func outsideCallBoundsAndTheOutboxAreSetByVariables() throws {
        let configuration = try DeliveryConfiguration(environment: [
            "FLINT_OUTSIDE_CONNECT_TIMEOUT_SECONDS": "3", "FLINT_OUTSIDE_REQUEST_TIMEOUT_SECONDS": "7",
            "FLINT_OUTSIDE_MAX_RESPONSE_BYTES": "8192", "FLINT_SMTP_REPLY_TIMEOUT_SECONDS": "5",
            "FLINT_SMTP_MESSAGE_TIMEOUT_SECONDS": "20", "FLINT_EMAIL_OUTBOX_CAPACITY": "50",
            "FLINT_EMAIL_CONCURRENT_SENDS": "2", "FLINT_EMAIL_ATTEMPTS": "5", "FLINT_EMAIL_DRAIN_SECONDS": "30",
        ])
        #expect(configuration.limits.connectTimeout == .seconds(3) && configuration.limits.requestTimeout == .seconds(7))
        #expect(configuration.limits.maximumResponseBytes == 8192)
        #expect(configuration.limits.smtpReplyTimeout == .seconds(5) && configuration.limits.smtpMessageTimeout == .seconds(20))
        #expect(configuration.emailOutbox.capacity == 50 && configuration.emailOutbox.concurrentSends == 2)
        #expect(configuration.emailOutbox.attempts == 5 && configuration.emailOutbox.drainTimeout == .seconds(30))
        #expect(throws: DeliveryConfigurationError.invalid(
            setting: "FLINT_EMAIL_DRAIN_SECONDS", reason: "\"soon\" is not a whole number ≥ 0")) {
            try DeliveryConfiguration(environment: ["FLINT_EMAIL_DRAIN_SECONDS": "soon"])
        }
    }

    @Test func invalidValuesAndFilesAreRefused() throws {
        #expect(throws: DeliveryConfigurationError.invalid(setting: "FLINT_SMS_PROVIDER", reason: "\"pigeon\" is not one of log, webhook, twilio")) {
            try DeliveryConfiguration(environment: ["FLINT_SMS_PROVIDER": "pigeon"])
        }
        #expect {
            try DeliveryConfiguration(environment: ["FLINT_SMS_PROVIDER": "webhook", "FLINT_SMS_WEBHOOK_URL": "ftp://x", "FLINT_SMS_WEBHOOK_SECRET": "s"])
        } throws: { error in
            if case DeliveryConfigurationError.invalid(setting: "FLINT_SMS_WEBHOOK_URL", _) = error { return true }
            return false
        }
        let apns = ["FLINT_APNS_TEAM_ID": "T", "FLINT_APNS_KEY_ID": "K", "FLINT_APNS_TOPIC": "com.example"]
        #expect(throws: DeliveryConfigurationError.unreadableFile(variable: "FLINT_APNS_KEY_FILE", path: "/nonexistent/key.p8")) {
            try DeliveryConfiguration(environment: apns.merging(["FLINT_APNS_KEY_FILE": "/nonexistent/key.p8"]) { $1 })
        }
        let garbage = FileManager.default.temporaryDirectory.appendingPathComponent("flint-garbage-\(UUID().uuidString).p8")
        try "not a key".write(to: garbage, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: garbage) }
        #expect {
            try DeliveryConfiguration(environment: apns.merging(["FLINT_APNS_KEY_FILE": garbage.path]) { $1 })
        } throws: { error in
            if case DeliveryConfigurationError.invalid(setting: "FLINT_APNS_KEY_FILE", _) = error { return true }
            return false
        }
        #expect {
            try DeliveryConfiguration(environment: ["FLINT_TRUST_ROOTS_FILE": garbage.path])
        } throws: { error in
            if case DeliveryConfigurationError.invalid(setting: "FLINT_TRUST_ROOTS_FILE", _) = error { return true }
            return false
        }
        #expect(throws: DeliveryConfigurationError.self) {
            try DeliveryServices.make(DeliveryConfiguration(extraTrustRootsPEM: ["garbage"]), clock: SystemClock(),
                                      logger: Logger(label: "test"))
        }
    }
}
