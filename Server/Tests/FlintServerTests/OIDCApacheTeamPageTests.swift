import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
import Testing

/// Apache's mod_auth_openidc (Debian's libapache2-mod-auth-openidc) protecting a location of a loopback Apache whose
/// project signs users in on the team's own page (`oauthServer.signInPageURL`), not Flint's: a static page with a
/// script (Tests/python/oidc_team_sign_in.html) that the same Apache serves outside the protected location, calling
/// Flint's REST API cross-origin. Headless Chromium as the user (Tests/python/oidc_apache_team_page_browser.py):
/// the module's authorization request, Flint's redirect to the team's page, sign-up there (`accounts:signUp`),
/// `authorizations:get` and `:approve`, the protected page showing the claims the module passes on; then the module's
/// logout through Flint's end-session endpoint, the protected page asking to sign in on the team's page again, and
/// a sign-in there (`accounts:signInWithPassword`) bringing the same user back.
@Suite struct OIDCApacheTeamPageTests {
    private static let page = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("python/oidc_team_sign_in.html")

    @Test func modAuthOpenIDCSignsInThroughTheTeamsOwnPageAndLogsOut() async throws {
        let chromium = try #require(
            Chromium.executable(),
            "chromium is not installed: scripts/test.sh installs Debian's chromium package (apt-get install -y chromium)")
        // mod_auth_openidc checks iat and exp by the wall clock: the server's runs with it.
        try await withServer(emulator: false, clock: .running()) { server, client in
            let key = try await server.server.serviceAccounts.create(projectID: server.projectID)
            let bearer = try key.signedJWT(audience: "https://identitytoolkit.googleapis.com/", now: server.clock.seconds)
            let fixture = ProviderFixture(server: server, client: client, admin: ["Authorization": "Bearer \(bearer)"])
            let flint = server.baseURL.absoluteString
            // The page's configuration, as a Firebase web app's: Flint's address and the project's API key.
            let configuration = try JSONEncoder().encode(["apiURL": flint, "apiKey": server.apiKey])
            let pages = [
                "team/signin.html": try String(contentsOf: Self.page, encoding: .utf8),
                "team/config.js": "window.flintConfig = \(String(decoding: configuration, as: UTF8.self));\n",
            ]

            try await OIDCApacheTests.withApache(fixture, name: "Intranet", pages: pages) { intranet, registered in
                let site = OIDCApacheTests.origin(intranet)
                let teamPage = site + "/team/signin.html"
                _ = try await server.server.projects.updateSettings(server.projectID) {
                    $0.oauthServer = OAuthServerSettings(signInPageURL: teamPage)
                }
                let email = "ada@example.com"
                let run = try await BrowserDriver.run("oidc_apache_team_page_browser.py", chromium: chromium, environment: [
                    "FLINT_EMAIL": email, "FLINT_PASSWORD": "correct-horse-8", "FLINT_SITE": site, "FLINT_TEAM_PAGE": teamPage,
                ], timeoutSeconds: 90)
                let navigations = BrowserDriver.urls(run)
                let fetches = (run["fetches"]?.arrayValue ?? []).compactMap { fetch in
                    fetch["url"]?.stringValue.map { "\(fetch["method"]?.stringValue ?? "GET") \($0)" }
                }
                let diagnostics = BrowserDriver.diagnostics(run, extra: [
                    "fetches: \(fetches.joined(separator: "\n  "))", "Intranet's error log: \(intranet.errorLog().suffix(4000))",
                ])
                #expect(run["error"] == nil, "\(diagnostics)")
                let steps = try #require(run["steps"]?.objectValue, "\(diagnostics)")

                // The module sent the browser to Flint's authorization endpoint with PKCE S256, and Flint sent it to
                // the team's page (never its own pages) with the authorization's ID.
                let authorize = try #require(navigations.first { $0.hasPrefix(fixture.issuer + "/authorize?") }, "\(diagnostics)")
                let request = OIDCApacheTests.query(authorize)
                #expect(request["code_challenge_method"] == "S256" && request["code_challenge"] != nil, "\(authorize)")
                #expect(request["client_id"] == registered.id && request["scope"] == "openid email profile", "\(authorize)")
                let teamVisits = navigations.filter { $0.hasPrefix(teamPage + "?authorization_id=") }
                #expect(teamVisits.count == 2, "\(diagnostics)")
                #expect(Set(teamVisits.compactMap { OIDCApacheTests.query($0)["authorization_id"] }).count == 2, "\(diagnostics)")
                #expect(!navigations.contains { $0.hasPrefix(flint + "/__/oauth/") }, "\(diagnostics)")

                // The team's page read the authorization (v2/oauth/authorizations:get) and showed it, with labelled fields.
                let shown = steps["team_page"]
                #expect(shown?["heading"]?.stringValue == "Sign in to Intranet", "\(diagnostics)")
                #expect(Set((shown?["scopes"]?.arrayValue ?? []).compactMap(\.stringValue)) == ["openid", "email", "profile"],
                        "\(diagnostics)")
                let labels = (shown?["labels"]?.arrayValue ?? []).compactMap { $0.arrayValue?.compactMap(\.stringValue) }
                #expect(labels == [["email", "Email"], ["password", "Password"]], "\(diagnostics)")

                // Every call it made was a cross-origin POST to Flint's REST API with the API key, in this order.
                #expect(fetches.allSatisfy { $0.hasPrefix("POST " + flint + "/") && $0.hasSuffix("?key=" + server.apiKey) },
                        "\(diagnostics)")
                let calls = fetches.compactMap { URLComponents(string: String($0.dropFirst("POST ".count)))?.path }
                #expect(calls == [
                    "/v2/oauth/authorizations:get", "/v1/accounts:signUp", "/v2/oauth/authorizations:approve",
                    "/v2/oauth/authorizations:get", "/v1/accounts:signInWithPassword", "/v2/oauth/authorizations:approve",
                ], "\(diagnostics)")

                // The approval's redirect: the module's redirect URI with the code and iss (RFC 9207).
                let callback = try #require(navigations.first { $0.hasPrefix(registered.redirectURI + "?") }, "\(diagnostics)")
                #expect(OIDCApacheTests.query(callback)["iss"] == fixture.issuer && OIDCApacheTests.query(callback)["code"] != nil,
                        "\(callback)")

                // The protected page shows the user's claims, as the module read them from Flint's ID token.
                let claims = steps["page"]?["claims"]
                #expect(claims?["app"] == "Intranet", "\(diagnostics)")
                #expect(claims?["email"]?.stringValue == email && claims?["remote_user"]?.stringValue == email, "\(diagnostics)")
                #expect(claims?["iss"]?.stringValue == fixture.issuer && claims?["aud"]?.stringValue == registered.id,
                        "\(diagnostics)")
                let sub = try #require(claims?["sub"]?.stringValue, "\(diagnostics)")
                #expect(!sub.isEmpty, "\(diagnostics)")

                // The logout went through Flint's end-session endpoint with the ID token and the registered post-logout
                // URI, and ended on the site's signed-out page.
                let logout = try #require(navigations.first { $0.hasPrefix(fixture.issuer + "/logout?") }, "\(diagnostics)")
                #expect(OIDCApacheTests.query(logout)["id_token_hint"] != nil, "\(logout)")
                #expect(OIDCApacheTests.query(logout)["post_logout_redirect_uri"] == site + "/loggedout.html", "\(logout)")
                #expect(steps["logged_out"]?["url"]?.stringValue == site + "/loggedout.html", "\(diagnostics)")

                // Both sessions are over: the protected page sends the browser through Flint to the team's page again.
                #expect(steps["after_logout"]?["url"]?.stringValue?.hasPrefix(teamPage + "?authorization_id=") == true,
                        "\(diagnostics)")

                // Signing in there with the same account brings the protected page back, for the same user.
                let again = steps["page_again"]?["claims"]
                #expect(again?["email"]?.stringValue == email && again?["sub"]?.stringValue == sub, "\(diagnostics)")
            }
        }
    }
}
