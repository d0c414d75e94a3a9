import Crypto
import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The hosted email action pages over HTTP: `/__/auth/action` per mode, `/__/auth/links`, and the
/// `.well-known` files that let apps claim those links.
@Suite struct ActionPageTests {
    static func actionPath(mode: String?, oobCode: String? = "CODE123", apiKey: String?, continueURL: String? = nil,
                           lang: String? = nil) -> String {
        var components = URLComponents()
        components.path = "/__/auth/action"
        components.queryItems = [
            URLQueryItem(name: "apiKey", value: apiKey), URLQueryItem(name: "mode", value: mode),
            URLQueryItem(name: "oobCode", value: oobCode), URLQueryItem(name: "continueUrl", value: continueURL),
            URLQueryItem(name: "lang", value: lang),
        ].filter { $0.value != nil }
        components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
            .replacingOccurrences(of: ":", with: "%3A").replacingOccurrences(of: "/", with: "%2F")
        return components.string!
    }

    /// One GET that does not follow redirects.
    struct RawReply {
        var status: Int
        var headers: [String: String]
        var body: String
    }

    static func get(_ server: TestServer, _ pathAndQuery: String) async throws -> RawReply {
        let page = try await TestBrowser.get(try #require(URL(string: server.baseURL.absoluteString + pathAndQuery)))
        return RawReply(status: page.status, headers: page.headers, body: page.body)
    }

    /// The text of the first element `<tag …>` carrying `marker` up to its closing tag.
    static func block(_ html: String, opening: String, closing: String) throws -> String {
        let start = try #require(html.range(of: opening), "no \(opening) in \(html)")
        let end = try #require(html.range(of: closing, range: start.upperBound..<html.endIndex))
        return String(html[start.upperBound..<end.lowerBound])
    }

    static func cspHash(_ text: String) -> String {
        "sha256-" + Data(SHA256.hash(data: Data(text.utf8))).base64EncodedString()
    }

    // MARK: The action page

    @Test func resetPasswordPageHasStrictHeadersAndItsScriptByHash() async throws {
        try await withServer(emulator: false) { server, _ in
            let reply = try await Self.get(server, Self.actionPath(mode: "resetPassword", apiKey: server.apiKey))
            #expect(reply.status == 200)
            #expect(reply.headers["content-type"] == "text/html; charset=utf-8")
            #expect(reply.headers["cache-control"] == "no-store")
            #expect(reply.headers["x-frame-options"] == "DENY")
            #expect(reply.headers["referrer-policy"] == "no-referrer")
            #expect(reply.headers["x-content-type-options"] == "nosniff")
            let policy = try #require(reply.headers["content-security-policy"])
            #expect(policy.contains("default-src 'none'") && policy.contains("connect-src 'self'")
                && policy.contains("frame-ancestors 'none'") && policy.contains("form-action 'none'"))
            #expect(!policy.contains("unsafe-inline") && !policy.contains("unsafe-eval"))

            // The inline script and style are exactly the ones the policy names.
            let html = reply.body
            let script = try Self.block(html, opening: "<script>", closing: "</script>")
            let style = try Self.block(html, opening: "<style>", closing: "</style>")
            #expect(policy.contains("script-src '\(Self.cspHash(script))'"))
            #expect(policy.contains("style-src '\(Self.cspHash(style))'"))

            #expect(html.contains(#"<html lang="en">"#) && html.contains("Reset your password"))
            #expect(html.contains(#"<label for="new-password">New password</label>"#))
            #expect(html.contains(#"<label for="confirm-password">"#))
            #expect(html.contains(#"id="new-password" name="new-password" type="password" autocomplete="new-password""#))
            let json = try Self.block(html, opening: #"<script type="application/json" id="flint-config">"#, closing: "</script>")
            let configuration = try #require(try JSONDecoder().decode(JSONValue.self, from: Data(json.utf8)).objectValue)
            #expect(configuration["mode"]?.stringValue == "resetPassword")
            #expect(configuration["oobCode"]?.stringValue == "CODE123")
            #expect(configuration["apiKey"]?.stringValue == server.apiKey)
            #expect(configuration["messages"]?.objectValue?["weakPassword"]?.stringValue?.contains("too weak") == true)
            #expect(!html.contains(#"id="continue""#))
        }
    }

    @Test func eachModeHasItsTitleAndLanguage() async throws {
        try await withServer { server, _ in
            let expected: [(mode: String, lang: String, text: String)] = [
                ("resetPassword", "fr", "Réinitialisez votre mot de passe"),
                ("resetPassword", "es-419", "Restablece tu contraseña"),
                ("resetPassword", "de_AT", "Passwort zurücksetzen"),
                ("verifyEmail", "en", "Verify your email"),
                ("verifyEmail", "de", "E-Mail-Adresse bestätigen"),
                ("verifyAndChangeEmail", "fr-CA", "Confirmez votre nouvelle adresse e-mail"),
                ("recoverEmail", "es", "Recupera tu correo electrónico"),
                ("recoverEmail", "xx", "Restore your email"),
            ]
            for item in expected {
                let reply = try await Self.get(server, Self.actionPath(mode: item.mode, apiKey: "any", lang: item.lang))
                #expect(reply.status == 200, "\(item)")
                let language = item.lang == "xx" ? "en" : String(item.lang.prefix(2))
                #expect(reply.body.contains(#"<html lang="\#(language)">"#), "\(item)")
                #expect(reply.body.contains("<h1 id=\"title\">\(item.text)</h1>"), "\(item)")
                #expect(reply.body.contains(#""mode":"\#(item.mode)""#), "\(item)")
                #expect(reply.body.contains(#"id="send-reset""#) == (item.mode == "recoverEmail"), "\(item)")
                #expect(reply.body.contains(#"id="reset-form""#) == (item.mode == "resetPassword"), "\(item)")
            }
            let french = try await Self.get(server, Self.actionPath(mode: "verifyEmail", apiKey: "any", lang: "fr"))
            #expect(french.body.contains("Ce lien a expiré"))
        }
    }

    @Test func continueLinkOnlyForAuthorizedHTTPURLs() async throws {
        try await withServer { server, _ in
            let good = "http://localhost:3000/done?x=1&y=<2>"
            let page = try await Self.get(server, Self.actionPath(mode: "verifyEmail", apiKey: "k", continueURL: good))
            #expect(page.status == 200)
            #expect(page.body.contains(#"<a id="continue" href="http://localhost:3000/done?x=1&amp;y=&lt;2&gt;" hidden>Continue</a>"#))
            for bad in ["https://evil.example/phish", "javascript:alert(1)", "http://user@localhost/", "//localhost/x"] {
                let refused = try await Self.get(server, Self.actionPath(mode: "resetPassword", apiKey: "k", continueURL: bad))
                #expect(refused.status == 200)
                #expect(!refused.body.contains(#"id="continue""#), "\(bad)")
            }
        }
    }

    @Test func attackerTextIsEscapedInTheConfiguration() async throws {
        try await withServer { server, _ in
            let code = "</script><script>alert(1)</script>&"
            let reply = try await Self.get(server, Self.actionPath(mode: "verifyEmail", oobCode: code, apiKey: "k"))
            #expect(reply.status == 200)
            #expect(!reply.body.contains("<script>alert(1)"))
            let json = try Self.block(reply.body, opening: #"<script type="application/json" id="flint-config">"#, closing: "</script>")
            let configuration = try #require(try JSONDecoder().decode(JSONValue.self, from: Data(json.utf8)).objectValue)
            #expect(configuration["oobCode"]?.stringValue == code)
        }
    }

    @Test func badLinksGetAnErrorPage() async throws {
        try await withServer(emulator: false) { server, _ in
            let cases: [(String, String)] = [
                (Self.actionPath(mode: nil, apiKey: server.apiKey), "does not say what to do"),
                (Self.actionPath(mode: "deleteEverything", apiKey: server.apiKey), "does not say what to do"),
                (Self.actionPath(mode: "resetPassword", oobCode: nil, apiKey: server.apiKey), "its code is missing"),
                (Self.actionPath(mode: "verifyEmail", oobCode: "", apiKey: server.apiKey), "its code is missing"),
                (Self.actionPath(mode: "verifyEmail", apiKey: nil), "API key is missing"),
                (Self.actionPath(mode: "verifyEmail", apiKey: "not-a-key"), "API key is not known"),
            ]
            for (path, text) in cases {
                let reply = try await Self.get(server, path)
                #expect(reply.status == 400, "\(path)")
                #expect(reply.body.contains(text), "\(path): \(reply.body)")
                #expect(!reply.body.contains("<script"), "\(path)")
                let policy = try #require(reply.headers["content-security-policy"])
                #expect(policy.contains("default-src 'none'") && !policy.contains("script-src"))
                #expect(reply.headers["x-frame-options"] == "DENY")
            }
            let german = try await Self.get(server, Self.actionPath(mode: "nope", apiKey: server.apiKey, lang: "de"))
            #expect(german.status == 400 && german.body.contains("Ungültiger Link") && german.body.contains(#"lang="de""#))
        }
    }

    // MARK: signIn hand-over

    @Test func signInRedirectsToAnAuthorizedContinueURLWithTheLinkParameters() async throws {
        try await withServer { server, _ in
            let reply = try await Self.get(server, Self.actionPath(
                mode: "signIn", oobCode: "a+b/c", apiKey: "fake-api-key", continueURL: "https://localhost/finish?state=1", lang: "fr"))
            #expect(reply.status == 303)
            let location = try #require(reply.headers["location"])
            let target = try #require(URLComponents(string: location))
            #expect(target.scheme == "https" && target.host == "localhost" && target.path == "/finish")
            let items = Dictionary((target.queryItems ?? []).map { ($0.name, $0.value ?? "") }) { first, _ in first }
            #expect(items == ["state": "1", "apiKey": "fake-api-key", "oobCode": "a+b/c", "mode": "signIn", "lang": "fr"])
            #expect(!location.contains("continueUrl"))
        }
    }

    @Test func signInRefusesUnauthorizedOrMissingContinueURLs() async throws {
        try await withServer(emulator: false) { server, _ in
            for continueURL in ["https://evil.example/steal", "javascript:alert(1)", "ftp://localhost/x", nil] {
                let reply = try await Self.get(server, Self.actionPath(
                    mode: "signIn", apiKey: server.apiKey, continueURL: continueURL))
                #expect(reply.status == 400, "\(continueURL ?? "nil")")
                #expect(reply.headers["location"] == nil)
                #expect(reply.body.contains("does not allow"))
            }
            // An added authorized domain is accepted.
            try await server.server.projects.updateSettings(server.projectID) { $0.authorizedDomains.append("app.example.com") }
            let reply = try await Self.get(server, Self.actionPath(
                mode: "signIn", apiKey: server.apiKey, continueURL: "https://app.example.com/"))
            #expect(reply.status == 303)
            #expect(reply.headers["location"]?.hasPrefix("https://app.example.com/?apiKey=") == true)
        }
    }

    // MARK: /__/auth/links

    @Test func linksRedirectsOnlyToThisServersActionPage() async throws {
        try await withServer(publicURL: "https://auth.example.com") { server, _ in
            func links(_ inner: String) async throws -> RawReply {
                try await Self.get(server, "/__/auth/links?link=" + ActionRoutesTestEncoding.encode(inner))
            }
            let query = "apiKey=k&mode=signIn&oobCode=abc&continueUrl=https%3A%2F%2Flocalhost%2F&lang=en"
            for own in ["http://127.0.0.1:\(server.port)/__/auth/action?\(query)", "https://auth.example.com/__/auth/action?\(query)"] {
                let reply = try await links(own)
                #expect(reply.status == 303, "\(own)")
                #expect(reply.headers["location"] == "/__/auth/action?\(query)", "\(own)")
            }
            for foreign in [
                "https://evil.example/__/auth/action?\(query)", "http://127.0.0.1:\(server.port)/somewhere-else?\(query)",
                "http://127.0.0.1:\(server.port + 1)/__/auth/action?\(query)", "http://auth.example.com/__/auth/action?\(query)",
                "https://auth.example.com@evil.example/__/auth/action", "javascript:alert(1)", "/__/auth/action?\(query)", "",
            ] {
                let reply = try await links(foreign)
                #expect(reply.status == 400, "\(foreign)")
                #expect(reply.headers["location"] == nil, "\(foreign)")
            }
            let missing = try await Self.get(server, "/__/auth/links")
            #expect(missing.status == 400)
        }
    }

    // MARK: .well-known

    @Test func wellKnownFilesListTheConfiguredApps() async throws {
        try await withServer { server, _ in
            // Nothing configured: valid, empty files.
            let emptyAASA = try await Self.get(server, "/.well-known/apple-app-site-association")
            #expect(emptyAASA.status == 200)
            #expect(emptyAASA.headers["content-type"] == "application/json")
            #expect(try JSONDecoder().decode(JSONValue.self, from: Data(emptyAASA.body.utf8))
                == .object([
                    "applinks": .object(["apps": .array([]), "details": .array([])]),
                    "webcredentials": .object(["apps": .array([])]),
                ]))
            let emptyLinks = try await Self.get(server, "/.well-known/assetlinks.json")
            #expect(emptyLinks.status == 200 && emptyLinks.body == "[]")

            _ = try await server.server.updateProjectConfig(server.projectID, ProjectConfig(apps: .init(
                ios: [.init(bundleId: "com.example.app", teamId: "ABCDE12345"), .init(bundleId: "com.example.other", teamId: "ZYXWV98765")],
                android: [.init(packageName: "com.example.android", sha256CertFingerprints: ["AA:BB:CC"])])), updateMask: "apps")

            let aasa = try await Self.get(server, "/.well-known/apple-app-site-association")
            #expect(aasa.status == 200 && aasa.headers["content-type"] == "application/json")
            #expect(aasa.body.contains(#""/__/auth/*""#), "slashes are not escaped")
            func detail(_ appID: String) -> JSONValue {
                .object([
                    "appID": .string(appID), "appIDs": .array([.string(appID)]), "paths": .array([.string("/__/auth/*")]),
                    "components": .array([.object(["/": .string("/__/auth/*")])]),
                ])
            }
            // The same apps may use passkeys of a relying party at this host (`webcredentials`).
            #expect(try JSONDecoder().decode(JSONValue.self, from: Data(aasa.body.utf8)) == .object([
                "applinks": .object([
                    "apps": .array([]),
                    "details": .array([detail("ABCDE12345.com.example.app"), detail("ZYXWV98765.com.example.other")]),
                ]),
                "webcredentials": .object(["apps": .array([.string("ABCDE12345.com.example.app"), .string("ZYXWV98765.com.example.other")])]),
            ]))

            let links = try await Self.get(server, "/.well-known/assetlinks.json")
            #expect(links.status == 200 && links.headers["content-type"] == "application/json")
            #expect(try JSONDecoder().decode(JSONValue.self, from: Data(links.body.utf8)) == .array([.object([
                "relation": .array([.string("delegate_permission/common.handle_all_urls")]),
                "target": .object([
                    "namespace": .string("android_app"), "package_name": .string("com.example.android"),
                    "sha256_cert_fingerprints": .array([.string("AA:BB:CC")]),
                ]),
            ])]))
        }
    }
}

enum ActionRoutesTestEncoding {
    /// Percent-encodes a whole URL as one query value.
    static func encode(_ value: String) -> String {
        var allowed = CharacterSet.alphanumerics.intersection(CharacterSet(charactersIn: Unicode.Scalar(0)..<Unicode.Scalar(128)))
        allowed.insert(charactersIn: "-._~")
        return value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value
    }
}
