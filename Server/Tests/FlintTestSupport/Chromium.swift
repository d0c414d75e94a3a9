import Foundation

/// Runs Debian's headless Chromium on a page and returns the DOM its scripts leave (the captcha page's
/// tests: the server's, and the SDK's end to end).
public enum Chromium {
    /// `chromium` on PATH, else /usr/bin/chromium.
    public static func executable() -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let candidates = path.split(separator: ":").map { "\($0)/chromium" } + ["/usr/bin/chromium"]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// The DOM of `url` once its scripts have run (up to 30 s of virtual time; the browser is killed,
    /// with its children, after `timeoutSeconds`). Waits on Dispatch, never on the cooperative pool.
    public static func dumpDOM(of url: String, executable: String, timeoutSeconds: Int) async throws -> String {
        let profile = FileManager.default.temporaryDirectory.appendingPathComponent("flint-chromium-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: profile, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: profile) }
        let errorLog = profile.appendingPathComponent("stderr.txt")
        _ = FileManager.default.createFile(atPath: errorLog.path, contents: nil)

        var environment = ChildProcess.environment
        environment["HOME"] = profile.path
        // coreutils' timeout signals the whole process group it leads, so Chromium's helpers go too.
        let process = try ChildProcess.launch(
            "/usr/bin/timeout", ["--kill-after=5", "\(timeoutSeconds)", executable] + arguments(profile: profile.path) + [url],
            environment: environment, errors: .file(errorLog.path))
        let (status, dom, _) = await process.finish()
        guard status == 0 else {
            let log = (try? String(contentsOf: errorLog, encoding: .utf8)) ?? ""
            throw ChromiumError(
                description: status == 124 || status == 137
                    ? "chromium did not finish within \(timeoutSeconds) s; its log ends:\n\(log.suffix(2000))"
                    : "chromium exited with status \(status); its log ends:\n\(log.suffix(2000))")
        }
        return dom
    }

    static func arguments(profile: String) -> [String] {
        [
            "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
            "--no-default-browser-check", "--disable-extensions", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--user-data-dir=\(profile)",
            "--virtual-time-budget=30000", "--dump-dom",
        ]
    }

    /// The `href` of the element with `id`, from serialised HTML.
    public static func href(ofElementWithID id: String, in html: String) -> String? {
        guard let idRange = html.range(of: "id=\"\(id)\""),
              let tagStart = html.range(of: "<", options: .backwards, range: html.startIndex..<idRange.lowerBound),
              let tagEnd = html.range(of: ">", range: idRange.upperBound..<html.endIndex)
        else { return nil }
        let tag = html[tagStart.lowerBound..<tagEnd.upperBound]
        guard let hrefStart = tag.range(of: "href=\""),
              let hrefEnd = tag.range(of: "\"", range: hrefStart.upperBound..<tag.endIndex)
        else { return nil }
        return String(tag[hrefStart.upperBound..<hrefEnd.lowerBound])
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&lt;", with: "<")
            .replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&amp;", with: "&")
    }
}

public struct ChromiumError: Error, CustomStringConvertible {
    public let description: String
}
