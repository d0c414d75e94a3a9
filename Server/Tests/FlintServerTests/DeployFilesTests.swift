import FlintTestSupport
import Foundation
import Testing

/// `deploy/`: the systemd unit and the Containerfile say what `docs/production.md` promises, and systemd accepts the unit.
@Suite struct DeployFilesTests {
    /// The repository's root (this file is in `Server/Tests/FlintServerTests/`).
    private static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    private static func lines(_ file: String) throws -> [String] {
        try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8).split(separator: "\n")
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty && !$0.hasPrefix("#") }
    }

    @Test func theUnitIsHardened() throws {
        let settings = Set(try Self.lines("deploy/flint.service"))
        for required in ["DynamicUser=yes", "ProtectSystem=strict", "ReadWritePaths=/var/lib/flint", "StateDirectory=flint",
                         "NoNewPrivileges=yes", "PrivateTmp=yes", "ProtectHome=yes", "CapabilityBoundingSet=",
                         "ExecReload=/bin/kill -HUP $MAINPID"] {
            #expect(settings.contains(required), "deploy/flint.service lacks \(required)")
        }
        #expect(settings.contains { $0.hasPrefix("ExecStart=/usr/local/bin/flint serve ") && $0.contains("--data-dir /var/lib/flint") })
    }

    /// `systemd-analyze verify` (Debian's systemd package, present on these machines) parses the unit and checks
    /// every setting's name and value; the unit runs the flint that was built.
    @Test func systemdAcceptsTheUnit() async throws {
        let analyze = "/usr/bin/systemd-analyze"
        try #require(FileManager.default.isExecutableFile(atPath: analyze), "systemd-analyze is missing (apt-get install systemd)")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("flint-unit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let unit = try String(contentsOf: Self.root.appendingPathComponent("deploy/flint.service"), encoding: .utf8)
            .replacingOccurrences(of: "/usr/local/bin/flint", with: Self.root.appendingPathComponent("Server/.build/debug/flint").path)
        let path = folder.appendingPathComponent("flint.service").path
        try unit.write(toFile: path, atomically: true, encoding: .utf8)
        let result = try await ChildProcess.launch(analyze, ["verify", path]).finish()
        #expect(result.status == 0, "systemd-analyze verify: \(result.errors)\(result.output)")
    }

    @Test func theContainerIsMultiStageAndNotRoot() throws {
        let lines = try Self.lines("deploy/Containerfile")
        #expect(lines.filter { $0.hasPrefix("FROM ") }.count == 2)
        #expect(lines.contains { $0.hasPrefix("COPY --from=build ") })
        let user = try #require(lines.last { $0.hasPrefix("USER ") })
        #expect(!user.contains("root") && !user.hasPrefix("USER 0"))
        #expect(lines.contains { $0.hasPrefix("ENTRYPOINT [\"/usr/local/bin/flint\", \"serve\"") })
    }
}
