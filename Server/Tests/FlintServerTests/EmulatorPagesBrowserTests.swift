import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
import Testing

/// The emulator's sign-in pages (`/emulator/auth/handler`, the account chooser, and `/emulator/auth/iframe`, the web
/// SDK's frame) in Debian's headless Chromium, driven over the DevTools protocol by
/// Tests/python/emulator_pages_browser.py with real clicks and typing: the redirect, popup, iOS and Android shapes
/// of the auth event, the add-account form, cancelling, framing. Every credential the pages hand back then signs in
/// over REST as the account that was chosen or created.
@Suite struct EmulatorPagesBrowserTests {
    private static let hostileName = "<img src=x onerror=alert(1)>"
    private static let appName = "[DEFAULT]"

    @Test func theHeadersLetOnlyTheFrameBeFramedAndOnlyHashedScriptsRun() async throws {
        try await withServer(emulator: true) { server, _ in
            let base = server.baseURL.absoluteString
            let chooser = try await TestBrowser.get(try #require(URL(string:
                "\(base)/emulator/auth/handler?apiKey=\(server.apiKey)&providerId=google.com&appName=%5BDEFAULT%5D")))
            #expect(chooser.status == 200 && chooser.headers["content-type"] == "text/html; charset=utf-8")
            let chooserPolicy = Self.directives(chooser.headers["content-security-policy"])
            #expect(chooserPolicy["default-src"] == ["'none'"], "\(chooserPolicy)")
            let chooserScripts = chooserPolicy["script-src"] ?? []
            #expect(chooserScripts.count == 1 && chooserScripts.allSatisfy { $0.hasPrefix("'sha256-") }, "\(chooserScripts)")
            #expect((chooserPolicy["style-src"] ?? []).allSatisfy { $0.hasPrefix("'sha256-") })
            #expect(chooserPolicy["frame-ancestors"] == ["'none'"], "\(chooserPolicy)")
            #expect(chooser.headers["x-frame-options"] == "DENY")
            // The popup flow reads window.opener.
            #expect(chooser.headers["cross-origin-opener-policy"] == "unsafe-none")

            let frame = try await TestBrowser.get(try #require(URL(string:
                "\(base)/emulator/auth/iframe?apiKey=\(server.apiKey)&appName=%5BDEFAULT%5D")))
            #expect(frame.status == 200)
            let framePolicy = Self.directives(frame.headers["content-security-policy"])
            let frameScripts = framePolicy["script-src"] ?? []
            #expect(frameScripts.filter { $0.hasPrefix("'sha256-") }.count == 1
                    && frameScripts.allSatisfy { $0.hasPrefix("'sha256-") || $0 == "https://apis.google.com" }, "\(frameScripts)")
            let ancestors = framePolicy["frame-ancestors"] ?? []
            #expect(ancestors.first == "'self'" && ancestors.contains("http://localhost:*")
                    && ancestors.contains("https://localhost:*"), "\(ancestors)")
            #expect(!ancestors.contains("*") && !ancestors.contains("http:") && !ancestors.contains("https:"))
            #expect(frame.headers["x-frame-options"] == nil, "X-Frame-Options would forbid every framing")
        }
    }

    @Test func chromiumSignsInThroughTheEmulatorsPagesInEveryShape() async throws {
        let chromium = try #require(
            Chromium.executable(), "chromium is not installed: scripts/test.sh installs Debian's chromium package")
        try await withServer(emulator: true) { server, client in
            let base = server.baseURL.absoluteString
            let photo = base + "/photos/ada.png"
            // Two google.com accounts, one with a name that would run script if the page took it as markup.
            let ada = try await client.signInWithFakeClaims("google.com", [
                "sub": "ada-google-1815", "email": "ada@example.com", "email_verified": true,
                "name": .string(Self.hostileName), "picture": .string(photo),
            ])
            let bob = try await client.signInWithFakeClaims("google.com", [
                "sub": "bob-google-1947", "email": "bob@example.com", "email_verified": true, "name": "Bob Builder",
            ])
            #expect(ada.status == 200 && bob.status == 200, "\(ada.body) \(bob.body)")
            let uids = try ["ada-google-1815": #require(ada.string("localId")), "bob-google-1947": #require(bob.string("localId"))]

            let run = try await BrowserDriver.run("emulator_pages_browser.py", chromium: chromium, environment: [
                "FLINT_URL": base, "FLINT_API_KEY": server.apiKey,
            ], timeoutSeconds: 240)
            let log = (run["log"]?.arrayValue ?? []).compactMap(\.stringValue)
            let frameURL = "\(base)/emulator/auth/iframe?apiKey=\(server.apiKey)&appName=%5BDEFAULT%5D"
            // Each step runs even if another failed; what stopped one is here.
            #expect(run["errors"] == .object([:]), "steps that did not finish: \(run["errors"] ?? .null); log: \(log)")

            /// Signs in with a credential the pages handed back: it must be the account whose claims were chosen.
            func expectSignIn(_ credential: String?, as claims: JSONValue?, _ step: String,
                              sourceLocation: SourceLocation = #_sourceLocation) async throws -> TestClient.Reply? {
                guard let credential, let claims = claims?.objectValue, let sub = claims["sub"]?.stringValue else {
                    Issue.record("\(step): no credential or claims (log: \(log))", sourceLocation: sourceLocation)
                    return nil
                }
                #expect(credential.hasPrefix("\(base)/emulator/auth/handler?providerId=google.com&id_token="),
                        "\(step): \(credential)", sourceLocation: sourceLocation)
                #expect(Self.claims(inCredential: credential) == .object(claims), "\(step)", sourceLocation: sourceLocation)
                let reply = try await client.post("/v1/accounts:signInWithIdp", [
                    "requestUri": .string(credential), "returnSecureToken": true,
                ])
                #expect(reply.status == 200, "\(step): \(reply.body)", sourceLocation: sourceLocation)
                #expect(reply.string("providerId") == "google.com" && reply.string("federatedId") == "https://accounts.google.com/\(sub)",
                        "\(step): \(reply.body)", sourceLocation: sourceLocation)
                #expect(reply.string("email") == claims["email"]?.stringValue && reply.string("displayName") == claims["name"]?.stringValue,
                        "\(step): \(reply.body)", sourceLocation: sourceLocation)
                #expect(reply.string("idToken") != nil, sourceLocation: sourceLocation)
                if let uid = uids[sub] {
                    #expect(reply.string("localId") == uid, "\(step): signed in as another account", sourceLocation: sourceLocation)
                }
                return reply
            }

            // 1. The redirect shape: both accounts listed, the hostile name as text, the event in sessionStorage.
            let redirect = try #require(run["redirect"]?.objectValue, "the run stopped before the chooser: log: \(log)")
            let chooser = redirect["chooser"]
            #expect(chooser?["title"] == "Sign-in with Google.com")
            #expect(chooser?["help"] == "Please select an existing account in the Auth Emulator or add a new one:")
            #expect(chooser?["newAccount"] == "Add new account" && chooser?["cancel"] == "Cancel")
            let accounts = (chooser?["accounts"]?.arrayValue ?? []).compactMap(\.objectValue)
            #expect(Set(accounts.compactMap { $0["claims"]?["sub"]?.stringValue }) == Set(uids.keys), "\(accounts)")
            let shownAda = try #require(accounts.first { $0["claims"]?["sub"] == "ada-google-1815" })
            #expect(shownAda["name"] == .string(Self.hostileName) && shownAda["nameElements"] == .number(0), "\(shownAda)")
            #expect(shownAda["images"] == .number(1) && shownAda["photo"] == .string(photo), "only the photo is an image: \(shownAda)")
            #expect(shownAda["email"] == "ada@example.com")
            #expect(shownAda["claims"]?["name"] == .string(Self.hostileName) && shownAda["claims"]?["picture"] == .string(photo))
            let shownBob = try #require(accounts.first { $0["claims"]?["sub"] == "bob-google-1947" })
            #expect(shownBob["name"] == "Bob Builder" && shownBob["images"] == .number(0) && shownBob["photo"] == .null)
            #expect(chooser?["injected"] == .number(0))
            #expect(redirect["url"] == .string(frameURL), "\(redirect["url"] ?? .null)")
            let redirectEvent = redirect["event"]
            #expect(redirectEvent?["type"] == "signInViaRedirect" && redirectEvent?["eventId"] == "R1", "\(redirectEvent ?? .null)")
            #expect(redirectEvent?["error"] == .null && redirectEvent?["tenantId"] == .null && redirectEvent?["postBody"] == "")
            _ = try await expectSignIn(redirectEvent?["urlResponse"]?.stringValue, as: redirect["clicked"], "redirect")

            // 2. Adding an account: the form checks the email as it is typed; the typed account signs in.
            let added = try #require(run["newAccount"]?.objectValue, "log: \(log)")
            let opened = added["opened"]
            #expect(opened?["formVisible"] == true && opened?["listVisible"] == false && opened?["signInDisabled"] == true
                    && opened?["focused"] == "email-input", "\(opened ?? .null)")
            #expect(added["typedA"]?["emailError"] == #"Missing "@""# && added["typedA"]?["signInDisabled"] == true)
            #expect(added["cleared"]?["email"] == "" && added["cleared"]?["emailError"] == "Email required"
                    && added["cleared"]?["signInDisabled"] == true, "\(added["cleared"] ?? .null)")
            #expect(added["back"]?["listVisible"] == true && added["back"]?["formVisible"] == false)
            let generated = added["autogenerated"]
            let generatedEmail = generated?["email"]?.stringValue ?? ""
            #expect(generatedEmail.hasSuffix("@example.com") && generatedEmail.count > "@example.com".count
                    && generatedEmail.filter { $0 == "@" }.count == 1, "\(generated ?? .null)")
            #expect(generated?["displayName"]?.stringValue?.isEmpty == false && generated?["signInDisabled"] == false)
            let filled = added["filled"]
            #expect(filled?["email"] == "grace.hopper@example.com" && filled?["displayName"] == "Grace Hopper"
                    && filled?["screenName"] == "amazing_grace" && filled?["sub"] == "grace-sub-1906"
                    && filled?["emailError"] == "" && filled?["signInDisabled"] == false, "\(filled ?? .null)")
            let addedEvent = added["event"]
            #expect(added["url"] == .string(frameURL) && addedEvent?["type"] == "signInViaRedirect" && addedEvent?["eventId"] == "R2")
            let addedClaims = addedEvent?["urlResponse"]?.stringValue.flatMap(Self.claims(inCredential:))
            #expect(addedClaims?["sub"] == "grace-sub-1906" && addedClaims?["email"] == "grace.hopper@example.com"
                    && addedClaims?["name"] == "Grace Hopper" && addedClaims?["screen_name"] == "amazing_grace"
                    && addedClaims?["email_verified"] == true && addedClaims?["picture"] == nil, "\(addedClaims ?? .null)")
            let grace = try await expectSignIn(addedEvent?["urlResponse"]?.stringValue, as: addedClaims, "new account")
            #expect(grace?["isNewUser"] == true && grace?["emailVerified"] == true, "\(grace?.body ?? .null)")
            #expect(!uids.values.contains(grace?.string("localId") ?? ""))

            // 3. iOS: the deep link the browser tried to open, with the credential; then the cancelled one.
            let ios = try #require(run["ios"]?.objectValue, "log: \(log)")
            #expect(ios["requestedUrl"] == ios["url"])
            let iosLink = try #require(Self.deepLink(ios["url"]?.stringValue, scheme: "com.googleusercontent.apps.123-abc"),
                                       "\(ios["url"] ?? .null)")
            #expect(iosLink.prefix == "\(base)/__/auth/callback", "\(iosLink)")
            #expect(iosLink.query["authType"] == "signInWithRedirect" && iosLink.query["eventId"] == "E1"
                    && iosLink.query["firebaseError"] == nil, "\(iosLink)")
            _ = try await expectSignIn(iosLink.query["link"], as: ios["clicked"], "iOS")
            let cancelled = try #require(Self.deepLink(run["iosCancel"]?["url"]?.stringValue, scheme: "com.googleusercontent.apps.123-abc"),
                                         "\(run["iosCancel"] ?? .null)")
            #expect(run["iosCancel"]?["requestedUrl"] == run["iosCancel"]?["url"])
            #expect(cancelled.query["authType"] == "signInWithRedirect" && cancelled.query["eventId"] == "E2"
                    && cancelled.query["link"] == nil, "\(cancelled)")
            let iosError = try cancelled.query["firebaseError"].map { try JSONDecoder().decode(JSONValue.self, from: Data($0.utf8)) }
            #expect(iosError?["code"] == "auth/user-cancelled", "\(cancelled)")

            // 4. Android: the intent, with the credential and the fallback to the page.
            let android = try #require(run["android"]?.objectValue, "log: \(log)")
            let intent = android["url"]?.stringValue ?? ""
            #expect(android["requestedUrl"] == android["url"])
            #expect(intent.hasPrefix("intent://firebase.auth/#Intent;scheme=genericidp;package=com.example.app;S.authType=")
                    && intent.contains(";B.encryptionEnabled=false;S.browser_fallback_url=") && intent.hasSuffix(";end;"), "\(intent)")
            let extras = Self.intentExtras(intent)
            #expect(extras["S.authType"] == "signInWithRedirect" && extras["S.eventId"] == "A1"
                    && extras["B.encryptionEnabled"] == "false" && extras["S.firebaseError"] == nil, "\(extras)")
            #expect(extras["S.browser_fallback_url"]?.hasPrefix("\(base)/emulator/auth/handler?") == true
                    && extras["S.browser_fallback_url"]?.contains("&error=App%20not%20found%20for%20intent") == true, "\(extras)")
            _ = try await expectSignIn(extras["S.link"], as: android["clicked"], "Android")

            // 5. The popup: the chooser posts to the opener's frame, which hands the event to the opener.
            let popup = try #require(run["popup"]?.objectValue, "log: \(log)")
            #expect(popup["opened"] == true && popup["hasOpener"] == true && popup["accounts"] == .number(2), "\(popup)")
            let messages = popup["messages"]?.arrayValue ?? []
            #expect(messages.count == 1, "\(messages)")
            let message = messages.first
            #expect(message?["origin"] == .string(base), "only the frame, of Flint's origin, posts: \(message ?? .null)")
            #expect(message?["data"]?["type"] == "authEvent")
            let popupEvent = message?["data"]?["authEvent"]
            #expect(popupEvent?["type"] == "signInViaPopup" && popupEvent?["eventId"] == "P1" && popupEvent?["error"] == .null,
                    "\(popupEvent ?? .null)")
            #expect(popup["frameStored"] == popupEvent, "the frame keeps the event it relays")
            #expect(popup["frameAncestors"]?.arrayValue?.count == 1
                    && popup["frameAncestors"]?.arrayValue?.first?.stringValue?.hasPrefix("http://localhost:") == true)
            _ = try await expectSignIn(popupEvent?["urlResponse"]?.stringValue, as: popup["clicked"], "popup")

            // 6. Framing, in the browser: the chooser never; the frame under an authorized domain only.
            let framing = try #require(run["framing"]?.objectValue, "log: \(log)")
            func refusals(_ host: String) -> [String] {
                (framing[host]?.arrayValue ?? []).compactMap(\.stringValue).filter { $0.contains("frame-ancestors") }
            }
            let underLocalhost = refusals("localhost")
            #expect(underLocalhost.count == 1 && underLocalhost.first?.contains(#""frame-ancestors 'none'""#) == true,
                    "\(underLocalhost)")
            let elsewhere = refusals("unauthorized.test")
            #expect(elsewhere.count == 2 && elsewhere.contains { $0.contains(#""frame-ancestors 'none'""#) }
                    && elsewhere.contains { $0.contains("frame-ancestors 'self'") && $0.contains("http://localhost:*") }, "\(elsewhere)")

            // 7. No violation, exception or dialog anywhere, though the log would show one (the probe's).
            #expect(run["cspProbe"]?["ran"] == false)
            #expect((run["cspProbe"]?["log"]?.arrayValue ?? []).contains { $0.stringValue?.contains("Content Security Policy") == true })
            #expect(run["dialogs"] == .array([]), "\(run["dialogs"] ?? .null)")
            #expect(!log.contains { $0.contains("Content Security Policy") || $0.contains("violates") || $0.contains("exception:") },
                    "\(log)")

            // The server holds the three accounts, the typed one as typed.
            let identities = try await server.server.store.accounts.identities(projectID: server.projectID, providerID: "google.com", limit: 10)
            #expect(identities.count == 3, "\(identities)")
            let stored = try #require(identities.first { $0.rawID == "grace-sub-1906" })
            #expect(stored.email == "grace.hopper@example.com" && stored.displayName == "Grace Hopper"
                    && stored.screenName == "amazing_grace" && stored.photoURL == nil, "\(stored)")
        }
    }

    // MARK: Reading what the pages hand back

    /// A Content-Security-Policy header's directives: name → its sources.
    private static func directives(_ header: String?) -> [String: [String]] {
        var directives: [String: [String]] = [:]
        for directive in (header ?? "").split(separator: ";") {
            let words = directive.split(separator: " ").map(String.init)
            if let name = words.first { directives[name] = Array(words.dropFirst()) }
        }
        return directives
    }

    /// The claims in a credential's `id_token` query parameter.
    private static func claims(inCredential credential: String) -> JSONValue? {
        guard let token = URLComponents(string: credential)?.queryItems?.first(where: { $0.name == "id_token" })?.value else { return nil }
        return try? JSONDecoder().decode(JSONValue.self, from: Data(token.utf8))
    }

    /// An iOS deep link `<scheme>://firebaseauth/link?deep_link_id=<inner>`: the inner URL before its query, and its
    /// query's parameters, decoded.
    private static func deepLink(_ url: String?, scheme: String) -> (prefix: String, query: [String: String])? {
        guard let url, let outer = URLComponents(string: url), outer.scheme == scheme, outer.host == "firebaseauth",
              outer.path == "/link", let inner = outer.queryItems?.first(where: { $0.name == "deep_link_id" })?.value,
              let innerComponents = URLComponents(string: inner), let queryStart = inner.firstIndex(of: "?")
        else { return nil }
        var query: [String: String] = [:]
        for item in innerComponents.queryItems ?? [] { query[item.name] = item.value }
        return (String(inner[..<queryStart]), query)
    }

    /// An Android intent URL's extras (`S.name=value;`, values percent-decoded).
    private static func intentExtras(_ intent: String) -> [String: String] {
        guard let fragment = intent.split(separator: "#", maxSplits: 1).last else { return [:] }
        var extras: [String: String] = [:]
        for part in fragment.split(separator: ";") {
            let pair = part.split(separator: "=", maxSplits: 1)
            if pair.count == 2 { extras[String(pair[0])] = String(pair[1]).removingPercentEncoding }
        }
        return extras
    }
}
