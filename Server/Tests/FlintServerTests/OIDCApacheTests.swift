import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
import Testing

/// Apache's mod_auth_openidc (Debian's libapache2-mod-auth-openidc), a relying party nobody here wrote, protecting a
/// location on two loopback Apaches, each its own registered client, with headless Chromium as the user
/// (Tests/python/oidc_apache_browser.py): sign-up on Flint's hosted sign-in page and consent, the protected page showing
/// the claims the module passes on; single sign-on to the second client (a consent page only); the first client's
/// logout through Flint's end-session endpoint; then `prompt=none` for the second answering `login_required`, and the
/// first client's page asking to sign in again.
@Suite struct OIDCApacheTests {
    @Test func modAuthOpenIDCSignsInThroughFlintsPagesWithSingleSignOnAndLogout() async throws {
        let chromium = try #require(
            Chromium.executable(),
            "chromium is not installed: scripts/test.sh installs Debian's chromium package (apt-get install -y chromium)")
        // mod_auth_openidc checks iat and exp by the wall clock: the server's runs with it.
        try await withServer(emulator: false, clock: .running()) { server, client in
            let key = try await server.server.serviceAccounts.create(projectID: server.projectID)
            let bearer = try key.signedJWT(audience: "https://identitytoolkit.googleapis.com/", now: server.clock.seconds)
            let fixture = ProviderFixture(server: server, client: client, admin: ["Authorization": "Bearer \(bearer)"])
            #expect(fixture.issuer.hasPrefix("http://127.0.0.1:"), "\(fixture.issuer)")

            try await Self.withApache(fixture, name: "Intranet") { intranet, _ in
                try await Self.withApache(fixture, name: "Wiki") { wiki, wikiClient in
                    let email = "grace@example.com"
                    let silent = fixture.authorizeURL(clientID: wikiClient.id, redirectURI: wikiClient.redirectURI,
                                                      scope: "openid email", extra: [("prompt", "none")])
                    let run = try await BrowserDriver.run("oidc_apache_browser.py", chromium: chromium, environment: [
                        "FLINT_ISSUER": fixture.issuer, "FLINT_EMAIL": email, "FLINT_PASSWORD": "correct-horse-7",
                        "FLINT_A": Self.origin(intranet), "FLINT_B": Self.origin(wiki), "FLINT_SILENT_B": silent,
                    ], timeoutSeconds: 90)
                    let navigations = BrowserDriver.urls(run)
                    let diagnostics = BrowserDriver.diagnostics(run, extra: [
                        "Intranet's error log: \(intranet.errorLog().suffix(4000))", "Wiki's error log: \(wiki.errorLog().suffix(4000))",
                    ])
                    #expect(run["error"] == nil, "\(diagnostics)")
                    let steps = try #require(run["steps"]?.objectValue, "\(diagnostics)")

                    // The first visit: the module sent the browser to Flint's authorization endpoint with PKCE S256,
                    // Flint sent it to its sign-in page, then its consent page, then back to the module with the code.
                    let authorize = try #require(navigations.first { $0.hasPrefix(fixture.issuer + "/authorize?") }, "\(diagnostics)")
                    let request = Self.query(authorize)
                    #expect(request["code_challenge_method"] == "S256" && request["code_challenge"] != nil, "\(authorize)")
                    #expect(request["response_type"] == "code" && request["scope"] == "openid email profile", "\(authorize)")
                    #expect(steps["sign_in_page"]?["url"]?.stringValue == server.baseURL.absoluteString + "/__/oauth/signin")
                    #expect(steps["consent_a"]?["heading"]?.stringValue?.contains("Intranet") == true, "\(diagnostics)")
                    #expect(steps["consent_a"]?["account"]?.stringValue?.contains(email) == true, "\(diagnostics)")
                    let callback = try #require(navigations.first { $0.hasPrefix(Self.origin(intranet) + "/protected/redirect_uri?") })
                    #expect(Self.query(callback)["iss"] == fixture.issuer && Self.query(callback)["code"] != nil, "\(callback)")

                    // The protected page shows the user's claims, as the module read them from Flint's ID token.
                    let pageA = steps["page_a"]?["claims"]
                    #expect(pageA?["app"] == "Intranet", "\(diagnostics)")
                    #expect(pageA?["email"]?.stringValue == email, "\(diagnostics)")
                    #expect(pageA?["remote_user"]?.stringValue == email, "\(diagnostics)")
                    #expect(pageA?["iss"]?.stringValue == fixture.issuer, "\(diagnostics)")
                    #expect(pageA?["sub"]?.stringValue?.isEmpty == false, "\(diagnostics)")

                    // Single sign-on: the second client got a consent page only, then the same user.
                    #expect(steps["b_asked_to_sign_in"] == false, "\(diagnostics)")
                    #expect(steps["consent_b"]?["heading"]?.stringValue?.contains("Wiki") == true, "\(diagnostics)")
                    let pageB = steps["page_b"]?["claims"]
                    #expect(pageB?["app"] == "Wiki" && pageB?["email"]?.stringValue == email, "\(diagnostics)")
                    #expect(pageB?["sub"] == pageA?["sub"] && pageB?["aud"]?.stringValue == wikiClient.id, "\(diagnostics)")

                    // The logout went through Flint's end-session endpoint with the ID token and a registered
                    // post-logout URI, and ended on the first site's signed-out page.
                    let logout = try #require(navigations.first { $0.hasPrefix(fixture.issuer + "/logout?") }, "\(diagnostics)")
                    #expect(Self.query(logout)["id_token_hint"] != nil, "\(logout)")
                    #expect(Self.query(logout)["post_logout_redirect_uri"] == Self.origin(intranet) + "/loggedout.html", "\(logout)")
                    #expect(steps["logged_out"]?["url"]?.stringValue == Self.origin(intranet) + "/loggedout.html", "\(diagnostics)")

                    // Flint's session is over: prompt=none answers the second client login_required, with its state and iss.
                    let silentAnswer = steps["silent_b"]?["query"]
                    #expect(silentAnswer?["error"] == "login_required", "\(diagnostics)")
                    #expect(silentAnswer?["state"] == "state-1" && silentAnswer?["iss"]?.stringValue == fixture.issuer, "\(diagnostics)")
                    #expect(silentAnswer?["code"] == nil, "\(diagnostics)")

                    // And the module's session is over: the first site's page asks to sign in again.
                    #expect(steps["after_logout_a"]?["url"]?.stringValue?.hasPrefix(
                        server.baseURL.absoluteString + "/__/oauth/signin?authorization_id=") == true, "\(diagnostics)")
                }
            }
        }
    }

    /// Starts an Apache protecting `/protected/` with mod_auth_openidc as a client registered for its port (serving
    /// `pages` too, unprotected), runs `body`, and stops the Apache however `body` ends.
    static func withApache(_ fixture: ProviderFixture, name: String, pages: [String: String] = [:],
                           _ body: (Apache, (id: String, redirectURI: String)) async throws -> Void) async throws {
        var registered: (id: String, redirectURI: String)?
        let apache = try await Apache.openIDConnect(pages: [
            "protected/index.shtml": """
                <!doctype html><title>\(name)</title>
                <p id="app">\(name)</p>
                <p id="email"><!--#echo var="OIDC_CLAIM_email" --></p>
                <p id="email-verified"><!--#echo var="OIDC_CLAIM_email_verified" --></p>
                <p id="sub"><!--#echo var="OIDC_CLAIM_sub" --></p>
                <p id="iss"><!--#echo var="OIDC_CLAIM_iss" --></p>
                <p id="aud"><!--#echo var="OIDC_CLAIM_aud" --></p>
                <p id="remote-user"><!--#echo var="REMOTE_USER" --></p>

                """,
            "loggedout.html": "<!doctype html><title>\(name)</title><h1 id=\"logged-out\">Signed out of \(name)</h1>\n",
        ].merging(pages) { _, page in page }) { port in
            let origin = "http://127.0.0.1:\(port)"
            let redirectURI = origin + "/protected/redirect_uri"
            let (id, secret) = try await fixture.register([
                "displayName": .string(name), "redirectUris": [.string(redirectURI)],
                "postLogoutRedirectUris": [.string(origin + "/loggedout.html")],
            ])
            registered = (id, redirectURI)
            let passphrase = Base64URL.encode(Data((0..<32).map { _ in UInt8.random(in: 0...255) }))
            return """
                LogLevel warn auth_openidc:debug
                OIDCProviderMetadataURL \(fixture.issuer)/.well-known/openid-configuration
                OIDCClientID \(id)
                OIDCClientSecret \(try #require(secret))
                OIDCRedirectURI \(redirectURI)
                OIDCCryptoPassphrase \(passphrase)
                OIDCScope "openid email profile"
                OIDCPKCEMethod S256
                OIDCProviderTokenEndpointAuth client_secret_basic
                OIDCCacheType shm
                OIDCSessionType server-cache
                OIDCCookie flint_oidc_\(name.lowercased())
                OIDCRemoteUserClaim email
                OIDCDefaultLoggedOutURL \(origin)/loggedout.html
                AddOutputFilter INCLUDES .shtml
                <Location /protected>
                    AuthType openid-connect
                    Require valid-user
                    Options +Includes
                </Location>
                """
        }
        do {
            try await body(apache, try #require(registered))
        } catch {
            await apache.stop()
            throw error
        }
        await apache.stop()
    }

    static func origin(_ apache: Apache) -> String { "http://127.0.0.1:\(apache.port)" }

    static func query(_ url: String) -> [String: String] {
        var fields: [String: String] = [:]
        // Form-decoded: + is a space.
        for item in URLComponents(string: url.replacingOccurrences(of: "+", with: "%20"))?.queryItems ?? [] { fields[item.name] = item.value ?? "" }
        return fields
    }
}
