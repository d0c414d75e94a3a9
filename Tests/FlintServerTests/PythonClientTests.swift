import FlintTestSupport
import Foundation
import Testing

/// Official and stock clients from PyPI against a live server (installed by scripts/test.sh).
@Suite struct PythonClientTests {
    private static let scripts = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("python")

    /// Runs a Python script and returns its exit status and output.
    private func runPython(_ script: String, environment: [String: String]) async throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", Self.scripts.appendingPathComponent(script).path]
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        // Read on a background thread while the script talks to the in-process server.
        let output = await Task.detached { String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self) }.value
        process.waitUntilExit()
        return (process.terminationStatus, output)
    }

    @Test func firebaseAdminSDKManagesUsersAndVerifiesTokens() async throws {
        try await withServer { server, _ in
            let result = try await runPython("admin_sdk_check.py", environment: [
                "FIREBASE_AUTH_EMULATOR_HOST": "127.0.0.1:\(server.port)", "FLINT_PROJECT": server.projectID,
            ])
            #expect(result.status == 0, "\(result.output)")
        }
    }

    @Test func stockJWTLibraryVerifiesAgainstJWKS() async throws {
        try await withServer(emulator: false) { server, _ in
            let result = try await runPython("jwks_check.py", environment: [
                "FLINT_URL": server.baseURL.absoluteString, "FLINT_API_KEY": server.apiKey, "FLINT_PROJECT": server.projectID,
            ])
            #expect(result.status == 0, "\(result.output)")
        }
    }
}
