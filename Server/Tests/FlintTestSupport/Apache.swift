import Foundation

/// Debian's Apache httpd (`apache2`) on 127.0.0.1, serving a folder of static pages with its stock limits (a request
/// line of at most 8,190 bytes: `LimitRequestLine`'s default), as an app's own web server would. Started in the
/// foreground with a configuration of its own (no systemd, no `/etc/apache2`), on a free port; `stop` ends it.
public final class Apache: Sendable {
    public let port: Int
    public var baseURL: URL { URL(string: "http://localhost:\(port)")! }
    private let process: ChildProcess
    private let folder: URL

    public static let executable = "/usr/sbin/apache2"
    private static let modules = "/usr/lib/apache2/modules"

    private init(port: Int, process: ChildProcess, folder: URL) {
        self.port = port
        self.process = process
        self.folder = folder
    }

    /// Starts Apache serving `pages` (path → content) from a scratch folder, once it answers.
    public static func start(pages: [String: String]) async throws -> Apache {
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw ChildProcessError(description: "apache2 is not installed: scripts/test.sh installs Debian's apache2 package")
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("flint-apache-\(UUID().uuidString)")
        let root = folder.appendingPathComponent("www")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        for (path, content) in pages {
            try Data(content.utf8).write(to: root.appendingPathComponent(path))
        }
        // Run as root, Apache's children become www-data, who must read the pages.
        for path in [folder.path, root.path] { try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path) }
        for path in pages.keys {
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: root.appendingPathComponent(path).path)
        }
        var lastFailure = ""
        for _ in 0..<3 {
            // A port the kernel just handed out, then let go: another process taking it in between only costs a retry.
            let probe = try LoopbackSocket.listening()
            let port = probe.port
            probe.close()
            let configuration = folder.appendingPathComponent("httpd.conf")
            try Data(config(port: port, folder: folder).utf8).write(to: configuration)
            let process = try ChildProcess.launch(executable, ["-f", configuration.path, "-DFOREGROUND"], output: .null)
            let apache = Apache(port: port, process: process, folder: folder)
            if await apache.answers() { return apache }
            process.terminate()
            lastFailure = await process.finish().errors
        }
        try? FileManager.default.removeItem(at: folder)
        throw ChildProcessError(description: "apache2 did not start: \(lastFailure)")
    }

    /// Ends Apache and removes its folder.
    public func stop() async {
        process.terminate()
        _ = await process.wait()
        try? FileManager.default.removeItem(at: folder)
    }

    /// The access log's lines: `<status> <request line>`.
    public func accessLog() -> [String] {
        let text = (try? String(contentsOf: folder.appendingPathComponent("access.log"), encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map(String.init)
    }

    private func answers() async -> Bool {
        // Polled for at most five seconds: Apache says nothing when it is ready.
        for _ in 0..<100 {
            if let connection = try? LoopbackSocket.connected(to: port) {
                connection.close()
                return true
            }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return false
    }

    private static func config(port: Int, folder: URL) -> String {
        let user = getuid() == 0 ? "User www-data\nGroup www-data\n" : ""
        return """
            ServerRoot "\(folder.path)"
            ServerName localhost
            Listen 127.0.0.1:\(port)
            LoadModule mpm_event_module \(modules)/mod_mpm_event.so
            LoadModule authz_core_module \(modules)/mod_authz_core.so
            LoadModule mime_module \(modules)/mod_mime.so
            \(user)PidFile "\(folder.path)/httpd.pid"
            Mutex file:\(folder.path) default
            ErrorLog "\(folder.path)/error.log"
            LogFormat "%>s %r" plain
            CustomLog "\(folder.path)/access.log" plain
            TypesConfig /etc/mime.types
            DocumentRoot "\(folder.path)/www"
            <Directory "\(folder.path)/www">
                Require all granted
            </Directory>

            """
    }
}
