import FlintTestSupport
import Foundation
import Testing

/// Official and stock clients from PyPI against a live server (installed by scripts/test.sh).
@Suite struct PythonClientTests {
    private static let scripts = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("python")

    /// Runs a Python script and returns its exit status and output.
    private func runPython(_ script: String, environment: [String: String]) async throws -> (status: Int32, output: String) {
        let process = try ChildProcess.launch(
            "python3", [Self.scripts.appendingPathComponent(script).path],
            environment: ChildProcess.environment.merging(environment) { $1 }, errors: .standardOutput)
        let result = await process.finish()
        return (result.status, result.output)
    }

    /// A production server and the path of a service-account key file of its project.
    private func withProductionKeyFile(_ body: (TestServer, String) async throws -> Void) async throws {
        try await withServer(emulator: false) { server, _ in
            let keyFile = try await server.server.serviceAccounts.create(projectID: server.projectID)
            // Google's libraries sign with the wall clock: the server's starts where it is now.
            server.clock.advance(seconds: Date().timeIntervalSince(server.clock.now()))
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("flint-key-\(UUID().uuidString).json")
            try JSONEncoder().encode(keyFile).write(to: path)
            defer { try? FileManager.default.removeItem(at: path) }
            try await body(server, path.path)
        }
    }

    @Test func firebaseAdminSDKManagesUsersAndVerifiesTokens() async throws {
        try await withServer { server, _ in
            // `revoke_refresh_tokens` sets validSince from the script's clock: keep the server's behind it, so
            // tokens issued before the revocation are older than it whatever the timing.
            server.clock.advance(seconds: -5)
            let result = try await runPython("admin_sdk_check.py", environment: [
                "FIREBASE_AUTH_EMULATOR_HOST": "127.0.0.1:\(server.port)", "FLINT_PROJECT": server.projectID,
            ])
            #expect(result.status == 0, "\(result.output)")
        }
    }

    /// Production admin access with a service-account key file: Google's libraries exchange or self-sign
    /// JWTs with it, the Admin SDK mints custom tokens with it; an API key alone is refused.
    @Test func serviceAccountKeysAuthenticateAdminCallsAndSignCustomTokens() async throws {
        try await withProductionKeyFile { server, path in
            let result = try await runPython("admin_production_check.py", environment: [
                "FLINT_URL": server.baseURL.absoluteString, "FLINT_API_KEY": server.apiKey, "FLINT_PROJECT": server.projectID,
                "FLINT_KEY_FILE": path,
            ])
            #expect(result.status == 0, "\(result.output)")
        }
    }

    /// `tenant_mgt` makes tenants; the same email in two tenants is two accounts; sign-ins carry their tenant.
    @Test func firebaseAdminManagesTenantsInEmulatorMode() async throws {
        try await withServer { server, _ in
            let result = try await runPython("tenants_check.py", environment: [
                "FIREBASE_AUTH_EMULATOR_HOST": "127.0.0.1:\(server.port)", "FLINT_URL": server.baseURL.absoluteString,
                "FLINT_API_KEY": server.apiKey, "FLINT_PROJECT": server.projectID,
            ])
            #expect(result.status == 0, "\(result.output)")
        }
    }

    /// The same, in production, with a service-account key file.
    @Test func firebaseAdminManagesTenantsWithAServiceAccount() async throws {
        try await withProductionKeyFile { server, path in
            let result = try await runPython("tenants_check.py", environment: [
                "FLINT_URL": server.baseURL.absoluteString, "FLINT_API_KEY": server.apiKey, "FLINT_PROJECT": server.projectID,
                "FLINT_KEY_FILE": path,
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
