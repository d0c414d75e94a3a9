import Crypto
import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
import Testing

/// The captcha page at `/__/auth/handler` over HTTP: what it answers, its headers, its checks, and the
/// verify call it makes.
@Suite struct CaptchaPageTests {
    static let clientID = "123-abc.apps.googleusercontent.com"
    /// The project's iOS app, the only one the page answers (`RegisteredAppsTests` has the others refused).
    static let app = ProjectSettings.Apps.IOS(bundleID: "com.example.app", teamID: "ABCDE12345", clientID: clientID,
                                              appID: "1:1234567890:ios:abcdef")

    static func handlerPath(apiKey: String, authType: String? = "verifyApp", eventID: String? = "ABCDEFGHIJ",
                            clientID: String? = clientID, appID: String? = nil, hl: String? = nil) -> String {
        var components = URLComponents()
        components.path = "/__/auth/handler"
        components.queryItems = [
            URLQueryItem(name: "apiKey", value: apiKey), URLQueryItem(name: "authType", value: authType),
            URLQueryItem(name: "ibi", value: "com.example.app"), URLQueryItem(name: "v", value: "11.0.0"),
            URLQueryItem(name: "eventId", value: eventID), URLQueryItem(name: "clientId", value: clientID),
            URLQueryItem(name: "appId", value: appID), URLQueryItem(name: "hl", value: hl),
        ].filter { $0.value != nil }
        return components.string!
    }

    /// The page's configuration block.
    static func configuration(in html: String) throws -> [String: JSONValue] {
        let start = try #require(html.range(of: #"<script type="application/json" id="flint-config">"#))
        let end = try #require(html.range(of: "</script>", range: start.upperBound..<html.endIndex))
        let json = try JSONDecoder().decode(JSONValue.self, from: Data(html[start.upperBound..<end.lowerBound].utf8))
        return try #require(json.objectValue)
    }

    static func solve(_ challenge: String, bits: Int) -> String {
        var counter = 0
        while true {
            let nonce = String(counter, radix: 36)
            let digest = Array(SHA256.hash(data: Data((challenge + ":" + nonce).utf8)))
            var zeros = 0
            for byte in digest {
                zeros += byte == 0 ? 8 : byte.leadingZeroBitCount
                if byte != 0 { break }
            }
            if zeros >= bits { return nonce }
            counter += 1
        }
    }

    private func withProductionServer(bits: Int = 4, _ body: (TestServer, TestClient) async throws -> Void) async throws {
        try await withServer(emulator: false) { server, client in
            try await server.server.projects.updateSettings(server.projectID) {
                $0.phone.proofOfWorkBits = bits
                $0.apps.iOS = [Self.app]
            }
            try await body(server, client)
        }
    }

    @Test func pageCarriesAChallengeTheCallbackAndStrictHeaders() async throws {
        try await withProductionServer { server, client in
            let reply = try await client.send("GET", Self.handlerPath(apiKey: server.apiKey), includeKey: false)
            #expect(reply.status == 200)
            #expect(reply.headers["content-type"] == "text/html; charset=utf-8")
            #expect(reply.headers["cache-control"] == "no-store")
            #expect(reply.headers["x-frame-options"] == "DENY")
            #expect(reply.headers["referrer-policy"] == "no-referrer")
            let policy = try #require(reply.headers["content-security-policy"])
            #expect(policy.contains("default-src 'none'") && policy.contains("script-src 'sha256-")
                && policy.contains("connect-src 'self'") && policy.contains("frame-ancestors 'none'"))
            #expect(!policy.contains("unsafe-inline"))

            let html = try #require(reply.body.stringValue)
            #expect(html.contains(#"<html lang="en">"#) && html.contains("Checking you are not a robot"))
            let configuration = try Self.configuration(in: html)
            #expect(configuration["callback"]?.stringValue == "com.googleusercontent.apps.123-abc://firebaseauth/link")
            #expect(configuration["eventId"]?.stringValue == "ABCDEFGHIJ")
            #expect(configuration["bits"] == .number(4))
            #expect(configuration["verifyURL"]?.stringValue == "/__/auth/handler/verify?key=\(server.apiKey)")

            // The one executable script is exactly the one the policy allows.
            let scriptStart = try #require(html.range(of: "<script>"))
            let scriptEnd = try #require(html.range(of: "</script>", range: scriptStart.upperBound..<html.endIndex))
            let hash = Data(SHA256.hash(data: Data(html[scriptStart.upperBound..<scriptEnd.lowerBound].utf8))).base64EncodedString()
            #expect(policy.contains("'sha256-\(hash)'"))
        }
    }

    @Test func appIDGivesTheAppSchemeAndHLTheLanguage() async throws {
        try await withProductionServer { server, client in
            let reply = try await client.send(
                "GET", Self.handlerPath(apiKey: server.apiKey, clientID: nil, appID: "1:1234567890:ios:abcdef", hl: "fr-CA"),
                includeKey: false)
            #expect(reply.status == 200)
            let html = try #require(reply.body.stringValue)
            #expect(html.contains(#"<html lang="fr">"#))
            #expect(try Self.configuration(in: html)["callback"]?.stringValue == "app-1-1234567890-ios-abcdef://firebaseauth/link")
        }
    }

    @Test func badRequestsGetAnHTMLError() async throws {
        try await withProductionServer { server, client in
            let key = server.apiKey
            let cases: [(String, String)] = [
                (Self.handlerPath(apiKey: key, authType: nil), "authType"),
                (Self.handlerPath(apiKey: key, authType: "signInViaRedirect"), "redirectUrl"),
                (Self.handlerPath(apiKey: key, authType: "somethingElse"), "authType"),
                (Self.handlerPath(apiKey: key, eventID: nil), "eventId"),
                (Self.handlerPath(apiKey: key, eventID: "<script>"), "eventId"),
                (Self.handlerPath(apiKey: key, clientID: nil), "clientId or appId"),
                (Self.handlerPath(apiKey: key, clientID: "bad..client"), "clientId"),
                (Self.handlerPath(apiKey: key, clientID: "1-x.apps.googleusercontent.com/\"><script>"), "clientId"),
                (Self.handlerPath(apiKey: key, clientID: nil, appID: "1:2:ios:a b"), "appId"),
                (Self.handlerPath(apiKey: ""), "apiKey"),
                (Self.handlerPath(apiKey: "AIzaNotAKeyOfThisServer"), "API key"),
            ]
            for (path, mention) in cases {
                let reply = try await client.send("GET", path, includeKey: false)
                #expect(reply.status == 400, "\(path)")
                #expect(reply.headers["content-type"] == "text/html; charset=utf-8")
                #expect(reply.headers["x-frame-options"] == "DENY")
                let html = reply.body.stringValue ?? ""
                #expect(html.contains(mention), "\(path): \(html)")
                #expect(!html.contains("<script"), "\(path)")
            }
        }
    }

    @Test func verifyTradesASolvedChallengeForATokenOnce() async throws {
        try await withProductionServer(bits: 6) { server, client in
            let page = try await client.send("GET", Self.handlerPath(apiKey: server.apiKey), includeKey: false)
            let challenge = try #require(try Self.configuration(in: page.body.stringValue ?? "")["challenge"]?.stringValue)
            let nonce = Self.solve(challenge, bits: 6)

            let first = try await client.post("/__/auth/handler/verify", ["challenge": .string(challenge), "nonce": .string(nonce)])
            #expect(first.status == 200, "\(first.body)")
            let token = try #require(first.string("token"))
            #expect(ProofOfWork.isProofOfWorkToken(token))

            let again = try await client.post("/__/auth/handler/verify", ["challenge": .string(challenge), "nonce": .string(nonce)])
            #expect(again.status == 400 && again.errorMessage?.hasPrefix("CAPTCHA_CHECK_FAILED") == true, "\(again.body)")

            let garbage = try await client.post("/__/auth/handler/verify", ["challenge": .string("nope"), "nonce": .string("0")])
            #expect(garbage.status == 400 && garbage.errorMessage?.hasPrefix("INVALID_ARGUMENT") == true, "\(garbage.body)")
            let missing = try await client.post("/__/auth/handler/verify", ["challenge": .string(challenge)])
            #expect(missing.status == 400 && missing.errorMessage?.hasPrefix("INVALID_ARGUMENT") == true, "\(missing.body)")

            let keyless = TestClient(baseURL: server.baseURL, apiKey: nil)
            let noKey = try await keyless.post("/__/auth/handler/verify", ["challenge": .string(challenge), "nonce": .string(nonce)])
            #expect(noKey.status == 403)
        }
    }
}

/// Debian's headless Chromium loads the page from a live server, solves the proof of work with
/// WebCrypto, and leaves the callback URL in the page; the token in it then verifies once.
@Suite struct CaptchaPageBrowserTests {
    @Test func chromiumSolvesTheCaptchaAndReturnsATokenToTheApp() async throws {
        let chromium = try #require(
            Chromium.executable(),
            "chromium is not installed: scripts/test.sh installs Debian's chromium package (apt-get install -y chromium)")
        try await withServer(emulator: false) { server, _ in
            try await server.server.projects.updateSettings(server.projectID) {
                $0.phone.proofOfWorkBits = 8
                $0.apps.iOS = [CaptchaPageTests.app]
            }
            let url = server.baseURL.absoluteString + CaptchaPageTests.handlerPath(apiKey: server.apiKey)
            let dom = try await Chromium.dumpDOM(of: url, executable: chromium, timeoutSeconds: 60)
            let callback = try #require(Chromium.href(ofElementWithID: "return", in: dom), "no #return link in:\n\(dom)")

            let outer = try #require(URLComponents(string: callback))
            #expect(outer.scheme == "com.googleusercontent.apps.123-abc")
            #expect(outer.host == "firebaseauth" && outer.path == "/link")
            let deepLink = try #require(outer.queryItems?.first { $0.name == "deep_link_id" }?.value)
            let inner = try #require(URLComponents(string: deepLink))
            let items = Dictionary((inner.queryItems ?? []).map { ($0.name, $0.value ?? "") }) { first, _ in first }
            #expect(items["authType"] == "verifyApp")
            #expect(items["eventId"] == "ABCDEFGHIJ")
            #expect(items["firebaseError"] == nil, "the page reported an error: \(items["firebaseError"] ?? "")")
            let token = try #require(items["recaptchaToken"], "no recaptchaToken in \(deepLink)")
            #expect(ProofOfWork.isProofOfWorkToken(token))

            // The app sends the token with its phone number: a code goes out; the token is good for one use.
            let client = TestClient(server)
            let number = "+15551239999"
            let sent = try await client.post(
                "/v1/accounts:sendVerificationCode", ["phoneNumber": .string(number), "recaptchaToken": .string(token)])
            #expect(sent.status == 200, "\(sent.body)")
            #expect(server.log.smsCodes(to: number).count == 1)
            server.clock.advance(seconds: 60)
            let replay = try await client.post(
                "/v1/accounts:sendVerificationCode", ["phoneNumber": .string(number), "recaptchaToken": .string(token)])
            #expect(replay.errorCode == "INVALID_APP_CREDENTIAL")
        }
    }
}
