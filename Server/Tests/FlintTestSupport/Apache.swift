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
        try await start(pages: pages, modules: []) { _ in "" }
    }

    /// The modules an OpenID Connect relying party needs beside the stock ones: Debian's mod_auth_openidc
    /// (libapache2-mod-auth-openidc), `AuthType` (authn_core), `Require valid-user` (authz_user), and server-side
    /// includes (include) for pages that show what the module passes on (`<!--#echo var="OIDC_CLAIM_email" -->`).
    public static let openIDConnectModules = ["authn_core", "authz_user", "include", "auth_openidc"]

    /// Starts Apache as `start(pages:)` does, with mod_auth_openidc and the modules it needs loaded
    /// (`openIDConnectModules`) and `configuration`'s directives appended (`OIDC…`, `<Location>`…).
    public static func openIDConnect(pages: [String: String], configuration: (_ port: Int) async throws -> String)
        async throws -> Apache {
        guard FileManager.default.fileExists(atPath: "\(modules)/mod_auth_openidc.so") else {
            throw ChildProcessError(description:
                "mod_auth_openidc is not installed: scripts/test.sh installs Debian's libapache2-mod-auth-openidc package")
        }
        return try await start(pages: pages, modules: openIDConnectModules, configuration: configuration)
    }

    /// Starts Apache serving `pages` (path → content; a path may name folders, which are made), with `modules`
    /// (names: `include` is `include_module` in `mod_include.so`) loaded beside the stock ones, and the directives
    /// `configuration` gives for the port picked (a relying party's redirect URIs name it) appended; once it answers.
    /// `configuration` runs again for another port if Apache could not listen on the first.
    public static func start(pages: [String: String], modules extra: [String],
                             configuration: (_ port: Int) async throws -> String) async throws -> Apache {
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw ChildProcessError(description: "apache2 is not installed: scripts/test.sh installs Debian's apache2 package")
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("flint-apache-\(UUID().uuidString)")
        let root = folder.appendingPathComponent("www")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        // Run as root, Apache's children become www-data, who must read the pages (and search their folders).
        for path in [folder.path, root.path] { try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path) }
        for (path, content) in pages {
            let file = root.appendingPathComponent(path)
            var parent = file.deletingLastPathComponent()
            try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
            while parent.standardizedFileURL.path != root.standardizedFileURL.path {
                try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: parent.path)
                parent = parent.deletingLastPathComponent()
            }
            try Data(content.utf8).write(to: file)
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file.path)
        }
        var lastFailure = ""
        for _ in 0..<3 {
            // A port the kernel just handed out, then let go: another process taking it in between only costs a retry.
            let probe = try LoopbackSocket.listening()
            let port = probe.port
            probe.close()
            let directives: String
            do { directives = try await configuration(port) } catch {
                try? FileManager.default.removeItem(at: folder)
                throw error
            }
            let file = folder.appendingPathComponent("httpd.conf")
            try Data((config(port: port, folder: folder, modules: extra) + directives + "\n").utf8).write(to: file)
            let process = try ChildProcess.launch(executable, ["-f", file.path, "-DFOREGROUND"], output: .null)
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

    /// The error log (with whatever `LogLevel` the configuration set), for a test's failure message.
    public func errorLog() -> String {
        (try? String(contentsOf: folder.appendingPathComponent("error.log"), encoding: .utf8)) ?? ""
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

    private static func config(port: Int, folder: URL, modules extra: [String]) -> String {
        let user = getuid() == 0 ? "User www-data\nGroup www-data\n" : ""
        let loads = extra.map { "LoadModule \($0)_module \(modules)/mod_\($0).so\n" }.joined()
        return """
            ServerRoot "\(folder.path)"
            ServerName localhost
            Listen 127.0.0.1:\(port)
            LoadModule mpm_event_module \(modules)/mod_mpm_event.so
            LoadModule authz_core_module \(modules)/mod_authz_core.so
            LoadModule mime_module \(modules)/mod_mime.so
            \(loads)\(user)PidFile "\(folder.path)/httpd.pid"
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
