@testable import FlintAuth
import FlintServer
import FlintTestSupport
import Foundation
import Testing

/// Email-link sign-in end to end in production mode: the SDK asks for a link, Flint mails it through a
/// real SMTP server on loopback (aiosmtpd, STARTTLS and AUTH), the test reads the mail and the SDK signs in.
@Suite struct EmailLinkSMTPTests {
    static let email = "ada@example.com"

    /// The first http(s) URL in a mail's text.
    static func link(in text: String) -> String? {
        text.split(whereSeparator: { $0.isWhitespace || $0 == "<" || $0 == ">" })
            .first { $0.hasPrefix("http://") || $0.hasPrefix("https://") }
            .map(String.init)
    }

    static func settings(url: String) -> ActionCodeSettings {
        let settings = ActionCodeSettings()
        settings.url = URL(string: url)
        settings.handleCodeInApp = true
        settings.setIOSBundleID("com.example.flint")
        return settings
    }

    @Test func signInLinkArrivesBySMTPAndSignsIn() async throws {
        let smtp = try await SMTPTestServer.start(mode: .startTLS, username: "mailer", password: "mail-secret")
        do {
            try await PhoneProductionTests.withProductionHarness(configure: {
                $0.delivery.email = .smtp(smtp.configuration(from: "noreply@flint.test"))
                $0.delivery.extraTrustRootsPEM = smtp.trustRootsPEM
                // A reply the loaded suite delays past production's bounds would be sent again (a second mail).
                $0.delivery.limits = .underLoad
            }) { server, auth in
                auth.languageCode = "fr"
                try await auth.sendSignInLink(toEmail: Self.email, actionCodeSettings: Self.settings(url: "http://localhost:8080/done"))
                let mail = try #require(await smtp.received.waitFor(count: 1).first)
                #expect(mail.to == [Self.email])
                #expect(mail.headers["from"]?.contains("noreply@flint.test") == true)
                let link = try #require(Self.link(in: mail.text), "no link in:\n\(mail.text)")
                #expect(link.hasPrefix(server.baseURL.absoluteString + "/__/auth/links?link="))
                #expect(link.contains("lang%3Dfr"))
                #expect(auth.isSignIn(withEmailLink: link))

                await expectAuthError(.invalidEmail) { try await auth.signIn(withEmail: "eve@example.com", link: link) }
                let result = try await auth.signIn(withEmail: Self.email, link: link)
                #expect(result.user.email == Self.email)
                #expect(result.user.isEmailVerified)
                #expect(result.additionalUserInfo?.isNewUser == true)
                await expectAuthError(.invalidActionCode) { try await auth.signIn(withEmail: Self.email, link: link) }

                // A link past its 6 hours.
                try await auth.sendSignInLink(toEmail: Self.email, actionCodeSettings: Self.settings(url: "http://localhost:8080/done"))
                let second = try #require(await smtp.received.waitFor(count: 2).last)
                let expiring = try #require(Self.link(in: second.text))
                server.clock.advance(seconds: 6 * 3600 + 1)
                await expectAuthError(.expiredActionCode) { try await auth.signIn(withEmail: Self.email, link: expiring) }

                // A continue URL outside the authorized domains: refused, nothing mailed.
                await expectAuthError(.unauthorizedDomain) {
                    try await auth.sendSignInLink(
                        toEmail: Self.email, actionCodeSettings: Self.settings(url: "https://evil.example.net/done"))
                }
                #expect(smtp.received.all.count == 2)
            }
        } catch {
            await smtp.stop()
            throw error
        }
        await smtp.stop()
    }
}
