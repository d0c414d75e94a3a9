import Crypto
import FlintServer
import FlintTestSupport
import FlintWire
import AsyncHTTPClient
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import Testing

/// A browser for the provider's flows: its own cookie jar (by name; a cleared cookie leaves it), redirects returned
/// rather than followed, a 401 read as an answer (AsyncHTTPClient, which neither follows nor meets challenges here).
final class CookieBrowser: Sendable {
    private let cookies = NIOLockedValueBox([String: String]())

    /// One client for every browser; each keeps its own cookies.
    private static let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(redirectConfiguration: .disallow))

    /// The value of a cookie the browser holds.
    func cookie(_ name: String) -> String? { cookies.withLockedValue { $0[name] } }

    struct Answer {
        let status: Int
        let headers: [String: String]
        let body: String
        var location: URLComponents? { headers["location"].flatMap(URLComponents.init(string:)) }
        func query(_ name: String) -> String? { location?.queryItems?.first { $0.name == name }?.value }
        var json: JSONValue { (try? JSONDecoder().decode(JSONValue.self, from: Data(body.utf8))) ?? .null }
    }

    func send(_ method: String, _ url: String, form: [(String, String)]? = nil, json: JSONValue? = nil,
              headers: [String: String] = [:]) async throws -> Answer {
        var request = HTTPClientRequest(url: url)
        request.method = HTTPMethod(rawValue: method)
        if let form {
            request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
            request.body = .bytes(ByteBuffer(string: FormURLEncoding.encode(form)))
        }
        if let json {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(data: try JSONEncoder().encode(json)))
        }
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        let jar = cookies.withLockedValue { $0 }
        if !jar.isEmpty { request.headers.add(name: "Cookie", value: jar.map { "\($0.key)=\($0.value)" }.joined(separator: "; ")) }
        let response = try await Self.http.execute(request, timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 1 << 20)
        var answerHeaders: [String: String] = [:]
        for header in response.headers { answerHeaders[header.name.lowercased()] = header.value }
        for setCookie in response.headers["set-cookie"] {
            let pair = setCookie.split(separator: ";", maxSplits: 1).first ?? ""
            guard let equals = pair.firstIndex(of: "=") else { continue }
            let (name, value) = (String(pair[..<equals]), String(pair[pair.index(after: equals)...]))
            let cleared = value.isEmpty || setCookie.lowercased().contains("max-age=0")
            cookies.withLockedValue { $0[name] = cleared ? nil : value }
        }
        return Answer(status: Int(response.status.code), headers: answerHeaders, body: String(buffer: body))
    }
}

/// A production server with a provider client, and the steps of a sign-in through it.
struct ProviderFixture {
    let server: TestServer
    let client: TestClient
    let admin: [String: String]
    var issuer: String { server.baseURL.absoluteString + "/" + server.projectID }

    static func with(database: TestDatabase = .sqlite, configure: (inout ServerConfiguration) -> Void = { _ in },
                     _ body: (ProviderFixture) async throws -> Void) async throws {
        try await withServer(emulator: false, database: database, configure: configure) { server, client in
            let key = try await server.server.serviceAccounts.create(projectID: server.projectID)
            let bearer = try key.signedJWT(audience: "https://identitytoolkit.googleapis.com/", now: server.clock.seconds)
            try await body(ProviderFixture(server: server, client: client, admin: ["Authorization": "Bearer \(bearer)"]))
        }
    }

    /// Registers a client through the admin API; returns its ID and secret (nil for a public client).
    func register(_ fields: [String: JSONValue]) async throws -> (id: String, secret: String?) {
        let created = try await client.post("/v2/projects/\(server.projectID)/oauthClients", fields, headers: admin)
        #expect(created.status == 200, "\(created.body)")
        return (try #require(created.string("clientId")), created.string("clientSecret"))
    }

    static let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk-verifier"
    static var challenge: String { Base64URL.encode(Data(SHA256.hash(data: Data(verifier.utf8)))) }

    func authorizeURL(clientID: String, redirectURI: String = "http://127.0.0.1:4567/callback", scope: String = "openid email",
                      extra: [(String, String)] = []) -> String {
        issuer + "/authorize?" + FormURLEncoding.encode([
            ("response_type", "code"), ("client_id", clientID), ("redirect_uri", redirectURI), ("scope", scope),
            ("state", "state-1"), ("nonce", "nonce-1"), ("code_challenge", Self.challenge), ("code_challenge_method", "S256"),
        ] + extra)
    }

    /// Signs `email` in on Flint's page as its script would (the REST call, then the session endpoint); returns where the
    /// page sends the browser next.
    func signInOnPage(_ browser: CookieBrowser, signInPage: String, email: String, password: String = "secret-pass-1",
                      signUp: Bool = true) async throws -> String {
        let page = try await browser.send("GET", server.baseURL.absoluteString + signInPage)
        #expect(page.status == 200, "\(page.body)")
        #expect(page.body.contains("autocomplete=\"current-password\""))
        let configuration = try Self.pageConfiguration(page.body)
        let reply = signUp ? try await client.signUp(email: email, password: password)
            : try await client.post("/v1/accounts:signInWithPassword", ["email": .string(email), "password": .string(password),
                                                                        "returnSecureToken": true])
        let session = try await browser.send("POST", server.baseURL.absoluteString + "/__/oauth/session", json: [
            "authorizationId": configuration["authorizationId"] ?? .null, "idToken": reply["idToken"] ?? .null,
            "formToken": configuration["formToken"] ?? .null,
        ])
        #expect(session.status == 200, "\(session.body)")
        return try #require(session.json["location"]?.stringValue)
    }

    /// The `form_token` of a page's form.
    static func formToken(in html: String) throws -> String {
        String(html[try #require(html.range(of: "name=\"form_token\" value=\"")).upperBound...].prefix { $0 != "\"" })
    }

    /// The sign-in page's configuration block.
    static func pageConfiguration(_ html: String) throws -> [String: JSONValue] {
        let start = try #require(html.range(of: "<script type=\"application/json\" id=\"flint-config\">"))
        let end = try #require(html.range(of: "</script>", range: start.upperBound..<html.endIndex))
        return try #require(try JSONDecoder().decode(JSONValue.self, from: Data(html[start.upperBound..<end.lowerBound].utf8)).objectValue)
    }

    /// Exchanges a code at the token endpoint with the client's secret in a Basic header (or as a public client).
    func exchange(_ code: String, clientID: String, secret: String?, verifier: String = verifier,
                  redirectURI: String = "http://127.0.0.1:4567/callback") async throws -> CookieBrowser.Answer {
        try await tokenCall([("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirectURI),
                             ("code_verifier", verifier)], clientID: clientID, secret: secret)
    }

    func tokenCall(_ form: [(String, String)], clientID: String, secret: String?, endpoint: String = "/token")
        async throws -> CookieBrowser.Answer {
        var headers: [String: String] = [:]
        var fields = form
        if let secret {
            headers["Authorization"] = "Basic " + Data("\(clientID):\(secret)".utf8).base64EncodedString()
        } else {
            fields.append(("client_id", clientID))
        }
        return try await CookieBrowser().send("POST", issuer + endpoint, form: fields, headers: headers)
    }

    /// The claims of a JWT, unverified.
    static func claims(_ token: String) -> [String: JSONValue] {
        let parts = token.split(separator: ".")
        guard parts.count == 3, let data = Base64URL.decode(parts[1]) else { return [:] }
        return (try? JSONDecoder().decode(JSONValue.self, from: data))?.objectValue ?? [:]
    }

    static func header(_ token: String) -> [String: JSONValue] {
        guard let first = token.split(separator: ".").first, let data = Base64URL.decode(first) else { return [:] }
        return (try? JSONDecoder().decode(JSONValue.self, from: data))?.objectValue ?? [:]
    }
}

@Suite struct OAuthServerTests {
    @Test func discoveryIsServedAtEveryAddressAndEveryURLInItAnswers() async throws {
        try await ProviderFixture.with { fixture in
            let base = fixture.server.baseURL.absoluteString
            let project = fixture.server.projectID
            var documents: [JSONValue] = []
            for path in ["/\(project)/.well-known/openid-configuration", "/.well-known/oauth-authorization-server/\(project)",
                         "/\(project)/.well-known/oauth-authorization-server", "/.well-known/openid-configuration/\(project)"] {
                let answer = try await CookieBrowser().send("GET", base + path)
                #expect(answer.status == 200, "\(path): \(answer.body)")
                documents.append(answer.json)
            }
            #expect(documents.allSatisfy { $0 == documents[0] })
            let document = try #require(documents.first)
            #expect(document["issuer"]?.stringValue == fixture.issuer)
            #expect(document["code_challenge_methods_supported"] == ["S256"])
            #expect(document["authorization_response_iss_parameter_supported"] == true)
            let jwks = try await CookieBrowser().send("GET", try #require(document["jwks_uri"]?.stringValue))
            #expect(jwks.status == 200 && jwks.body.contains("\"keys\""))
            // Each endpoint answers (with an OAuth error for an empty request, not a 404).
            for name in ["token_endpoint", "revocation_endpoint", "introspection_endpoint"] {
                let answer = try await CookieBrowser().send("POST", try #require(document[name]?.stringValue), form: [("x", "y")])
                #expect(answer.status == 400 || answer.status == 401, "\(name): \(answer.status)")
                #expect(answer.json["error"]?.stringValue != nil, "\(name): \(answer.body)")
            }
            #expect(try await CookieBrowser().send("GET", try #require(document["userinfo_endpoint"]?.stringValue)).status == 401)
            #expect(try await CookieBrowser().send("GET", try #require(document["authorization_endpoint"]?.stringValue)).status == 400)
            #expect(try await CookieBrowser().send("GET", try #require(document["end_session_endpoint"]?.stringValue)).status == 200)
            // A tenant has its own issuer.
            let tenant = try await fixture.client.post("/v2/projects/\(project)/tenants", ["displayName": "Acme"], headers: fixture.admin)
            let tenantID = try #require(tenant.string("tenantId"))
            let tenantDocument = try await CookieBrowser().send("GET", base + "/.well-known/oauth-authorization-server/\(project)/tenants/\(tenantID)")
            #expect(tenantDocument.json["issuer"]?.stringValue == "\(fixture.issuer)/tenants/\(tenantID)")
            #expect(try await CookieBrowser().send("GET", base + "/\(project)/tenants/nope/.well-known/openid-configuration").status == 404)
        }
    }

    @Test func aUserSignsInConsentsAndTheClientGetsTokensThatWork() async throws {
        try await ProviderFixture.with { fixture in
            let (clientID, secret) = try await fixture.register([
                "displayName": "Dashboard", "ownerName": "Example Inc.", "redirectUris": ["http://127.0.0.1:4567/callback"],
                "postLogoutRedirectUris": ["http://127.0.0.1:4567/bye"],
            ])
            let browser = CookieBrowser()
            let start = try await browser.send("GET", fixture.authorizeURL(clientID: clientID, scope: "openid email offline_access"))
            #expect(start.status == 303, "\(start.body)")
            let signInPage = try #require(start.headers["location"])
            #expect(signInPage.hasPrefix("/__/oauth/signin?authorization_id="))
            let next = try await fixture.signInOnPage(browser, signInPage: signInPage, email: "ada@example.com")
            // A third-party client asks for consent.
            #expect(next.hasPrefix("/__/oauth/consent?authorization_id="))
            let consent = try await browser.send("GET", fixture.server.baseURL.absoluteString + next)
            #expect(consent.body.contains("<button type=\"submit\" name=\"consent\" value=\"allow\">"))
            #expect(consent.body.contains("Dashboard") && consent.body.contains("Example Inc.") && consent.body.contains("ada@example.com"))
            #expect(consent.headers["content-security-policy"]?.contains("frame-ancestors 'none'") == true)
            #expect(consent.headers["x-frame-options"] == "DENY")
            let formToken = try ProviderFixture.formToken(in: consent.body)
            let authorizationID = try #require(URLComponents(string: next)?.queryItems?.first?.value)
            let allowed = try await browser.send("POST", fixture.server.baseURL.absoluteString + "/__/oauth/consent", form: [
                ("authorization_id", authorizationID), ("form_token", formToken), ("consent", "allow"),
            ])
            #expect(allowed.status == 303)
            #expect(allowed.location?.host == "127.0.0.1" && allowed.query("state") == "state-1")
            #expect(allowed.query("iss") == fixture.issuer)
            let code = try #require(allowed.query("code"))

            let tokens = try await fixture.exchange(code, clientID: clientID, secret: secret)
            #expect(tokens.status == 200, "\(tokens.body)")
            #expect(tokens.headers["cache-control"] == "no-store")
            let accessToken = try #require(tokens.json["access_token"]?.stringValue)
            let idToken = try #require(tokens.json["id_token"]?.stringValue)
            let refreshToken = try #require(tokens.json["refresh_token"]?.stringValue)
            #expect(ProviderFixture.header(accessToken)["typ"] == "at+jwt")
            let idClaims = ProviderFixture.claims(idToken)
            #expect(idClaims["aud"]?.stringValue == clientID && idClaims["nonce"] == "nonce-1")
            #expect(idClaims["iss"]?.stringValue == fixture.issuer && idClaims["email"] == "ada@example.com")
            #expect(idClaims["at_hash"]?.stringValue == Base64URL.encode(Data(SHA256.hash(data: Data(accessToken.utf8))).prefix(16)))
            #expect(idClaims["sid"]?.stringValue != nil && idClaims["amr"] == ["pwd"] && idClaims["auth_time"] != nil)
            #expect(idClaims["firebase"] == nil)
            let accessClaims = ProviderFixture.claims(accessToken)
            #expect(accessClaims["client_id"]?.stringValue == clientID && accessClaims["scope"] == "openid email offline_access")

            // Userinfo, introspection.
            let userinfo = try await CookieBrowser().send("GET", fixture.issuer + "/userinfo", headers: ["Authorization": "Bearer \(accessToken)"])
            #expect(userinfo.status == 200 && userinfo.json["email"] == "ada@example.com", "\(userinfo.body)")
            let introspected = try await fixture.tokenCall([("token", accessToken)], clientID: clientID, secret: secret, endpoint: "/introspect")
            #expect(introspected.json["active"] == true && introspected.json["client_id"]?.stringValue == clientID)

            // The code works once: a second exchange fails and revokes what the first issued.
            let again = try await fixture.exchange(code, clientID: clientID, secret: secret)
            #expect(again.status == 400 && again.json["error"] == "invalid_grant")
            let afterReuse = try await CookieBrowser().send("GET", fixture.issuer + "/userinfo", headers: ["Authorization": "Bearer \(accessToken)"])
            #expect(afterReuse.status == 401)
            let refreshAfterReuse = try await fixture.tokenCall(
                [("grant_type", "refresh_token"), ("refresh_token", refreshToken)], clientID: clientID, secret: secret)
            #expect(refreshAfterReuse.json["error"] == "invalid_grant")

            // Single sign-on: the same browser reaches the client again without signing in, and without consent now.
            let second = try await browser.send("GET", fixture.authorizeURL(clientID: clientID, scope: "openid email"))
            #expect(second.status == 303 && second.query("code") != nil, "\(second.headers)")
            let silent = try await browser.send("GET", fixture.authorizeURL(clientID: clientID, scope: "openid", extra: [("prompt", "none")]))
            #expect(silent.query("code") != nil)

            // Logout ends the session: prompt=none then answers login_required; the logout returns only to a registered URI.
            let fresh = try await fixture.exchange(try #require(silent.query("code")), clientID: clientID, secret: secret)
            let hint = try #require(fresh.json["id_token"]?.stringValue)
            let loggedOut = try await browser.send("GET", fixture.issuer + "/logout?" + FormURLEncoding.encode([
                ("id_token_hint", hint), ("post_logout_redirect_uri", "http://127.0.0.1:4567/bye"), ("state", "s2"),
            ]))
            #expect(loggedOut.status == 303 && loggedOut.headers["location"] == "http://127.0.0.1:4567/bye?state=s2")
            let afterLogout = try await browser.send("GET", fixture.authorizeURL(clientID: clientID, extra: [("prompt", "none")]))
            #expect(afterLogout.query("error") == "login_required" && afterLogout.query("iss") == fixture.issuer)
            let openRedirect = try await browser.send("GET", fixture.issuer + "/logout?" + FormURLEncoding.encode([
                ("id_token_hint", hint), ("post_logout_redirect_uri", "https://evil.example/"),
            ]))
            #expect(openRedirect.status == 200 && openRedirect.headers["location"] == nil)
        }
    }

    @Test func aPublicClientsRefreshTokenRotatesAndAReuseRevokesTheFamily() async throws {
        try await ProviderFixture.with { fixture in
            let (clientID, secret) = try await fixture.register([
                "displayName": "CLI", "type": "PUBLIC", "redirectUris": ["http://127.0.0.1/callback"], "firstParty": true,
            ])
            #expect(secret == nil)
            let browser = CookieBrowser()
            // A loopback redirect URI registered without a port matches any port (RFC 8252).
            let redirectURI = "http://127.0.0.1:50123/callback"
            let start = try await browser.send("GET", fixture.authorizeURL(clientID: clientID, redirectURI: redirectURI))
            let next = try await fixture.signInOnPage(browser, signInPage: try #require(start.headers["location"]), email: "cli@example.com")
            // First-party: no consent page.
            let code = try #require(URLComponents(string: next)?.queryItems?.first { $0.name == "code" }?.value)
            let tokens = try await fixture.exchange(code, clientID: clientID, secret: nil, redirectURI: redirectURI)
            #expect(tokens.status == 200, "\(tokens.body)")
            let first = try #require(tokens.json["refresh_token"]?.stringValue)
            let rotated = try await fixture.tokenCall([("grant_type", "refresh_token"), ("refresh_token", first)], clientID: clientID, secret: nil)
            let second = try #require(rotated.json["refresh_token"]?.stringValue, "\(rotated.body)")
            #expect(second != first)
            // The old one used again: refused, and the whole family with it.
            let reused = try await fixture.tokenCall([("grant_type", "refresh_token"), ("refresh_token", first)], clientID: clientID, secret: nil)
            #expect(reused.json["error"] == "invalid_grant")
            let successor = try await fixture.tokenCall([("grant_type", "refresh_token"), ("refresh_token", second)], clientID: clientID, secret: nil)
            #expect(successor.json["error"] == "invalid_grant")
        }
    }

    @Test func hostileRequestsAreRefusedAndIssueNothing() async throws {
        try await ProviderFixture.with { fixture in
            let (clientID, secret) = try await fixture.register([
                "displayName": "Web", "redirectUris": ["https://app.example/callback", "http://127.0.0.1:4567/callback"],
            ])
            let (otherID, otherSecret) = try await fixture.register(["displayName": "Other", "redirectUris": ["https://other.example/cb"]])
            let browser = CookieBrowser()
            // Redirect URIs that are not exactly registered: an error page, nothing sent to them.
            for uri in ["https://app.example/callback/more", "https://app.example:8443/callback", "https://app.example/callback?x=1",
                        "http://app.example/callback", "http://127.0.0.1:4568/callback"] {
                let answer = try await browser.send("GET", fixture.authorizeURL(clientID: clientID, redirectURI: uri))
                #expect(answer.status == 400 && answer.headers["location"] == nil, "\(uri)")
            }
            // PKCE is required, S256 only; errors go back with iss and state.
            let plain = try await browser.send("GET", fixture.authorizeURL(clientID: clientID, extra: [("code_challenge_method", "plain")])
                .replacingOccurrences(of: "code_challenge_method=S256&", with: ""))
            #expect(plain.query("error") == "invalid_request" && plain.query("iss") == fixture.issuer && plain.query("state") == "state-1")
            let implicit = try await browser.send("GET", fixture.authorizeURL(clientID: clientID).replacingOccurrences(
                of: "response_type=code", with: "response_type=token"))
            #expect(implicit.query("error") == "unsupported_response_type")

            // A code for a good sign-in, then the attacks on it.
            let start = try await browser.send("GET", fixture.authorizeURL(clientID: clientID))
            let consentPath = try await fixture.signInOnPage(browser, signInPage: try #require(start.headers["location"]), email: "eve@example.com")
            let authorizationID = try #require(URLComponents(string: consentPath)?.queryItems?.first?.value)
            // A consent POST without its form token, or from another browser, is refused.
            let forged = try await browser.send("POST", fixture.server.baseURL.absoluteString + "/__/oauth/consent",
                                                form: [("authorization_id", authorizationID), ("consent", "allow")])
            #expect(forged.status == 403 && forged.headers["location"] == nil)
            let page = try await browser.send("GET", fixture.server.baseURL.absoluteString + consentPath)
            let formToken = try ProviderFixture.formToken(in: page.body)
            let elsewhere = try await CookieBrowser().send("POST", fixture.server.baseURL.absoluteString + "/__/oauth/consent",
                                                           form: [("authorization_id", authorizationID), ("form_token", formToken), ("consent", "allow")])
            #expect(elsewhere.status == 403)
            let allowed = try await browser.send("POST", fixture.server.baseURL.absoluteString + "/__/oauth/consent",
                                                 form: [("authorization_id", authorizationID), ("form_token", formToken), ("consent", "allow")])
            let code = try #require(allowed.query("code"))
            // Without the verifier, with a wrong one, by another client, with another redirect URI: refused, and the code
            // still works for its client after all of them.
            let noVerifier = try await fixture.tokenCall([("grant_type", "authorization_code"), ("code", code),
                                                          ("redirect_uri", "http://127.0.0.1:4567/callback")], clientID: clientID, secret: secret)
            #expect(noVerifier.json["error"] == "invalid_request")
            let wrongVerifier = try await fixture.exchange(code, clientID: clientID, secret: secret, verifier: String(repeating: "a", count: 43))
            #expect(wrongVerifier.json["error"] == "invalid_grant")
            let swapped = try await fixture.exchange(code, clientID: otherID, secret: otherSecret)
            #expect(swapped.json["error"] == "invalid_grant")
            let otherRedirect = try await fixture.exchange(code, clientID: clientID, secret: secret, redirectURI: "https://app.example/callback")
            #expect(otherRedirect.json["error"] == "invalid_grant")
            let badSecret = try await fixture.exchange(code, clientID: clientID, secret: "not-the-secret")
            #expect(badSecret.status == 401 && badSecret.json["error"] == "invalid_client")
            // After 60 seconds the code is gone.
            fixture.server.clock.advance(seconds: 61)
            let late = try await fixture.exchange(code, clientID: clientID, secret: secret)
            #expect(late.json["error"] == "invalid_grant")
        }
    }

    /// RFC 9207: every answer names its issuer, so a client talking to two of them (a project and its tenant here)
    /// tells which one answered; and a code works only at the issuer that gave it.
    @Test func anIssuerMixUpIsDetectedAndACodeWorksOnlyWhereItWasIssued() async throws {
        try await ProviderFixture.with { fixture in
            let project = fixture.server.projectID
            let tenant = try await fixture.client.post("/v2/projects/\(project)/tenants", ["displayName": "Acme"], headers: fixture.admin)
            let tenantID = try #require(tenant.string("name")?.split(separator: "/").last.map(String.init), "\(tenant.body)")
            let tenantIssuer = fixture.issuer + "/tenants/\(tenantID)"
            let redirect = "http://127.0.0.1:4567/callback"
            let (clientID, secret) = try await fixture.register(["displayName": "Web", "redirectUris": [.string(redirect)], "firstParty": true])
            let registered = try await fixture.client.post("/v2/projects/\(project)/tenants/\(tenantID)/oauthClients", [
                "displayName": "Web", "redirectUris": [.string(redirect)], "firstParty": true,
            ], headers: fixture.admin)
            let tenantClientID = try #require(registered.string("clientId"), "\(registered.body)")
            let tenantSecret = try #require(registered.string("clientSecret"))

            // The project's code comes back naming the project's issuer.
            let browser = CookieBrowser()
            let start = try await browser.send("GET", fixture.authorizeURL(clientID: clientID))
            let back = try await fixture.signInOnPage(browser, signInPage: try #require(start.headers["location"]), email: "mia@example.com")
            let answer = try #require(URLComponents(string: back)?.queryItems)
            #expect(answer.first { $0.name == "iss" }?.value == fixture.issuer && answer.first { $0.name == "state" }?.value == "state-1")
            let code = try #require(answer.first { $0.name == "code" }?.value)
            // The tenant's answers (here an error) name the tenant's issuer: a client expecting the project sees the mix-up.
            let tenantAnswer = try await browser.send("GET", fixture.authorizeURL(clientID: tenantClientID)
                .replacingOccurrences(of: fixture.issuer + "/authorize", with: tenantIssuer + "/authorize")
                .replacingOccurrences(of: "response_type=code", with: "response_type=token"))
            #expect(tenantAnswer.query("iss") == tenantIssuer && tenantAnswer.query("error") == "unsupported_response_type")
            // The project's code at the tenant's token endpoint: the project's client is unknown there, and the tenant's
            // client gets nothing for it.
            let form = [("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirect),
                        ("code_verifier", ProviderFixture.verifier)]
            let elsewhere = try await fixture.tokenCall(form, clientID: clientID, secret: secret, endpoint: "/tenants/\(tenantID)/token")
            #expect(elsewhere.status == 401 && elsewhere.json["error"] == "invalid_client", "\(elsewhere.body)")
            let swapped = try await fixture.tokenCall(form, clientID: tenantClientID, secret: tenantSecret,
                                                      endpoint: "/tenants/\(tenantID)/token")
            #expect(swapped.json["error"] == "invalid_grant" && swapped.json["access_token"] == nil, "\(swapped.body)")
            // At its own issuer the code still works.
            let tokens = try await fixture.tokenCall(form, clientID: clientID, secret: secret)
            #expect(tokens.status == 200 && tokens.json["access_token"] != nil, "\(tokens.body)")
        }
    }

    @Test func noKindOfTokenIsTakenForAnother() async throws {
        try await ProviderFixture.with { fixture in
            let (clientID, secret) = try await fixture.register([
                "displayName": "Web", "redirectUris": ["http://127.0.0.1:4567/callback"], "firstParty": true,
            ])
            let browser = CookieBrowser()
            let start = try await browser.send("GET", fixture.authorizeURL(clientID: clientID))
            let next = try await fixture.signInOnPage(browser, signInPage: try #require(start.headers["location"]), email: "kim@example.com")
            let code = try #require(URLComponents(string: next)?.queryItems?.first { $0.name == "code" }?.value)
            let tokens = try await fixture.exchange(code, clientID: clientID, secret: secret)
            let accessToken = try #require(tokens.json["access_token"]?.stringValue)
            let idToken = try #require(tokens.json["id_token"]?.stringValue)
            let firebaseIDToken = try #require(try await fixture.client.post(
                "/v1/accounts:signInWithPassword", ["email": "kim@example.com", "password": "secret-pass-1", "returnSecureToken": true]
            ).string("idToken"))
            // An access token or a provider ID token where Firebase expects an ID token.
            #expect(try await fixture.client.lookup(idToken: accessToken).errorCode == "INVALID_ID_TOKEN")
            #expect(try await fixture.client.lookup(idToken: idToken).errorCode == "INVALID_ID_TOKEN")
            // A Firebase ID token or a provider ID token where an access token is expected.
            for token in [firebaseIDToken, idToken] {
                let userinfo = try await CookieBrowser().send("GET", fixture.issuer + "/userinfo", headers: ["Authorization": "Bearer \(token)"])
                #expect(userinfo.status == 401 && userinfo.json["error"] == "invalid_token")
                let introspected = try await fixture.tokenCall([("token", token)], clientID: clientID, secret: secret, endpoint: "/introspect")
                #expect(introspected.json["active"] == false)
            }
            // Revocation ends the access token too.
            let revoked = try await fixture.tokenCall([("token", accessToken)], clientID: clientID, secret: secret, endpoint: "/revoke")
            #expect(revoked.status == 200)
            #expect(try await CookieBrowser().send("GET", fixture.issuer + "/userinfo", headers: ["Authorization": "Bearer \(accessToken)"]).status == 401)
        }
    }

    @Test func theClientsAdminAPIShowsTheSecretOnceAndRotatesIt() async throws {
        try await ProviderFixture.with { fixture in
            let collection = "/v2/projects/\(fixture.server.projectID)/oauthClients"
            let (clientID, secret) = try await fixture.register(["displayName": "Partner", "redirectUris": ["https://partner.example/cb"]])
            let shown = try await fixture.client.send("GET", "\(collection)/\(clientID)", headers: fixture.admin)
            #expect(shown.string("clientSecret") == nil && shown.string("name") == "projects/\(fixture.server.projectID)/oauthClients/\(clientID)")
            #expect(shown.string("tokenEndpointAuthMethod") == "client_secret_basic")
            let listed = try await fixture.client.send("GET", collection, headers: fixture.admin)
            #expect(listed["oauthClients"]?.arrayValue?.count == 1)
            let patched = try await fixture.client.send("PATCH", "\(collection)/\(clientID)?updateMask=displayName",
                                                        body: Data(#"{"displayName":"Partner Two","redirectUris":[]}"#.utf8), headers: fixture.admin)
            #expect(patched.string("displayName") == "Partner Two" && patched["redirectUris"] == ["https://partner.example/cb"])
            let rotated = try await fixture.client.send("POST", "\(collection)/\(clientID):rotateSecret", body: Data("{}".utf8), headers: fixture.admin)
            let newSecret = try #require(rotated.string("clientSecret"))
            #expect(newSecret != secret)
            // The old secret no longer authenticates.
            let old = try await fixture.tokenCall([("grant_type", "refresh_token"), ("refresh_token", "x")], clientID: clientID, secret: secret)
            #expect(old.json["error"] == "invalid_client")
            let new = try await fixture.tokenCall([("grant_type", "refresh_token"), ("refresh_token", "x")], clientID: clientID, secret: newSecret)
            #expect(new.json["error"] == "invalid_grant")
            // Bad settings are refused in Firebase's error format.
            for bad: [String: JSONValue] in [
                ["displayName": "X", "redirectUris": ["http://app.example/cb"]], ["displayName": "X", "redirectUris": ["javascript:alert(1)"]],
                ["displayName": "X", "redirectUris": ["https://a.example/cb#frag"]], ["displayName": "", "redirectUris": ["https://a.example/cb"]],
                ["displayName": "X", "redirectUris": ["https://a.example/cb"], "grantTypes": ["password"]],
            ] {
                let refused = try await fixture.client.post(collection, bad, headers: fixture.admin)
                #expect(refused.status == 400 && refused.errorCode == "INVALID_OAUTH_CLIENT", "\(bad): \(refused.body)")
            }
            #expect(try await fixture.client.post(collection, ["displayName": "X", "redirectUris": ["https://a.example/cb"]]).status == 403)
            let deleted = try await fixture.client.send("DELETE", "\(collection)/\(clientID)", headers: fixture.admin)
            #expect(deleted.status == 200)
            #expect(try await fixture.client.send("GET", "\(collection)/\(clientID)", headers: fixture.admin).errorCode == "OAUTH_CLIENT_NOT_FOUND")
        }
    }

    @Test func theProjectWritesThePagesWordsInItsOwnLanguages() async throws {
        try await ProviderFixture.with { fixture in
            let (clientID, _) = try await fixture.register(["displayName": "Dashboard", "redirectUris": ["http://127.0.0.1:4567/callback"]])
            func configure(_ pageText: String) async throws -> TestClient.Reply {
                try await fixture.client.send(
                    "PATCH", "/v2/projects/\(fixture.server.projectID)/config?updateMask=oauthServer",
                    body: Data(#"{"oauthServer":{"pageText":\#(pageText)}}"#.utf8), headers: fixture.admin)
            }
            // Unknown fields, formats without their placeholder, and what is not a language are refused.
            for bad in [#"{"de":{"nope":"x"}}"#, #"{"de":{"continueToFormat":"Weiter"}}"#, #"{"DE-ch":{"signIn":"x"}}"#,
                        #"{"de":{"signIn":""}}"#, #"{"de":{"errors.":"x"}}"#] {
                let refused = try await configure(bad)
                #expect(refused.status == 400 && refused.errorMessage?.hasPrefix("INVALID_ARGUMENT") == true, "\(bad): \(refused.body)")
            }
            let set = try await configure(#"""
                {"de":{"signInHeading":"Anmelden","continueToFormat":"Weiter zu %@","errors.INVALID_LOGIN_CREDENTIALS":"Falsch."},
                 "fr":{"signIn":"Entrer"}}
                """#)
            #expect(set.status == 200 && set["oauthServer"]?["pageText"]?["de"]?["signInHeading"] == "Anmelden", "\(set.body)")
            /// The sign-in page of a new authorization asking for `locales`.
            func page(_ locales: String) async throws -> String {
                let browser = CookieBrowser()
                let start = try await browser.send("GET", fixture.authorizeURL(clientID: clientID, extra: [("ui_locales", locales)]))
                let location = try #require(start.headers["location"])
                return try await browser.send("GET", fixture.server.baseURL.absoluteString + location).body
            }
            // A language Flint does not ship, in the project's words, Flint's English for the rest.
            let german = try await page("de-CH en")
            #expect(german.contains(#"<html lang="de">"#) && german.contains("Anmelden") && german.contains("Weiter zu Dashboard"))
            #expect(german.contains("Falsch.") && german.contains(">Password<"), "\(german)")
            // A shipped language with one field replaced; English untouched.
            let french = try await page("fr")
            #expect(french.contains("Entrer") && french.contains("Mot de passe"), "\(french)")
            let english = try await page("en")
            #expect(english.contains(">Sign in<") && !english.contains("Anmelden"), "\(english)")
        }
    }

    @Test func usersAndAdminsListAndRevokeConsents() async throws {
        try await ProviderFixture.with { fixture in
            let (clientID, secret) = try await fixture.register(["displayName": "Dashboard", "redirectUris": ["http://127.0.0.1:4567/callback"]])
            // The team's own page, set through the v2 config: the authorization goes there.
            let config = try await fixture.client.send(
                "PATCH", "/v2/projects/\(fixture.server.projectID)/config?updateMask=oauthServer",
                body: Data(#"{"oauthServer":{"signInPageUrl":"https://app.example/signin","brandName":"Example"}}"#.utf8), headers: fixture.admin)
            #expect(config.status == 200 && config["oauthServer"]?["signInPageUrl"] == "https://app.example/signin", "\(config.body)")
            let start = try await CookieBrowser().send("GET", fixture.authorizeURL(clientID: clientID))
            #expect(start.headers["location"]?.hasPrefix("https://app.example/signin?authorization_id=") == true)
            let authorizationID = try #require(start.query("authorization_id"))
            let user = try await fixture.client.signUp(email: "lin@example.com", password: "secret-pass-1")
            let idToken = try #require(user.string("idToken"))
            let approved = try await fixture.client.post("/v2/oauth/authorizations:approve", [
                "authorizationId": .string(authorizationID), "idToken": .string(idToken),
            ])
            let redirect = try #require(approved.string("redirectUri").flatMap(URLComponents.init(string:)), "\(approved.body)")
            let code = try #require(redirect.queryItems?.first { $0.name == "code" }?.value)
            // The authorization is over: approving it again fails.
            let again = try await fixture.client.post("/v2/oauth/authorizations:approve", [
                "authorizationId": .string(authorizationID), "idToken": .string(idToken),
            ])
            #expect(again.errorCode == "INVALID_AUTHORIZATION_ID")
            let tokens = try await fixture.exchange(code, clientID: clientID, secret: secret)
            let refreshToken = try #require(tokens.json["refresh_token"]?.stringValue)

            let listed = try await fixture.client.post("/v2/accounts/oauthGrants:list", ["idToken": .string(idToken)])
            #expect(listed["grants"]?.arrayValue?.first?["clientName"] == "Dashboard", "\(listed.body)")
            let uid = try #require(user.string("localId"))
            let adminListed = try await fixture.client.send(
                "GET", "/v2/projects/\(fixture.server.projectID)/accounts/\(uid)/oauthGrants", headers: fixture.admin)
            #expect(adminListed["grants"]?.arrayValue?.count == 1)
            let revoked = try await fixture.client.post("/v2/accounts/oauthGrants:revoke", [
                "idToken": .string(idToken), "clientId": .string(clientID),
            ])
            #expect(revoked.status == 200, "\(revoked.body)")
            // The client's tokens went with the consent.
            let refreshed = try await fixture.tokenCall([("grant_type", "refresh_token"), ("refresh_token", refreshToken)],
                                                        clientID: clientID, secret: secret)
            #expect(refreshed.json["error"] == "invalid_grant")
            #expect(try await fixture.client.post("/v2/accounts/oauthGrants:list", ["idToken": .string(idToken)])["grants"] == [])
            let gone = try await fixture.client.send(
                "DELETE", "/v2/projects/\(fixture.server.projectID)/accounts/\(uid)/oauthGrants/\(clientID)", headers: fixture.admin)
            #expect(gone.errorCode == "OAUTH_CLIENT_NOT_FOUND")
        }
    }

    @Test func aDisabledUsersProviderSessionNoLongerCounts() async throws {
        try await ProviderFixture.with { fixture in
            let (clientID, _) = try await fixture.register([
                "displayName": "Web", "redirectUris": ["http://127.0.0.1:4567/callback"], "firstParty": true,
            ])
            let browser = CookieBrowser()
            let start = try await browser.send("GET", fixture.authorizeURL(clientID: clientID))
            _ = try await fixture.signInOnPage(browser, signInPage: try #require(start.headers["location"]), email: "max@example.com")
            let silent = try await browser.send("GET", fixture.authorizeURL(clientID: clientID, extra: [("prompt", "none")]))
            #expect(silent.query("code") != nil)
            let user = try await fixture.client.post("/v1/accounts:lookup", ["email": ["max@example.com"]], headers: fixture.admin)
            let uid = try #require(user.firstUser?["localId"]?.stringValue, "\(user.body)")
            let disabled = try await fixture.client.post("/v1/accounts:update", ["localId": .string(uid), "disableUser": true],
                                                         headers: fixture.admin)
            #expect(disabled.status == 200, "\(disabled.body)")
            let refused = try await browser.send("GET", fixture.authorizeURL(clientID: clientID, extra: [("prompt", "none")]))
            #expect(refused.query("error") == "login_required" && refused.query("code") == nil)
        }
    }
}
