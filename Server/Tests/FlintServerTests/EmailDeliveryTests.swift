@testable import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
import Logging
import Testing

/// Runs `body` with a started SMTP test server and always stops it.
private func withSMTPServer(_ mode: SMTPTestServer.Mode, username: String? = nil, password: String? = nil,
                            excludedAuthMechanisms: [String] = [],
                            _ body: (SMTPTestServer) async throws -> Void) async throws {
    let server = try await SMTPTestServer.start(mode: mode, username: username, password: password,
                                                excludedAuthMechanisms: excludedAuthMechanisms)
    do {
        try await body(server)
    } catch {
        await server.stop()
        throw error
    }
    await server.stop()
}

private let sender = "noreply@flint.test"
private let link = "https://demo-flint.firebaseapp.com/__/auth/action?mode=signIn&oobCode=abc123&apiKey=AIza"

private func message(to: String = "ada@example.com", subject: String = "Sign in to Flint Demo",
                     html: String? = "<p>Sign in: <a href=\"\(link)\">link</a></p>") -> EmailMessage {
    EmailMessage(projectID: "demo-flint", to: to, senderName: "Flint Demo", subject: subject,
                 text: "Open this link to sign in:\n\n\(link)\n", html: html, locale: "en", kind: .action(.emailSignIn), link: link)
}

/// The error `body` threw, or nil.
private func deliveryError(_ body: () async throws -> Void) async -> DeliveryError? {
    do {
        try await body()
        return nil
    } catch let error as DeliveryError {
        return error
    } catch {
        Issue.record("expected a DeliveryError, got \(error)")
        return nil
    }
}

@Suite struct EmailDeliveryTests {
    // MARK: SMTP against a real server

    @Test func startTLSWithAuthDeliversTheMessage() async throws {
        try await withSMTPServer(.startTLS, username: "mailer", password: "s3cret") { smtp in
            let emailSender = try SMTPEmailSender(configuration: smtp.configuration(from: sender),
                                                  extraTrustRootsPEM: smtp.trustRootsPEM, limits: .underLoad, clock: SystemClock())
            try await emailSender.send(message())
            let mail = try #require(await smtp.received.waitFor(count: 1).first)
            #expect(mail.from == sender)
            #expect(mail.to == ["ada@example.com"])
            #expect(mail.subject == "Sign in to Flint Demo")
            #expect(mail.header("From") == "\"Flint Demo\" <\(sender)>")
            #expect(mail.header("To") == "ada@example.com")
            #expect(mail.header("MIME-Version") == "1.0")
            #expect(mail.header("Message-ID")?.hasSuffix("@flint.test>") == true)
            #expect(mail.header("Date") != nil)
            #expect(mail.header("Content-Type")?.hasPrefix("multipart/alternative") == true)
            #expect(mail.text == "Open this link to sign in:\n\n\(link)\n")
            #expect(mail.html?.contains("href=\"\(link)\"") == true)
        }
    }

    @Test func implicitTLSWithAuthDeliversAUTF8Subject() async throws {
        try await withSMTPServer(.implicitTLS, username: "mailer", password: "s3cret") { smtp in
            let emailSender = try SMTPEmailSender(configuration: smtp.configuration(from: sender),
                                                  extraTrustRootsPEM: smtp.trustRootsPEM, limits: .underLoad, clock: SystemClock())
            let subject = "Connexion à Flint — 登录 Flint Demo, ça marche très bien avec un sujet assez long 🎉"
            try await emailSender.send(message(subject: subject, html: nil))
            let mail = try #require(await smtp.received.waitFor(count: 1).first)
            #expect(mail.subject == subject)
            #expect(mail.header("Subject")?.hasPrefix("=?UTF-8?B?") == true)
            #expect(mail.header("Content-Type") == "text/plain; charset=UTF-8")
            #expect(mail.text.contains(link))
            #expect(mail.html == nil)
        }
    }

    @Test func plainLoopbackRelayTakesAuthAndKeepsLeadingDots() async throws {
        try await withSMTPServer(.plain, username: "mailer", password: "s3cret") { smtp in
            let client = try SMTPClient(configuration: smtp.configuration(from: sender), limits: .underLoad)
            let raw = "From: \(sender)\nTo: bob@example.com\nSubject: dots\n\n.one leading dot\n..two\n.\nend\n"
            try await client.send(from: sender, to: ["bob@example.com", "carol@example.com"], message: raw)
            let mail = try #require(await smtp.received.waitFor(count: 1).first)
            #expect(mail.to == ["bob@example.com", "carol@example.com"])
            #expect(mail.text == ".one leading dot\n..two\n.\nend\n")
        }
    }

    @Test func authLoginWhenPlainIsNotOffered() async throws {
        try await withSMTPServer(.startTLS, username: "mailer", password: "s3cret", excludedAuthMechanisms: ["PLAIN"]) { smtp in
            let emailSender = try SMTPEmailSender(configuration: smtp.configuration(from: sender),
                                                  extraTrustRootsPEM: smtp.trustRootsPEM, limits: .underLoad, clock: SystemClock())
            try await emailSender.send(message())
            #expect(await smtp.received.waitFor(count: 1).count == 1)
        }
    }

    @Test func wrongPasswordIsRejected() async throws {
        try await withSMTPServer(.startTLS, username: "mailer", password: "s3cret") { smtp in
            let emailSender = try SMTPEmailSender(configuration: smtp.configuration(from: sender, password: "wrong"),
                                                  extraTrustRootsPEM: smtp.trustRootsPEM, limits: .underLoad, clock: SystemClock())
            let error = await deliveryError { try await emailSender.send(message()) }
            guard case let .rejected(status, detail) = error else {
                Issue.record("expected a rejection, got \(String(describing: error))")
                return
            }
            #expect(status == 535)
            #expect(detail.contains("AUTH"))
            #expect(!detail.contains("wrong"))
            #expect(smtp.received.all.isEmpty)
        }
    }

    @Test func missingAuthWhenTheServerRequiresIt() async throws {
        try await withSMTPServer(.startTLS, username: "mailer", password: "s3cret") { smtp in
            var configuration = smtp.configuration(from: sender)
            configuration.username = nil
            configuration.password = nil
            let emailSender = try SMTPEmailSender(configuration: configuration, extraTrustRootsPEM: smtp.trustRootsPEM,
                                                  limits: .underLoad, clock: SystemClock())
            let error = await deliveryError { try await emailSender.send(message()) }
            guard case let .rejected(status, _) = error else {
                Issue.record("expected a rejection, got \(String(describing: error))")
                return
            }
            #expect(status == 530)
        }
    }

    @Test func startTLSRequiredButNotOffered() async throws {
        try await withSMTPServer(.plain) { smtp in
            let emailSender = try SMTPEmailSender(configuration: smtp.configuration(from: sender, security: .startTLS),
                                                  limits: .underLoad, clock: SystemClock())
            let error = await deliveryError { try await emailSender.send(message()) }
            guard case let .unavailable(detail) = error else {
                Issue.record("expected unavailable, got \(String(describing: error))")
                return
            }
            #expect(detail.contains("STARTTLS"))
            #expect(smtp.received.all.isEmpty)
        }
    }

    @Test(arguments: [SMTPTestServer.Mode.startTLS, .implicitTLS])
    func untrustedCertificateIsRefused(mode: SMTPTestServer.Mode) async throws {
        try await withSMTPServer(mode, username: "mailer", password: "s3cret") { smtp in
            // Trusting another CA: the server's certificate does not chain to anything trusted.
            let other = try FakeCertificateAuthority()
            let emailSender = try SMTPEmailSender(configuration: smtp.configuration(from: sender),
                                                  extraTrustRootsPEM: [other.caCertificatePEM], limits: .underLoad, clock: SystemClock())
            let error = await deliveryError { try await emailSender.send(message()) }
            guard case let .unavailable(detail) = error else {
                Issue.record("expected unavailable, got \(String(describing: error))")
                return
            }
            #expect(detail.contains("handshake") || detail.contains("certificate"), "\(detail)")
            #expect(smtp.received.all.isEmpty)
        }
    }

    @Test func headerInjectionIsRefusedBeforeConnecting() async throws {
        // Nothing listens on this port: refusal must come before any connection attempt.
        let emailSender = try SMTPEmailSender(
            configuration: .init(host: "127.0.0.1", port: 9, security: .none, from: sender), clock: SystemClock())
        for bad in [message(subject: "Hello\r\nBcc: victim@example.com"), message(to: "ada@example.com\r\nBcc: x@example.com"),
                    message(to: "Ada <ada@example.com>")] {
            let error = await deliveryError { try await emailSender.send(bad) }
            guard case let .rejected(status, _) = error else {
                Issue.record("expected a rejection, got \(String(describing: error))")
                continue
            }
            #expect(status == 0)
        }
        var named = message()
        named.senderName = "Flint\nBcc: x@example.com"
        #expect(await deliveryError { try await emailSender.send(named) } == .rejected(
            status: 0, detail: "From name contains a line break (header injection refused)"))
    }

    @Test func nothingListeningIsUnavailable() async throws {
        let emailSender = try SMTPEmailSender(
            configuration: .init(host: "127.0.0.1", port: 9, security: .none, from: sender), clock: SystemClock())
        guard case .unavailable = await deliveryError({ try await emailSender.send(message()) }) else {
            Issue.record("expected unavailable")
            return
        }
    }

    @Test func silentServerTimesOut() async throws {
        // A listening socket nobody accepts from: the connection completes, the greeting never comes.
        let listener = try LoopbackSocket.listening()
        defer { listener.close() }
        var client = try SMTPClient(configuration: .init(host: "127.0.0.1", port: listener.port, security: .none, from: sender))
        client.limits.smtpReplyTimeout = .milliseconds(200)
        let error = await deliveryError { try await SMTPEmailSender(client: client, clock: SystemClock()).send(message()) }
        guard case let .unavailable(detail) = error else {
            Issue.record("expected unavailable, got \(String(describing: error))")
            return
        }
        #expect(detail.contains("no reply within 200 ms"), "\(detail)")
    }

    @Test func credentialsAreNeverSentInTheClearToARemoteHost() {
        #expect(SMTPClient.isLoopback("127.0.0.1"))
        #expect(SMTPClient.isLoopback("127.1.2.3"))
        #expect(SMTPClient.isLoopback("localhost"))
        #expect(SMTPClient.isLoopback("::1"))
        #expect(!SMTPClient.isLoopback("smtp.example.com"))
        #expect(!SMTPClient.isLoopback("10.0.0.1"))
        #expect(!SMTPClient.isLoopback("127.0.0.1.example.com"))
    }

    @Test func dotStuffingAndLineEndings() {
        #expect(SMTPClient.dotStuffed("a\n.b\r\n..c\rd") == "a\r\n..b\r\n...c\r\nd\r\n")
        #expect(SMTPClient.dotStuffed("x\r\n") == "x\r\n")
    }

    // MARK: MIME

    @Test func mimeRendering() throws {
        let date = Date(timeIntervalSince1970: 1_800_000_000)
        let mime = MIMEMessage(fromAddress: sender, fromName: "Équipe \"Flint\"", to: "ada@example.com", subject: "Hi",
                               text: "line one\nline two", html: nil, date: date, messageID: "m1@flint.test")
        let rendered = try mime.rendered()
        #expect(rendered.contains("\r\nDate: Fri, 15 Jan 2027 08:00:00 +0000\r\n"))
        #expect(rendered.contains("Message-ID: <m1@flint.test>\r\n"))
        #expect(rendered.hasPrefix("From: =?UTF-8?B?"))
        #expect(!rendered.replacingOccurrences(of: "\r\n", with: "").contains("\n"))
        let mail = ReceivedMail(from: sender, to: ["ada@example.com"], raw: rendered)
        #expect(mail.text == "line one\nline two")
        #expect(MIMEMessage.encodedDisplayName("Flint \"Demo\"") == "\"Flint \\\"Demo\\\"\"")
    }

    // MARK: Templates

    @Test func templateLocaleResolution() {
        #expect(EmailTemplates.resolve(nil) == "en")
        #expect(EmailTemplates.resolve("fr-FR") == "fr")
        #expect(EmailTemplates.resolve("zh_Hans") == "zh-CN")
        #expect(EmailTemplates.resolve("zh-Hant-TW") == "zh-TW")
        #expect(EmailTemplates.resolve("pt_BR") == "pt")
        #expect(EmailTemplates.resolve("ja-JP, de;q=0.8") == "de")
        #expect(EmailTemplates.resolve("xx") == "en")
        for required in ["en", "fr", "es", "de", "pt", "hi", "bn", "zh-CN", "ar"] {
            #expect(EmailTemplates.supportedLocales.contains(required))
        }
    }

    @Test(arguments: OobRequestType.allCases)
    func builtInTemplatesInEveryLocale(action: OobRequestType) {
        for locale in EmailTemplates.supportedLocales {
            let rendered = EmailTemplates.render(action: action, locale: locale, link: link, email: "ada@example.com",
                                                 newEmail: "ada@new.example", appName: "Flint Demo", displayName: "Ada",
                                                 overrides: [:])
            #expect(rendered.locale == locale)
            #expect(rendered.subject.contains("Flint Demo"), "\(locale) \(action)")
            #expect(rendered.text.contains(link))
            #expect(rendered.text.contains("Ada"))
            #expect(!rendered.text.contains("{"), "\(locale) \(action): \(rendered.text)")
            #expect(rendered.html?.contains(HTML.escape(link)) == true)
            #expect(rendered.senderName == "Flint Demo")
            if action == .verifyAndChangeEmail || action == .recoverEmail { #expect(rendered.text.contains("ada@new.example")) }
        }
        let french = EmailTemplates.render(action: action, locale: "fr-CA", link: link, email: "a@b.c", newEmail: nil,
                                           appName: "X", displayName: nil, overrides: [:])
        #expect(french.locale == "fr")
        #expect(french.html?.contains("lang=\"fr\"") == true)
    }

    @Test func builtInHTMLEscapesEverySubstitutedValue() throws {
        let rendered = EmailTemplates.render(action: .emailSignIn, locale: "en", link: "https://x.test/?a=1&b=\"2\"",
                                             email: "<b>@example.com", newEmail: nil, appName: "<script>alert(1)</script>",
                                             displayName: "Ada & 'Bob'", overrides: [:])
        let html = try #require(rendered.html)
        #expect(!html.contains("<script>"))
        #expect(!html.contains("<b>"))
        #expect(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        #expect(html.contains("Ada &amp; &#39;Bob&#39;"))
        #expect(html.contains("href=\"https://x.test/?a=1&amp;b=&quot;2&quot;\""))
        #expect(rendered.text.contains("Ada & 'Bob'"))
        #expect(rendered.subject == "Sign in to <script>alert(1)</script>")
    }

    @Test func overridesWithPlaceholders() throws {
        let overrides: [String: ProjectSettings.EmailTemplate] = [
            "PASSWORD_RESET": .init(subject: "Reset for %APP_NAME%", body: "Hi %DISPLAY_NAME%, %EMAIL%: %LINK%",
                                    senderDisplayName: "%APP_NAME% support"),
            "PASSWORD_RESET:fr": .init(subject: "Réinitialisation %APP_NAME%", body: "Lien : %LINK%"),
            "VERIFY_AND_CHANGE_EMAIL": .init(
                subject: "New address", body: "<p>Confirm <b>%NEW_EMAIL%</b> for %DISPLAY_NAME%: <a href=\"%LINK%\">confirm</a></p>",
                bodyFormat: "HTML"),
        ]
        func render(_ action: OobRequestType, _ locale: String?) -> EmailTemplates.Rendered {
            EmailTemplates.render(action: action, locale: locale, link: "https://x.test/a?b=1&c=2", email: "ada@example.com",
                                  newEmail: "ada@new.example", appName: "Demo", displayName: "<Ada>", overrides: overrides)
        }
        let generic = render(.passwordReset, "de")
        #expect(generic.subject == "Reset for Demo")
        #expect(generic.text == "Hi <Ada>, ada@example.com: https://x.test/a?b=1&c=2")
        #expect(generic.html == nil)
        #expect(generic.senderName == "Demo support")
        #expect(generic.locale == "de")

        let french = render(.passwordReset, "fr-FR")
        #expect(french.subject == "Réinitialisation Demo")
        #expect(french.text == "Lien : https://x.test/a?b=1&c=2")
        #expect(french.senderName == nil)

        let html = render(.verifyAndChangeEmail, nil)
        #expect(html.html == "<p>Confirm <b>ada@new.example</b> for &lt;Ada&gt;: <a href=\"https://x.test/a?b=1&amp;c=2\">confirm</a></p>")
        #expect(html.text == "Confirm ada@new.example for <Ada>: confirm (https://x.test/a?b=1&c=2)\n")

        // Not overridden: built in.
        #expect(render(.emailSignIn, "fr").subject == "Connexion à Demo")
    }

    @Test func placeholderValuesAreNotExpandedTwice() {
        #expect(EmailTemplates.substitute("%EMAIL% %LINK%", ["%EMAIL%": "%LINK%", "%LINK%": "L"]) == "%LINK% L")
    }

    // MARK: Log sender and services

    @Test func logSenderWritesTheLinkAsMetadata() async throws {
        let log = CapturedLog()
        try await LogEmailSender(logger: log.logger()).send(message())
        let entry = try #require(log.all.first)
        #expect(entry.level == .notice)
        #expect(entry.message == "To sign in as ada@example.com, follow this link: \(link)")
        #expect(entry.metadata == ["email": "ada@example.com", "link": link, "action": "EMAIL_SIGNIN",
                                   "projectID": "demo-flint", "locale": "en", "subject": "Sign in to Flint Demo"])
    }

    @Test func servicesBuildTheConfiguredEmailSender() async throws {
        var configuration = DeliveryConfiguration()
        let log = try DeliveryServices.make(configuration, clock: SystemClock(), logger: Logger(label: "t"))
        #expect(log.email is LogEmailSender)
        try await log.shutdown()
        configuration.email = .smtp(.init(host: "127.0.0.1", port: 2525, security: .none, from: sender))
        let smtp = try DeliveryServices.make(configuration, clock: SystemClock(), logger: Logger(label: "t"))
        #expect(smtp.email is SMTPEmailSender)
        try await smtp.shutdown()
    }

    // MARK: Configuration

    @Test func smtpConfigurationFromTheEnvironment() throws {
        let full = try DeliveryConfiguration(environment: [
            "FLINT_EMAIL_PROVIDER": "smtp", "FLINT_SMTP_HOST": "smtp.example.com", "FLINT_SMTP_USERNAME": "u",
            "FLINT_SMTP_PASSWORD": "p", "FLINT_SMTP_FROM": sender,
        ])
        #expect(full.email == .smtp(.init(host: "smtp.example.com", port: 587, security: .startTLS, username: "u",
                                          password: "p", from: sender)))
        let implicit = try DeliveryConfiguration(environment: [
            "FLINT_EMAIL_PROVIDER": "SMTP", "FLINT_SMTP_HOST": "smtp.example.com", "FLINT_SMTP_SECURITY": "tls",
            "FLINT_SMTP_FROM": sender,
        ])
        #expect(implicit.email == .smtp(.init(host: "smtp.example.com", port: 465, security: .implicitTLS, from: sender)))
        let local = try DeliveryConfiguration(environment: [
            "FLINT_EMAIL_PROVIDER": "smtp", "FLINT_SMTP_HOST": "127.0.0.1", "FLINT_SMTP_SECURITY": "none",
            "FLINT_SMTP_PORT": "2525", "FLINT_SMTP_FROM": sender,
        ])
        #expect(local.email == .smtp(.init(host: "127.0.0.1", port: 2525, security: .none, from: sender)))
        #expect(try DeliveryConfiguration(environment: [:]).email == .log)
        #expect(try DeliveryConfiguration(environment: ["FLINT_EMAIL_PROVIDER": "log"]).email == .log)
    }

    @Test func smtpConfigurationErrorsNameTheVariable() {
        let base = ["FLINT_EMAIL_PROVIDER": "smtp", "FLINT_SMTP_HOST": "smtp.example.com", "FLINT_SMTP_FROM": sender]
        func failure(_ changes: [String: String?]) -> DeliveryConfigurationError? {
            var environment = base
            for (name, value) in changes { environment[name] = value }
            do {
                _ = try DeliveryConfiguration(environment: environment)
                return nil
            } catch {
                return error as? DeliveryConfigurationError
            }
        }
        #expect(failure(["FLINT_SMTP_HOST": nil]) == .missing(variable: "FLINT_SMTP_HOST", reason: "FLINT_EMAIL_PROVIDER=smtp"))
        #expect(failure(["FLINT_SMTP_FROM": nil]) == .missing(variable: "FLINT_SMTP_FROM", reason: "FLINT_EMAIL_PROVIDER=smtp"))
        #expect(failure(["FLINT_SMTP_USERNAME": "u"]) == .missing(variable: "FLINT_SMTP_PASSWORD", reason: "FLINT_SMTP_USERNAME is set"))
        #expect(failure(["FLINT_SMTP_PASSWORD": "p"]) == .missing(variable: "FLINT_SMTP_USERNAME", reason: "FLINT_SMTP_PASSWORD is set"))
        guard case .invalid(setting: "FLINT_EMAIL_PROVIDER", _)? = failure(["FLINT_EMAIL_PROVIDER": "sendgrid"]),
              case .invalid(setting: "FLINT_SMTP_SECURITY", _)? = failure(["FLINT_SMTP_SECURITY": "ssl3"]),
              case .invalid(setting: "FLINT_SMTP_SECURITY", _)? = failure(["FLINT_SMTP_SECURITY": "none"]),
              case .invalid(setting: "FLINT_SMTP_PORT", _)? = failure(["FLINT_SMTP_PORT": "70000"]),
              case .invalid(setting: "FLINT_SMTP_FROM", _)? = failure(["FLINT_SMTP_FROM": "Flint <noreply@flint.test>"])
        else {
            Issue.record("an invalid setting was accepted or misnamed")
            return
        }
    }
}
