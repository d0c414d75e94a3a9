@testable import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
import Testing

/// The new-device notice (`auditTrail.newDeviceNotice`), mailed through a real SMTP server: off by default; on, a
/// sign-in from a user agent or network the account's trail has not seen is mailed to its address, once, and the
/// sign-up's own device, or the same device at another address of its network, is not.
@Suite struct NewDeviceNoticeTests {
    static let address = "ada@example.com"
    static let password = "secret-pass-1"
    static let laptop = "Laptop/1.0 (Linux)"
    static let phone = "Phone/2.0 (iOS)"

    /// A production server (emulator mode's mail is the log's) mailing through `smtp`, believing the `X-Forwarded-For` its test client writes, with the
    /// notice on when `noticeOn`.
    static func withNoticeServer(noticeOn: Bool,
                                 _ body: (TestServer, TestClient, SMTPTestServer) async throws -> Void) async throws {
        let smtp = try await SMTPTestServer.start(mode: .plain)
        let proxies = try TrustedProxies("127.0.0.1/32")
        do {
            try await withServer(emulator: false, configure: { configuration in
                configuration.delivery.email = .smtp(smtp.configuration(from: "noreply@flint.test"))
                configuration.delivery.limits = .underLoad
                configuration.trustedProxies = proxies
            }) { server, client in
                if noticeOn {
                    let reply = try await AdminClient(server).patchConfig(["auditTrail": ["newDeviceNotice": true]], mask: "auditTrail")
                    #expect(reply.status == 200 && reply.body["auditTrail"]?["newDeviceNotice"] == true, "\(reply.body)")
                }
                try await body(server, client, smtp)
            }
        } catch {
            await smtp.stop()
            throw error
        }
        await smtp.stop()
    }

    static func signUp(_ client: TestClient, tenant: String? = nil, device: String, from ip: String) async throws {
        var body: [String: JSONValue] = ["email": .string(address), "password": .string(password), "returnSecureToken": true]
        body["tenantId"] = tenant.map(JSONValue.string)
        let reply = try await client.post("/v1/accounts:signUp", body, headers: ["User-Agent": device, "X-Forwarded-For": ip])
        #expect(reply.status == 200, "\(reply.body)")
    }

    /// Signs in from `device` at `ip`, and returns once whatever mail that sign-in queued is sent.
    static func signIn(_ client: TestClient, _ server: TestServer, tenant: String? = nil, device: String,
                       from ip: String) async throws {
        var body: [String: JSONValue] = ["email": .string(address), "password": .string(password), "returnSecureToken": true]
        body["tenantId"] = tenant.map(JSONValue.string)
        let reply = try await client.post("/v1/accounts:signInWithPassword", body,
                                          headers: ["User-Agent": device, "X-Forwarded-For": ip])
        #expect(reply.status == 200, "\(reply.body)")
        await server.waitForOutbox()
    }

    @Test func offByDefault() async throws {
        try await Self.withNoticeServer(noticeOn: false) { server, client, smtp in
            let shown = try await AdminClient(server).patchConfig(["auditTrail": ["retentionDays": 30]], mask: "auditTrail")
            #expect(shown.body["auditTrail"]?["newDeviceNotice"] == false, "\(shown.body)")
            try await Self.signUp(client, device: Self.laptop, from: "203.0.113.5")
            try await Self.signIn(client, server, device: Self.phone, from: "198.51.100.7")
            #expect(smtp.received.all.isEmpty)
        }
    }

    @Test func aNewUserAgentOrNetworkIsMailedOnce() async throws {
        try await Self.withNoticeServer(noticeOn: true) { server, client, smtp in
            try await Self.signUp(client, device: Self.laptop, from: "203.0.113.5")
            // The sign-up's device.
            try await Self.signIn(client, server, device: Self.laptop, from: "203.0.113.5")
            #expect(smtp.received.all.isEmpty)

            // Another user agent on the same network.
            server.clock.advance(seconds: 60)
            try await Self.signIn(client, server, device: Self.phone, from: "203.0.113.5")
            let mail = try #require(await smtp.received.waitFor(count: 1).first)
            #expect(mail.to == [Self.address] && mail.subject == "New sign-in to your demo-flint account", "\(mail.subject)")
            #expect(mail.text.contains(Self.address) && mail.text.contains("Device: \(Self.phone)")
                        && mail.text.contains("Address: 203.0.113.5") && mail.text.contains("Forgot password"), "\(mail.text)")
            let when = UserRecord.iso8601(milliseconds: server.clock.milliseconds)
            #expect(mail.text.contains("When: \(when) UTC"), "\(mail.text)")
            #expect(mail.html?.contains("<li>Device: Phone/2.0 (iOS)</li>") == true, "\(mail.html ?? "")")

            // That phone again, and the laptop at another host of its /24: known devices.
            try await Self.signIn(client, server, device: Self.phone, from: "203.0.113.5")
            try await Self.signIn(client, server, device: Self.laptop, from: "203.0.113.77")
            #expect(smtp.received.all.count == 1)

            // The laptop's user agent from another network.
            try await Self.signIn(client, server, device: Self.laptop, from: "198.51.100.7")
            let second = try #require(await smtp.received.waitFor(count: 2).last)
            #expect(second.text.contains("Address: 198.51.100.7") && second.text.contains("Device: \(Self.laptop)"), "\(second.text)")
            #expect(smtp.received.all.count == 2)
        }
    }

    @Test func aTenantsUserIsMailedByItsProjectsSetting() async throws {
        try await Self.withNoticeServer(noticeOn: true) { server, client, smtp in
            let tenant = try #require(try await server.server.createTenant(
                TenantConfig(displayName: "Acme", allowPasswordSignup: true), projectID: server.projectID).tenantId)
            try await Self.signUp(client, tenant: tenant, device: Self.laptop, from: "203.0.113.5")
            try await Self.signIn(client, server, tenant: tenant, device: Self.laptop, from: "203.0.113.5")
            #expect(smtp.received.all.isEmpty)
            try await Self.signIn(client, server, tenant: tenant, device: Self.phone, from: "203.0.113.5")
            let mail = try #require(await smtp.received.waitFor(count: 1).first)
            #expect(mail.to == [Self.address] && mail.text.contains("Device: \(Self.phone)"), "\(mail.text)")
        }
    }

    @Test func networksAreTheSlash24AndTheSlash64() {
        #expect(DeviceNetwork.of("203.0.113.5") == "203.0.113.0/24")
        #expect(DeviceNetwork.of("203.0.113.200") == DeviceNetwork.of("203.0.113.5"))
        #expect(DeviceNetwork.of("203.0.114.5") != DeviceNetwork.of("203.0.113.5"))
        #expect(DeviceNetwork.of("::ffff:203.0.113.9") == "203.0.113.0/24")
        #expect(DeviceNetwork.of("2001:db8:1:2::5") == "2001:db8:1:2::/64")
        #expect(DeviceNetwork.of("2001:db8:1:2:aaaa:bbbb:cccc:dddd") == DeviceNetwork.of("2001:db8:1:2::5"))
        #expect(DeviceNetwork.of("2001:db8:1:3::5") != DeviceNetwork.of("2001:db8:1:2::5"))
        #expect(DeviceNetwork.of("not an address") == "not an address")
    }

    @Test func theNoticeIsInEveryLanguageOfTheActionEmails() {
        #expect(Set(EmailTemplates.newDeviceWordings.keys) == Set(EmailTemplates.supportedLocales))
        let device = EmailTemplates.SignInDevice(time: "2026-12-02T09:14:03.120Z", ipAddress: "203.0.113.7",
                                                 userAgent: "<script>")
        let french = EmailTemplates.renderNewDeviceNotice(locale: "fr-CA", email: "a@b.c", appName: "Demo", displayName: "Ada",
                                                          device: device)
        #expect(french.locale == "fr" && french.subject == "Nouvelle connexion à votre compte Demo")
        #expect(french.text.hasPrefix("Bonjour Ada,") && french.text.contains("Appareil: <script>"), "\(french.text)")
        #expect(french.html?.contains("&lt;script&gt;") == true && french.html?.contains("<script>") == false)
    }
}
