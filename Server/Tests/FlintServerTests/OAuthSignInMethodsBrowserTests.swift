@testable import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
import Testing

/// The other methods of Flint's hosted sign-in page, in headless Chromium (Tests/python/oauth_signin_browser.py), each
/// through an authorization request of a first-party client, on SQLite and on PostgreSQL, at `http://localhost` (a
/// secure context, and a passkey RP ID): an email link (the mail's link opened in the same browser comes back to the
/// page, which finishes it), a phone number (Flint's proof of work solved in the page, the SMS through a Twilio fake),
/// a password with an SMS second factor, Google through the hosted handler and a fake Google, and a passkey in a DevTools
/// virtual authenticator, by the page's button and by the username field's autofill; a tenant's phone sign-in; and a
/// SAML IdP written in Python (saml_flow.IdP), configured through the admin API. Each ends with a code at the client, exchanged for an ID token of the right account and
/// methods. The mailbox and the phone are read by the driver through a `FakeInbox`.
@Suite struct OAuthSignInMethodsBrowserTests {
    static let redirectURI = "http://127.0.0.1:9/cb"

    @Test(arguments: TestDatabase.allCases)
    func everyOtherMethodOfTheSignInPageWorksInChromium(database: TestDatabase) async throws {
        let chromium = try #require(
            Chromium.executable(),
            "chromium is not installed: scripts/test.sh installs Debian's chromium package (apt-get install -y chromium)")
        let smtp = try await SMTPTestServer.start(mode: .plain)
        let twilio = try await FakeTwilio.start()
        let inbox = try await FakeInbox.start { to in
            smtp.received.all.filter { $0.to.contains(to) }.map { $0.text + "\n" + ($0.html ?? "") }
                + twilio.messages.all.filter { $0.to == to }.map(\.body)
        }
        do {
            try await Self.scenario(database: database, chromium: chromium, smtp: smtp, twilio: twilio, inbox: inbox)
        } catch {
            await inbox.stop()
            await twilio.stop()
            await smtp.stop()
            throw error
        }
        await inbox.stop()
        await twilio.stop()
        await smtp.stop()
    }

    private static func scenario(database: TestDatabase, chromium: String, smtp: SMTPTestServer, twilio: FakeTwilio,
                                 inbox: FakeInbox) async throws {
        // The SAML IdP dates its response by the wall clock: the server's runs with it.
        try await FederatedProviders.withServer(database: database, clock: .running(), configure: { configuration in
            configuration.delivery.email = .smtp(smtp.configuration(from: "noreply@flint.test"))
            configuration.delivery.sms = twilio.provider()
        }) { server, providers in
            let client = TestClient(server)
            let key = try await server.server.serviceAccounts.create(projectID: server.projectID)
            let bearer = try key.signedJWT(audience: "https://identitytoolkit.googleapis.com/", now: server.clock.seconds)
            let fixture = ProviderFixture(server: server, client: client, admin: ["Authorization": "Bearer \(bearer)"])
            let origin = "http://localhost:\(server.port)"
            _ = try await server.server.configurePasskeys(server.projectID, PasskeyConfig(rpId: "localhost", expectedOrigins: [origin]))
            _ = try await server.server.projects.updateSettings(server.projectID) { settings in
                settings.multiFactor.enabled = true
                settings.multiFactor.phone = true
                // Real work, kept small: the page solves it in Chromium.
                settings.phone.proofOfWorkBits = 6
            }
            let (clientID, secret) = try await fixture.register([
                "displayName": "Dashboard", "redirectUris": [.string(redirectURI)], "firstParty": true,
            ])
            // A tenant, its own client: its page's phone sign-in works in the tenant.
            let tenant = try await client.post("/v2/projects/\(server.projectID)/tenants", ["displayName": "Acme"], headers: fixture.admin)
            let tenantID = try #require(tenant.string("name")?.split(separator: "/").last.map(String.init), "\(tenant.body)")
            let tenantClient = try await client.post("/v2/projects/\(server.projectID)/tenants/\(tenantID)/oauthClients", [
                "displayName": "Acme dashboard", "redirectUris": [.string(redirectURI)], "firstParty": true,
            ], headers: fixture.admin)
            let tenantClientID = try #require(tenantClient.string("clientId"), "\(tenantClient.body)")
            let tenantSecret = tenantClient.string("clientSecret")
            var states = 0
            /// A new authorization request at `localhost`, its own state and nonce.
            func authorize(scope: String = "openid email", tenant: String? = nil) -> (url: String, state: String, nonce: String) {
                states += 1
                let (state, nonce) = ("state-\(states)", "nonce-\(states)")
                let issuerPath = "/" + server.projectID + (tenant.map { "/tenants/\($0)" } ?? "")
                let url = origin + issuerPath + "/authorize?" + FormURLEncoding.encode([
                    ("response_type", "code"), ("client_id", tenant == nil ? clientID : tenantClientID), ("redirect_uri", redirectURI), ("scope", scope),
                    ("state", state), ("nonce", nonce), ("code_challenge", ProviderFixture.challenge),
                    ("code_challenge_method", "S256"), ("prompt", "login"),
                ])
                return (url, state, nonce)
            }

            // The accounts the steps sign in to: a password with two SMS second factors (the page asks which), and one
            // for the passkey.
            let mfaEmail = "sms.\(database)@example.com", mfaPhone = "+15555550142", password = "correct-horse-7"
            let mfaUser = try #require(try await client.signUp(email: mfaEmail, password: password).string("localId"))
            let enrolled = try await client.post("/v1/projects/\(server.projectID)/accounts:update", [
                "localId": .string(mfaUser), "emailVerified": true, "mfa": ["enrollments": [["phoneInfo": "+15555550143"], ["phoneInfo": .string(mfaPhone)]]],
            ], headers: fixture.admin)
            #expect(enrolled.status == 200, "\(enrolled.body)")
            let passkeyEmail = "key.\(database)@example.com"
            let passkeyUser = try await client.signUp(email: passkeyEmail, password: password)
            let passkeyUID = try #require(passkeyUser.string("localId"))
            providers.google.codeGrants.browserUser.withLockedValue { $0 = (subject: "g-\(database)", email: "grace.\(database)@gmail.example") }

            let linkEmail = "link.\(database)@example.com", phone = "+15555550177", tenantPhone = "+15555550188"
            let passkeyToken = try #require(passkeyUser.string("idToken"))
            let requests = (link: authorize(), phone: authorize(scope: "openid phone"), mfa: authorize(), passkey: authorize(),
                            google: authorize(), autofill: authorize(), tenant: authorize(scope: "openid phone", tenant: tenantID), saml: authorize())
            let run = try await BrowserDriver.run("oauth_signin_browser.py", chromium: chromium, environment: [
                "FLINT_PLAN": String(decoding: try JSONEncoder().encode(JSONValue.array([
                    ["name": "email link", "kind": "email_link", "url": .string(requests.link.url), "email": .string(linkEmail)],
                    ["name": "phone", "kind": "phone", "url": .string(requests.phone.url), "phone": .string(phone)],
                    ["name": "sms factor", "kind": "sign_in", "url": .string(requests.mfa.url), "email": .string(mfaEmail),
                     "password": .string(password), "sms_to": .string(mfaPhone)],
                    ["name": "google", "kind": "provider", "url": .string(requests.google.url), "provider": "google.com"],
                    ["name": "passkey", "kind": "passkey", "url": .string(requests.passkey.url), "id_token": .string(passkeyToken)],
                    ["name": "passkey autofill", "kind": "passkey", "url": .string(requests.autofill.url),
                     "id_token": .string(passkeyToken), "autofill": true],
                    ["name": "tenant phone", "kind": "phone", "url": .string(requests.tenant.url), "phone": .string(tenantPhone)],
                    ["name": "saml", "kind": "saml", "url": .string(requests.saml.url), "provider": "saml.acme",
                     "name_id": "Grace@Acme.test"],
                ])), as: UTF8.self),
                "FLINT_REDIRECT_URI": redirectURI, "FLINT_INBOX": inbox.url, "FLINT_API_KEY": server.apiKey,
                "FLINT_PROJECT": server.projectID, "FLINT_ADMIN_AUTHORIZATION": "Bearer \(bearer)",
            ], timeoutSeconds: 120)
            let navigations = BrowserDriver.urls(run)
            let diagnostics = BrowserDriver.diagnostics(run)
            #expect(run["error"] == nil, "\(diagnostics)")
            let steps = run["steps"]?.arrayValue ?? []
            #expect(steps.count == 8, "\(diagnostics)")

            /// The step's code at the redirect URI, exchanged for an ID token; its claims.
            func idClaims(_ index: Int, _ request: (url: String, state: String, nonce: String),
                          tenant: String? = nil) async throws -> [String: JSONValue] {
                let query = index < steps.count ? steps[index]["callback"]?["query"] : nil
                let issuer = fixture.issuer + (tenant.map { "/tenants/\($0)" } ?? "")
                #expect(query?["state"]?.stringValue == request.state && query?["iss"]?.stringValue == issuer, "\(diagnostics)")
                let code = try #require(query?["code"]?.stringValue, "\(diagnostics)")
                let tokens = try await fixture.tokenCall(
                    [("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirectURI),
                     ("code_verifier", ProviderFixture.verifier)],
                    clientID: tenant == nil ? clientID : tenantClientID, secret: tenant == nil ? secret : tenantSecret,
                    endpoint: (tenant.map { "/tenants/\($0)" } ?? "") + "/token")
                #expect(tokens.status == 200, "\(tokens.body)")
                let claims = ProviderFixture.claims(try #require(tokens.json["id_token"]?.stringValue, "\(tokens.body)"))
                #expect(claims["iss"]?.stringValue == issuer && claims["nonce"]?.stringValue == request.nonce, "\(claims)")
                return claims
            }

            // The email link: one mail, whose link brought the browser back to the page, which finished it.
            #expect(steps.first?["sent"]?["error"] == "", "\(diagnostics)")
            #expect(steps.first?["link"]?.stringValue?.contains("oobCode") == true, "\(diagnostics)")
            let linked = try await idClaims(0, requests.link)
            #expect(linked["email"]?.stringValue == linkEmail && linked["email_verified"] == .bool(true), "\(linked)")

            // The phone: an SMS to the number, after the page's proof of work.
            let phoned = try await idClaims(1, requests.phone)
            #expect(phoned["phone_number"]?.stringValue == phone && phoned["amr"] == ["sms"], "\(phoned)")
            #expect(twilio.messages.all.filter { $0.to == phone }.count == 1, "\(twilio.messages.all)")

            // The password, then the code sent to the enrolled number.
            #expect(steps.count > 2 && steps[2]["choices"] == ["Text a code to +*******0143", "Text a code to +*******0142"],
                    "\(diagnostics)")
            #expect(steps.count > 2 && steps[2]["second_factor"]?["focused"] == "code", "\(diagnostics)")
            #expect(steps.count > 2 && steps[2]["second_factor"]?["navigations"] == [], "\(diagnostics)")
            let twoFactors = try await idClaims(2, requests.mfa)
            #expect(twoFactors["sub"]?.stringValue == mfaUser, "\(twoFactors)")
            #expect(twoFactors["acr"]?.stringValue == AuthenticationLevel.multiFactor.rawValue, "\(twoFactors)")
            #expect(twoFactors["amr"] == ["pwd", "sms", "mfa"], "\(twoFactors)")
            #expect(twilio.messages.all.filter { $0.to == mfaPhone }.count == 1, "\(twilio.messages.all)")

            // Google, through the hosted handler and back to the page.
            #expect(navigations.contains { $0.contains("/o/oauth2/v2/auth?") }, "\(diagnostics)")
            let google = try await idClaims(3, requests.google)
            #expect(google["email"]?.stringValue == "grace.\(database)@gmail.example" && google["amr"] == ["fed"], "\(google)")

            // The tenant's phone sign-in: the account is the tenant's.
            let tenantPhoned = try await idClaims(6, requests.tenant, tenant: tenantID)
            #expect(tenantPhoned["phone_number"]?.stringValue == tenantPhone && tenantPhoned["tenant"]?.stringValue == tenantID,
                    "\(tenantPhoned)")

            // SAML: one signed AuthnRequest to the IdP, its response back through the hosted handler.
            let samlRequests = run["saml_requests"]?.arrayValue ?? []
            #expect(samlRequests.count == 1 && samlRequests.first?["signature_verified"] == true, "\(diagnostics)")
            let saml = try await idClaims(7, requests.saml)
            #expect(saml["email"]?.stringValue == "grace@acme.test" && saml["amr"] == ["fed"], "\(saml)")

            // The passkey: enrolled from the origin, then the page's button; again, then the username field's autofill.
            for (index, request) in [(4, requests.passkey), (5, requests.autofill)] {
                #expect(steps.count > index && steps[index]["enrolled"] == 200, "\(diagnostics)")
                let passkey = try await idClaims(index, request)
                #expect(passkey["sub"]?.stringValue == passkeyUID && passkey["amr"] == ["hwk", "user"], "\(passkey)")
            }
        }
    }
}
