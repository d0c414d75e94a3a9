import FlintTestSupport
import FlintWire
import Foundation

/// Runs one of the Python DevTools drivers in Tests/python against Debian's headless Chromium and decodes
/// the JSON object it prints.
enum BrowserDriver {
    private static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("python")

    /// Runs `script` with `FLINT_CHROMIUM`, `FLINT_TIMEOUT` (ten seconds under `timeoutSeconds`) and
    /// `environment`. The driver stops the browser itself; `timeout` is the backstop (TERM, which the driver
    /// turns into killing chromium's session, then KILL).
    static func run(_ script: String, chromium: String, environment extra: [String: String],
                    timeoutSeconds: Int = 120) async throws -> [String: JSONValue] {
        var environment = ChildProcess.environment
        environment["FLINT_CHROMIUM"] = chromium
        environment["FLINT_TIMEOUT"] = "\(max(timeoutSeconds - 10, 10))"
        environment.merge(extra) { _, new in new }
        let errorLog = FileManager.default.temporaryDirectory.appendingPathComponent("flint-driver-\(UUID().uuidString).txt")
        defer { try? FileManager.default.removeItem(at: errorLog) }
        let process = try ChildProcess.launch(
            "/usr/bin/timeout", ["--kill-after=5", "\(timeoutSeconds)", "python3", directory.appendingPathComponent(script).path],
            environment: environment, errors: .file(errorLog.path))
        let (status, out, _) = await process.finish()
        let err = (try? String(contentsOf: errorLog, encoding: .utf8)) ?? ""
        guard status == 0 else {
            throw DriverError(description: status == 124 || status == 137
                ? "\(script) did not finish within \(timeoutSeconds) s:\n\(err.suffix(3000))\n\(out.suffix(3000))"
                : "\(script) failed (status \(status)):\n\(err.suffix(3000))\n\(out.suffix(3000))")
        }
        let json = try JSONDecoder().decode(JSONValue.self, from: Data(out.utf8))
        guard let object = json.objectValue else { throw DriverError(description: "unexpected \(script) output: \(out)") }
        return object
    }
}

extension BrowserDriver {
    /// The URLs of a run's list `key` (`navigations`: the documents the browser asked for, as
    /// `devtools.record_navigations` records them).
    static func urls(_ run: [String: JSONValue], _ key: String = "navigations") -> [String] {
        (run[key]?.arrayValue ?? []).compactMap { $0["url"]?.stringValue }
    }

    /// A run's report, for a failing expectation's message: its error and last URL, its `sections`, its URL lists, its
    /// log, then `extra` lines.
    static func diagnostics(_ run: [String: JSONValue], sections: [String] = ["steps"], urlLists: [String] = ["navigations"],
                            extra: [String] = []) -> String {
        var lines = ["\(run["error"] ?? .null) at \(run["last_url"] ?? .null)"]
        lines += sections.map { "\($0): \(run[$0] ?? .null)" }
        lines += urlLists.map { "\($0): \(urls(run, $0).joined(separator: "\n  "))" }
        lines.append("log: \(run["log"] ?? .null)")
        return (lines + extra).joined(separator: "\n")
    }
}

struct DriverError: Error, CustomStringConvertible {
    let description: String
}
