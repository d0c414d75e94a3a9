import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
import Testing

/// Debian's headless Chromium uses the console as an operator would (Tests/python/console_browser.py):
/// signs in with a service-account key file (signed in the browser), finds and disables a user, enables
/// Facebook, adds test numbers until the eleventh is refused, removes one, reads the dashboard's charts and
/// signs out. Screenshots of every step are kept in `.build/test-artifacts/console` (or `FLINT_SCREENSHOT_DIR`); the
/// users list's (`02-users.png`, over `ConsoleTests.mixedLoad`) is printed.
@Suite struct ConsoleBrowserTests {
    private static let screenshots = ProcessInfo.processInfo.environment["FLINT_SCREENSHOT_DIR"].map(URL.init(fileURLWithPath:))
        ?? URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(".build/test-artifacts/console")

    @Test func anOperatorUsesTheConsoleInChromium() async throws {
        let chromium = try #require(
            Chromium.executable(), "chromium is not installed: scripts/test.sh installs Debian's chromium package")
        try await withServer(emulator: false) { server, client in
            try await ConsoleTests.mixedLoad(in: server.projectID, server)
            let uid = try #require(try await client.signUp(email: "operator-finds@example.com", password: "secret-pass").string("localId"))
            // Something for the dashboard's errors chart.
            #expect(try await client.post("/v1/accounts:signInWithPassword", [
                "email": "operator-finds@example.com", "password": "wrong-pass", "returnSecureToken": true]).status == 400)
            let keyFile = try await server.server.serviceAccounts.create(projectID: server.projectID)
            let keyPath = FileManager.default.temporaryDirectory.appendingPathComponent("flint-console-key-\(UUID().uuidString).json")
            try JSONEncoder().encode(keyFile).write(to: keyPath)
            defer { try? FileManager.default.removeItem(at: keyPath) }
            try? FileManager.default.removeItem(at: Self.screenshots)

            let run = try await BrowserDriver.run("console_browser.py", chromium: chromium, environment: [
                "FLINT_CONSOLE_URL": server.baseURL.absoluteString + "/console", "FLINT_KEY_FILE": keyPath.path,
                "FLINT_USER_EMAIL": "operator-finds@example.com", "FLINT_SCREENSHOTS": Self.screenshots.path,
            ], timeoutSeconds: 180)
            let log = (run["log"]?.arrayValue ?? []).compactMap(\.stringValue)

            #expect(run["login"]?["page"] == "users", "sign-in failed: \(run["login"] ?? .null); log: \(log)")
            #expect(run["search"]?["uids"] == .array([.string(uid)]))
            #expect(run["userBefore"] == "Enabled" && run["userAfter"] == "Disabled")
            #expect(run["disableNotice"]?.stringValue?.contains("disabled") == true)
            #expect(run["facebook"]?["status"] == "Enabled" && run["facebook"]?["error"] == .null, "\(run["facebook"] ?? .null)")
            let adds = (run["adds"]?.arrayValue ?? []).compactMap(\.objectValue)
            try #require(adds.count == 11, "adds: \(adds)")
            for (index, add) in adds.prefix(10).enumerated() {
                #expect(add["error"] == .null && add["rows"] == .number(Double(index + 1)), "add \(index): \(add)")
            }
            #expect(adds[10]["error"]?.stringValue?.contains("At most 10") == true && adds[10]["rows"] == .number(10))
            #expect(run["afterRemove"]?["rows"] == .number(9) && run["afterRemove"]?["removedGone"] == .bool(true))
            // The dashboard's SVG charts, laid out by the browser: the sign-up, the failed sign-in.
            let charts = run["dashboard"]?.objectValue ?? [:]
            #expect(charts["chart-sign-ins"]?["total"] == .number(1) && charts["chart-errors"]?["total"] == .number(1), "\(charts)")
            for id in ["chart-sign-ins", "chart-errors"] {
                let width = charts[id]?["width"]?.numberValue ?? 0, height = charts[id]?["height"]?.numberValue ?? 0
                #expect(width > 300 && height > 10, "\(id) is not laid out: \(charts[id] ?? .null)")
            }
            #expect(run["signedOut"] == .bool(true))
            #expect(!log.contains { $0.contains("Content Security Policy") || $0.hasPrefix("exception") }, "\(log)")

            // What the browser did is what the server holds.
            #expect(try await server.server.store.accounts.user(projectID: server.projectID, localID: uid)?.disabled == true)
            let settings = try #require(try await server.server.projects.project(server.projectID)).settings
            #expect(settings.identityProviders["facebook.com"]?.enabled == true
                    && settings.identityProviders["facebook.com"]?.clientID == "1234567890"
                    && settings.identityProviders["facebook.com"]?.sealedClientSecret != nil)
            #expect(settings.phone.testNumbers.count == 9 && settings.phone.testNumbers["+16505551000"] == nil)

            let shots = (run["screenshots"]?.arrayValue ?? []).compactMap(\.stringValue)
            #expect(shots.count == 10, "\(shots)")
            let usersShot = try #require(shots.first { $0.hasSuffix("02-users.png") }, "\(shots)")
            print("The users list in Chromium: \(usersShot)")
            for shot in shots {
                let bytes = try Data(contentsOf: URL(fileURLWithPath: shot))
                #expect(bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) && bytes.count > 5000, "\(shot) is not a screenshot")
            }
        }
    }
}
