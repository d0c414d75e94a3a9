@testable import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
import Testing

/// Flint's own hosted sign-in page of the OpenID provider (`/__/oauth/signin`) in headless Chromium, every method it
/// offers, as a user (Tests/python/oauth_signin_browser.py) on a first-party client's authorization requests, on
/// SQLite and on PostgreSQL: sign-up, then the code at the client's redirect URI and the ID token it buys; a wrong
/// password shown in `#error` without leaving the page, then the right one (`prompt=login`: the page again despite
/// the session); the password reset form's notice and its mail; and, with a TOTP factor enrolled through the REST API,
/// `acr_values=urn:flint:acr:mfa` asking for the code after the password, the ID token then saying two factors. The
/// page's markup once: labels, one submit button a form, the standard `autocomplete` tokens, and a policy that
/// forbids framing.
@Suite struct OAuthSignInPageBrowserTests {
    static let redirectURI = "http://127.0.0.1:9/cb"
    static let password = "correct-horse-7"

    @Test(arguments: TestDatabase.allCases)
    func everyMethodOfTheSignInPageWorksInChromium(database: TestDatabase) async throws {
        let chromium = try #require(
            Chromium.executable(),
            "chromium is not installed: scripts/test.sh installs Debian's chromium package (apt-get install -y chromium)")
        let smtp = try await SMTPTestServer.start(mode: .plain)
        do {
            try await Self.scenario(database: database, chromium: chromium, smtp: smtp)
        } catch {
            await smtp.stop()
            throw error
        }
        await smtp.stop()
    }

    private static func scenario(database: TestDatabase, chromium: String, smtp: SMTPTestServer) async throws {
        // TOTP codes are computed by the wall clock (the driver's): the server's runs with it.
        try await withServer(emulator: false, database: database, clock: .running(), configure: { configuration in
            configuration.delivery.email = .smtp(smtp.configuration(from: "noreply@flint.test"))
        }) { server, client in
            let key = try await server.server.serviceAccounts.create(projectID: server.projectID)
            let bearer = try key.signedJWT(audience: "https://identitytoolkit.googleapis.com/", now: server.clock.seconds)
            let fixture = ProviderFixture(server: server, client: client, admin: ["Authorization": "Bearer \(bearer)"])
            let (clientID, secret) = try await fixture.register([
                "displayName": "Dashboard", "redirectUris": [.string(redirectURI)], "firstParty": true,
            ])
            let email = "ada.\(database)@example.com"
            var states = 0
            /// A new authorization request, its own state and nonce.
            func authorize(_ extra: [(String, String)] = []) -> (url: String, state: String, nonce: String) {
                states += 1
                let (state, nonce) = ("state-\(states)", "nonce-\(states)")
                let url = fixture.issuer + "/authorize?" + FormURLEncoding.encode([
                    ("response_type", "code"), ("client_id", clientID), ("redirect_uri", redirectURI),
                    ("scope", "openid email"), ("state", state), ("nonce", nonce),
                    ("code_challenge", ProviderFixture.challenge), ("code_challenge_method", "S256"),
                ] + extra)
                return (url, state, nonce)
            }
            func drive(_ plan: [JSONValue]) async throws -> (steps: [JSONValue], diagnostics: String) {
                let run = try await BrowserDriver.run("oauth_signin_browser.py", chromium: chromium, environment: [
                    "FLINT_PLAN": String(decoding: try JSONEncoder().encode(JSONValue.array(plan)), as: UTF8.self),
                    "FLINT_REDIRECT_URI": redirectURI,
                ], timeoutSeconds: 100)
                let diagnostics = BrowserDriver.diagnostics(run)
                #expect(run["error"] == nil, "\(diagnostics)")
                return (run["steps"]?.arrayValue ?? [], diagnostics)
            }
            /// The step's code at the redirect URI, with its state and the issuer (RFC 9207), exchanged for an ID
            /// token; returns its claims.
            func idClaims(_ step: JSONValue?, _ request: (url: String, state: String, nonce: String),
                          _ diagnostics: String) async throws -> [String: JSONValue] {
                let query = step?["callback"]?["query"]
                #expect(query?["state"]?.stringValue == request.state, "\(diagnostics)")
                #expect(query?["iss"]?.stringValue == fixture.issuer, "\(diagnostics)")
                let code = try #require(query?["code"]?.stringValue, "\(diagnostics)")
                let tokens = try await fixture.exchange(code, clientID: clientID, secret: secret, redirectURI: redirectURI)
                #expect(tokens.status == 200, "\(tokens.body)")
                let claims = ProviderFixture.claims(try #require(tokens.json["id_token"]?.stringValue, "\(tokens.body)"))
                #expect(claims["aud"]?.stringValue == clientID && claims["iss"]?.stringValue == fixture.issuer, "\(claims)")
                #expect(claims["nonce"]?.stringValue == request.nonce, "\(claims)")
                #expect(claims["email"]?.stringValue == email, "\(claims)")
                return claims
            }

            // The page's markup and headers, as a plain HTTP client gets them.
            try await Self.checkMarkup(fixture, authorizeURL: authorize().url)

            // 1. Sign-up, a wrong then the right password (prompt=login: the page again, despite the session), the
            // password reset form, in one browser.
            let signUp = authorize()
            let again = authorize([("prompt", "login")])
            let reset = authorize([("prompt", "login")])
            let first = try await drive([
                ["name": "sign-up", "kind": "sign_up", "url": .string(signUp.url), "email": .string(email),
                 "password": .string(password)],
                ["name": "sign-in", "kind": "sign_in", "url": .string(again.url), "email": .string(email),
                 "password": .string(password), "wrong_password": "not-the-password-1"],
                ["name": "reset", "kind": "reset", "url": .string(reset.url), "email": .string(email)],
            ])
            #expect(first.steps.count == 3, "\(first.diagnostics)")
            let signedUp = try await idClaims(first.steps.first, signUp, first.diagnostics)
            #expect(signedUp["amr"] == ["pwd"] && signedUp["acr"]?.stringValue != AuthenticationLevel.multiFactor.rawValue,
                    "\(signedUp)")
            let uid = try #require(signedUp["sub"]?.stringValue)

            let signIn = first.steps.count > 1 ? first.steps[1] : nil
            #expect(signIn?["page"]?["path"] == "/__/oauth/signin", "\(first.diagnostics)")
            let wrong = signIn?["wrong"]
            #expect(wrong?["error"]?.stringValue == "The email or password is not right.", "\(first.diagnostics)")
            #expect(wrong?["path"] == "/__/oauth/signin" && wrong?["open"] == ["sign-in"], "\(first.diagnostics)")
            #expect(wrong?["navigations"] == [], "a wrong password navigated: \(first.diagnostics)")
            let signedIn = try await idClaims(signIn, again, first.diagnostics)
            #expect(signedIn["sub"]?.stringValue == uid && signedIn["amr"] == ["pwd"], "\(signedIn)")
            #expect((signedIn["auth_time"]?.numberValue ?? 0) >= (signedUp["auth_time"]?.numberValue ?? .infinity), "\(signedIn)")

            let resetStep = first.steps.count > 2 ? first.steps[2] : nil
            #expect(resetStep?["reset"]?["notice"]?.stringValue
                        == "If an account uses this email, a link to reset its password is on its way.", "\(first.diagnostics)")
            #expect(resetStep?["reset"]?["error"] == "" && resetStep?["reset"]?["open"] == ["sign-in"], "\(first.diagnostics)")
            await server.waitForOutbox()
            let resetMail = smtp.received.all.filter { $0.to == [email] }
            #expect(resetMail.count == 1, "\(smtp.received.all.map(\.subject))")
            #expect(resetMail.first.map { ($0.text + ($0.html ?? "")).contains("oobCode") } == true,
                    "\(resetMail.first?.text ?? "no mail")")

            // 2. A TOTP factor, enrolled through the REST API (it needs a verified email and TOTP enabled).
            let secretKey = try await Self.enrollTOTP(fixture, uid: uid, email: email)

            // 3. acr_values asks for two factors: the code after the password, then an ID token saying so.
            let twoFactors = authorize([("prompt", "login"), ("acr_values", AuthenticationLevel.multiFactor.rawValue)])
            let second = try await drive([
                ["name": "mfa", "kind": "sign_in", "url": .string(twoFactors.url), "email": .string(email),
                 "password": .string(password), "totp_secret": .string(secretKey)],
            ])
            let mfa = second.steps.first
            #expect(mfa?["second_factor"]?["focused"] == "code", "\(second.diagnostics)")
            #expect(mfa?["second_factor"]?["navigations"] == [], "the password alone navigated: \(second.diagnostics)")
            let mfaClaims = try await idClaims(mfa, twoFactors, second.diagnostics)
            #expect(mfaClaims["sub"]?.stringValue == uid, "\(mfaClaims)")
            #expect(mfaClaims["acr"]?.stringValue == "urn:flint:acr:mfa", "\(mfaClaims)")
            let methods = mfaClaims["amr"]?.arrayValue?.compactMap(\.stringValue) ?? []
            #expect(methods.contains("otp") && methods.contains("mfa") && methods.contains("pwd"), "\(mfaClaims)")
        }
    }

    /// Enables TOTP second factors on the project (the v2 config, as an admin), verifies the user's email (the admin
    /// API) and enrolls a factor with a fresh sign-in's ID token; returns its shared secret (base32). The enrollment's
    /// code is the previous step's, so the browser's (the current step's, or a later one) is no replay.
    private static func enrollTOTP(_ fixture: ProviderFixture, uid: String, email: String) async throws -> String {
        let (server, client) = (fixture.server, fixture.client)
        let mfa: JSONValue = ["mfa": ["state": "ENABLED", "providerConfigs": [
            ["state": "ENABLED", "totpProviderConfig": ["adjacentIntervals": 5]],
        ]]]
        let configured = try await client.send("PATCH", "/v2/projects/\(server.projectID)/config?updateMask=mfa",
                                               body: try JSONEncoder().encode(mfa),
                                               headers: fixture.admin.merging(["Content-Type": "application/json"]) { $1 })
        #expect(configured.status == 200, "\(configured.body)")
        let verified = try await client.post("/v1/projects/\(server.projectID)/accounts:update", [
            "localId": .string(uid), "emailVerified": true,
        ], headers: fixture.admin)
        #expect(verified.status == 200, "\(verified.body)")
        let fresh = try await client.post("/v1/accounts:signInWithPassword", [
            "email": .string(email), "password": .string(password), "returnSecureToken": true,
        ])
        let idToken = try #require(fresh.string("idToken"), "\(fresh.body)")
        let started = try await client.post("/v2/accounts/mfaEnrollment:start", [
            "idToken": .string(idToken), "totpEnrollmentInfo": [:],
        ])
        let session = try #require(started["totpSessionInfo"], "\(started.body)")
        let secretKey = try #require(session["sharedSecretKey"]?.stringValue, "\(started.body)")
        let secret = try #require(MultiFactorAPITests.base32Decode(secretKey))
        let code = TOTP.code(secret: secret, step: TOTP.step(at: server.clock.seconds) - 1)
        let enrolled = try await client.post("/v2/accounts/mfaEnrollment:finalize", [
            "idToken": .string(idToken), "displayName": "Authenticator",
            "totpVerificationInfo": ["sessionInfo": session["sessionInfo"] ?? .null, "verificationCode": .string(code)],
        ])
        #expect(enrolled.status == 200, "\(enrolled.body)")
        return secretKey
    }

    /// The sign-in page as the authorization endpoint's redirect gives it (with the browser cookie it sets): every
    /// visible input labelled, one submit button a form, the standard autocomplete tokens, never framed.
    private static func checkMarkup(_ fixture: ProviderFixture, authorizeURL: String) async throws {
        let browser = CookieBrowser()
        let start = try await browser.send("GET", authorizeURL)
        #expect(start.status == 303, "\(start.body)")
        let location = try #require(start.headers["location"])
        #expect(location.hasPrefix("/__/oauth/signin?authorization_id="), "\(location)")
        #expect(browser.cookie("flint_oauth_browser") != nil)
        let page = try await browser.send("GET", fixture.server.baseURL.absoluteString + location)
        #expect(page.status == 200, "\(page.body)")
        let policy = page.headers["content-security-policy"] ?? ""
        let directives = policy.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(directives.contains("frame-ancestors 'none'"), "\(policy)")
        #expect(page.headers["x-frame-options"] == "DENY", "\(page.headers)")
        #expect(page.headers["cache-control"]?.contains("no-store") == true, "\(page.headers)")
        let html = page.body

        let inputs = tags("input", in: html)
        let visible = inputs.filter { $0["type"] != "hidden" }
        #expect(visible.count == 10, "\(inputs)")
        let labelled = Set(tags("label", in: html).compactMap { $0["for"] })
        for input in visible {
            let id = try #require(input["id"], "an input without an id: \(input)")
            #expect(labelled.contains(id), "#\(id) has no <label for>")
        }
        let tokens = Dictionary(visible.compactMap { input in input["id"].map { ($0, input["autocomplete"] ?? "") } },
                                uniquingKeysWith: { first, _ in first })
        // The project's default methods: email and password, the email link, the phone; no passkeys (no RP ID).
        #expect(tokens == ["email": "username", "password": "current-password", "new-email": "username",
                           "new-password": "new-password", "reset-email": "username", "link-email": "username",
                           "confirm-email": "username", "phone-number": "tel", "sms-code": "one-time-code",
                           "code": "one-time-code"], "\(tokens)")

        let forms = html.components(separatedBy: "<form").dropFirst().map { $0.components(separatedBy: "</form>")[0] }
        #expect(forms.count == 8, "\(forms.count) forms")
        for form in forms {
            let submits = tags("button", in: form).filter { $0["type"] == "submit" }.count
                + tags("input", in: form).filter { $0["type"] == "submit" }.count
            let buttons = tags("button", in: form).count
            #expect(submits == 1 && buttons == 1, "a form with \(submits) submit buttons of \(buttons): \(form.prefix(200))")
        }
    }

    /// The attributes of every `<name …>` tag (lowercased names; a bare attribute's value is empty).
    private static func tags(_ name: String, in html: String) -> [[String: String]] {
        let tag = try! Regex("<\(name)\\b([^>]*)>").ignoresCase()
        let attribute = try! Regex(#"([a-zA-Z-]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+)))?"#)
        return html.matches(of: tag).map { match in
            let text = String(match.output[1].substring ?? "")
            var attributes: [String: String] = [:]
            for found in text.matches(of: attribute) {
                let value = (2...4).lazy.compactMap { found.output[$0].substring }.first.map(String.init) ?? ""
                attributes[String(found.output[1].substring ?? "").lowercased()] = value
            }
            return attributes
        }
    }
}
