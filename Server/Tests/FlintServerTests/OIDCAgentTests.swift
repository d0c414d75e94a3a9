import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Device flow clients nobody here wrote, against Flint's RFC 8628 device authorization grant, each user code approved
/// by a user on Flint's own pages (`<issuer>/device`, the sign-in page, the consent page; `CookieBrowser`, no Chromium):
/// Debian's oidc-agent (an `oidc-agent` daemon private to the test, `oidc-gen --flow=device` with a confidential
/// client, then `oidc-token`, and `oidc-token -f` for a refresh) and Authlib as a public client
/// (Tests/python/oauth_authlib_device.py). Every process is bounded by `timeout`, everything on 127.0.0.1.
@Suite struct OIDCAgentTests {
    static let deviceGrant = "urn:ietf:params:oauth:grant-type:device_code"

    @Test func oidcAgentGetsATokenThroughTheDeviceFlow() async throws {
        try #require(
            FileManager.default.isExecutableFile(atPath: "/usr/bin/oidc-gen"),
            "oidc-agent is not installed: scripts/test.sh installs Debian's oidc-agent package (apt-get install -y oidc-agent)")
        // oidc-agent polls at the interval by the wall clock: the server's runs with it.
        try await withServer(emulator: false, clock: .running()) { server, client in
            let fixture = try await Self.fixture(server, client)
            #expect(fixture.issuer.hasPrefix("http://127.0.0.1:"), "\(fixture.issuer)")
            let (clientID, secret) = try await fixture.register([
                "displayName": "oidc-agent", "type": "CONFIDENTIAL", "grantTypes": [.string(Self.deviceGrant), "refresh_token"],
            ])
            let clientSecret = try #require(secret)
            let email = "agent-user@example.com"

            try await Self.withAgent { agent in
                // oidc-gen asks the agent for a device code, prints the user code, and waits for the agent's polls.
                let gen = try agent.run("oidc-gen", [
                    "flint", "--flow=device", "--iss=\(fixture.issuer)", "--client-id=\(clientID)",
                    "--client-secret=\(clientSecret)", "--scope=openid email offline_access", "--pw-env", "--no-url-call",
                    "--confirm-default", "--prompt=none",
                ], seconds: 90)
                let printed = try await gen.waitFor(#"visit:\s*(\S+)\s+And enter the code: ([A-Z]{4}-[A-Z]{4})"#, seconds: 30)
                let (page, userCode) = (try #require(printed?.first, "\(gen.text())"), try #require(printed?.last, "\(gen.text())"))
                #expect(page == fixture.issuer + "/device", "\(gen.text())")
                // The user is slow: the agent's first poll, an interval later, is answered authorization_pending.
                let pending = try await agent.log.waitFor(#"(authorization_pending)"#, seconds: 20)
                #expect(pending != nil, "the agent never heard authorization_pending: \(agent.log.text())")
                try await Self.approve(userCode, page: page, fixture: fixture, email: email)
                let status = await gen.process.wait()
                #expect(status == 0 && gen.text().contains("Everything setup correctly"),
                        "oidc-gen exited \(status): \(gen.text())\nagent: \(agent.log.text())")
                #expect(FileManager.default.fileExists(atPath: agent.configFolder.appendingPathComponent("flint").path))
                let localID = try await Self.localID(email, fixture)

                // oidc-token: the access token the device flow gave, which Flint takes for the user.
                let token = try await agent.output("oidc-token", ["flint"])
                try await Self.expectWorks(token, fixture: fixture, clientID: clientID, secret: clientSecret, sub: localID,
                                           email: email, detail: agent.log.text())
                // A new one, by the refresh token the agent holds (its refresh grant, Basic-authenticated).
                let fresh = try await agent.output("oidc-token", ["--force-new", "flint"])
                #expect(fresh != token, "oidc-token -f gave the same token: \(agent.log.text())")
                try await Self.expectWorks(fresh, fixture: fixture, clientID: clientID, secret: clientSecret, sub: localID,
                                           email: email, detail: agent.log.text())
            }
        }
    }

    @Test func authlibPollsForTheDeviceCodeUntilTheUserApproves() async throws {
        // Authlib checks the tokens' dates against the wall clock: the server's runs with it.
        try await withServer(emulator: false, clock: .running()) { server, client in
            let fixture = try await Self.fixture(server, client)
            let (clientID, _) = try await fixture.register([
                "displayName": "Authlib CLI", "type": "PUBLIC", "grantTypes": [.string(Self.deviceGrant), "refresh_token"],
            ])
            let email = "authlib-device@example.com"
            let folder = try Self.scratchFolder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let script = try Watched.launch("python3", [PythonScripts.folder.appendingPathComponent("oauth_authlib_device.py").path],
                                            environment: ["FLINT_ISSUER": fixture.issuer, "FLINT_CLIENT_ID": clientID,
                                                          "FLINT_EMAIL": email],
                                            log: folder.appendingPathComponent("authlib.log"), seconds: 90)
            let printed = try await script.waitFor(#"USER_CODE ([A-Z]{4}-[A-Z]{4}) (\S+)"#, seconds: 30)
            let (userCode, page) = (try #require(printed?.first, "\(script.text())"), try #require(printed?.last, "\(script.text())"))
            try await Self.approve(userCode, page: page, fixture: fixture, email: email)
            let status = await script.process.wait()
            let output = script.text()
            #expect(status == 0 && output.contains("Authlib device flow checks passed"), "exit \(status): \(output)")
            #expect(output.contains("ok - the first poll answers authorization_pending"), "\(output)")
            let localID = try await Self.localID(email, fixture)
            #expect(output.contains("SUB \(localID)\n"), "\(output)")
        }
    }

    // MARK: The user's part

    /// The user opens the page the device showed, types the code, signs up on Flint's sign-in page and allows the
    /// client on the consent page.
    static func approve(_ userCode: String, page: String, fixture: ProviderFixture, email: String) async throws {
        let browser = CookieBrowser()
        let form = try await browser.send("GET", page)
        #expect(form.status == 200 && form.body.contains("name=\"user_code\""), "\(form.status) \(form.body)")
        let entered = try await browser.send("POST", page, form: [("user_code", userCode)])
        let signInPage = try #require(entered.headers["location"], "\(entered.status) \(entered.body)")
        let consentPath = try await fixture.signInOnPage(browser, signInPage: signInPage, email: email)
        #expect(consentPath.hasPrefix("/__/oauth/consent?authorization_id="), "\(consentPath)")
        let base = fixture.server.baseURL.absoluteString
        let consent = try await browser.send("GET", base + consentPath)
        let formToken = try ProviderFixture.formToken(in: consent.body)
        let allowed = try await browser.send("POST", base + "/__/oauth/consent", form: [
            ("authorization_id", try #require(URLComponents(string: consentPath)?.queryItems?.first?.value)),
            ("form_token", formToken), ("consent", "allow"),
        ])
        let done = try #require(allowed.headers["location"], "\(allowed.status) \(allowed.body)")
        #expect(done.hasSuffix("/device?done=approved"), "\(done)")
        #expect(try await browser.send("GET", base + done).body.contains("Your device is connected"))
    }

    /// An access token a device got: an RFC 9068 JWT of the client for the user, taken at userinfo and active at
    /// introspection.
    static func expectWorks(_ token: String, fixture: ProviderFixture, clientID: String, secret: String, sub: String,
                            email: String, detail: String) async throws {
        #expect(ProviderFixture.header(token)["typ"] == "at+jwt", "\(token) \(detail)")
        let claims = ProviderFixture.claims(token)
        #expect(claims["sub"]?.stringValue == sub && claims["client_id"]?.stringValue == clientID
                    && claims["iss"]?.stringValue == fixture.issuer, "\(claims)")
        let userinfo = try await CookieBrowser().send("GET", fixture.issuer + "/userinfo", headers: ["Authorization": "Bearer \(token)"])
        #expect(userinfo.status == 200 && userinfo.json["sub"]?.stringValue == sub && userinfo.json["email"]?.stringValue == email,
                "\(userinfo.status) \(userinfo.body)")
        let introspected = try await fixture.tokenCall([("token", token)], clientID: clientID, secret: secret, endpoint: "/introspect")
        #expect(introspected.json["active"] == true && introspected.json["sub"]?.stringValue == sub
                    && introspected.json["client_id"]?.stringValue == clientID, "\(introspected.body)")
    }

    static func localID(_ email: String, _ fixture: ProviderFixture) async throws -> String {
        let reply = try await fixture.client.post("/v1/accounts:signInWithPassword", [
            "email": .string(email), "password": "secret-pass-1", "returnSecureToken": true,
        ])
        return try #require(reply.string("localId"), "\(reply.body)")
    }

    static func fixture(_ server: TestServer, _ client: TestClient) async throws -> ProviderFixture {
        let key = try await server.server.serviceAccounts.create(projectID: server.projectID)
        let bearer = try key.signedJWT(audience: "https://identitytoolkit.googleapis.com/", now: server.clock.seconds)
        return ProviderFixture(server: server, client: client, admin: ["Authorization": "Bearer \(bearer)"])
    }

    // MARK: Processes

    /// A folder of the test's own, short enough for a UNIX socket's path.
    static func scratchFolder() throws -> URL {
        let folder = URL(fileURLWithPath: "/tmp/flint-oidc-" + UUID().uuidString.prefix(8).lowercased())
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// An oidc-agent of the test's own: its HOME, config folder and socket in a scratch folder, its encryption password
    /// in the environment; stopped (and the folder removed) after `body`.
    static func withAgent(_ body: (Agent) async throws -> Void) async throws {
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let home = folder.appendingPathComponent("home"), configFolder = folder.appendingPathComponent("config")
        for made in [home, configFolder] { try FileManager.default.createDirectory(at: made, withIntermediateDirectories: true) }
        let socket = folder.appendingPathComponent("agent.sock").path
        let environment = [
            "HOME": home.path, "OIDC_CONFIG_DIR": configFolder.path, "TMPDIR": folder.path, "OIDC_SOCK": socket,
            "OIDC_ENCRYPTION_PW": "agent-password-\(UUID().uuidString.prefix(8))",
        ]
        let daemon = try Watched.launch("oidc-agent", ["--console", "--socket-path=\(socket)", "--log-stderr", "--debug"],
                                        environment: environment, log: folder.appendingPathComponent("agent.log"), seconds: 240)
        let agent = Agent(folder: folder, configFolder: configFolder, environment: environment, log: daemon)
        do {
            let deadline = Date().addingTimeInterval(10)
            while !FileManager.default.fileExists(atPath: socket) && Date() < deadline { try await Task.sleep(for: .milliseconds(100)) }
            try #require(FileManager.default.fileExists(atPath: socket), "oidc-agent made no socket: \(daemon.text())")
            try await body(agent)
        } catch {
            await daemon.stop()
            throw error
        }
        await daemon.stop()
    }

    struct Agent {
        let folder: URL
        let configFolder: URL
        let environment: [String: String]
        let log: Watched

        /// Starts one of oidc-agent's tools with the agent's environment, bounded by `seconds`.
        func run(_ tool: String, _ arguments: [String], seconds: Int) throws -> Watched {
            try Watched.launch(tool, arguments, environment: environment,
                               log: folder.appendingPathComponent("\(tool)-\(UUID().uuidString.prefix(6)).log"), seconds: seconds)
        }

        /// The standard output of a tool that should succeed at once, trimmed.
        func output(_ tool: String, _ arguments: [String]) async throws -> String {
            let process = try ChildProcess.launch("timeout", ["-k", "5", "20", tool] + arguments,
                                                  environment: ChildProcess.environment.merging(environment) { $1 })
            let result = await process.finish()
            #expect(result.status == 0, "\(tool) \(arguments) exited \(result.status): \(result.output) \(result.errors)")
            return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }

    /// A child under `timeout` whose output and errors go to a file the test reads as it grows.
    struct Watched {
        let process: ChildProcess
        let path: URL

        static func launch(_ executable: String, _ arguments: [String], environment: [String: String], log: URL,
                           seconds: Int) throws -> Watched {
            let process = try ChildProcess.launch("timeout", ["-k", "5", String(seconds), executable] + arguments,
                                                  environment: ChildProcess.environment.merging(environment) { $1 },
                                                  output: .file(log.path), errors: .standardOutput)
            return Watched(process: process, path: log)
        }

        func text() -> String { (try? String(contentsOf: path, encoding: .utf8)) ?? "" }

        /// Waits up to `seconds` for `pattern` in the output; its capture groups, or nil (at once if the child has
        /// exited without printing it).
        func waitFor(_ pattern: String, seconds: Double) async throws -> [String]? {
            let expression = try NSRegularExpression(pattern: pattern)
            let deadline = Date().addingTimeInterval(seconds)
            while Date() < deadline {
                let exited = hasExited
                let text = text()
                if let match = expression.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) {
                    return (1..<match.numberOfRanges).compactMap { Range(match.range(at: $0), in: text).map { String(text[$0]) } }
                }
                if exited { return nil }
                try await Task.sleep(for: .milliseconds(200))
            }
            return nil
        }

        /// Whether the child has exited (a zombie not yet waited for, by /proc), without reaping it.
        var hasExited: Bool {
            guard let stat = try? String(contentsOfFile: "/proc/\(process.pid)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return true }
            return stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).hasPrefix("Z")
        }

        /// Ends the child (`timeout` passes SIGTERM on) and waits for it.
        func stop() async {
            process.terminate()
            _ = await process.wait()
        }
    }
}
