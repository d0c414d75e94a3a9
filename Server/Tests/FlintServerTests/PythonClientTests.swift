import FlintTestSupport
import Foundation
import Testing

/// Official and stock clients from PyPI against a live server (installed by scripts/test.sh).
@Suite struct PythonClientTests {
    private func expectSuccess(_ script: String, _ environment: [String: String],
                               sourceLocation: SourceLocation = #_sourceLocation) async throws {
        try await PythonScripts.expectSuccess(script, environment, sourceLocation: sourceLocation)
    }

    /// A production server and the path of a service-account key file of its project.
    private func withProductionKeyFile(_ body: (TestServer, String) async throws -> Void) async throws {
        // Google's libraries date what they sign by the wall clock: the server's runs with it.
        try await withServer(emulator: false, clock: .running()) { server, _ in
            try await PythonScripts.withKeyFile(of: server) { path in try await body(server, path) }
        }
    }

    @Test func firebaseAdminSDKManagesUsersAndVerifiesTokens() async throws {
        try await withServer { server, _ in
            // `revoke_refresh_tokens` sets validSince from the script's clock: keep the server's behind it, so
            // tokens issued before the revocation are older than it whatever the timing.
            server.clock.advance(seconds: -5)
            try await expectSuccess("admin_sdk_check.py", [
                "FIREBASE_AUTH_EMULATOR_HOST": "127.0.0.1:\(server.port)", "FLINT_PROJECT": server.projectID,
            ])
        }
    }

    /// Production admin access with a service-account key file: Google's libraries exchange or self-sign
    /// JWTs with it, the Admin SDK mints custom tokens with it; an API key alone is refused.
    @Test func serviceAccountKeysAuthenticateAdminCallsAndSignCustomTokens() async throws {
        try await withProductionKeyFile { server, path in
            try await expectSuccess("admin_production_check.py", [
                "FLINT_URL": server.baseURL.absoluteString, "FLINT_API_KEY": server.apiKey, "FLINT_PROJECT": server.projectID,
                "FLINT_KEY_FILE": path,
            ])
        }
    }

    /// `tenant_mgt` makes tenants; the same email in two tenants is two accounts; sign-ins carry their tenant.
    @Test func firebaseAdminManagesTenantsInEmulatorMode() async throws {
        try await withServer { server, _ in
            try await expectSuccess("tenants_check.py", [
                "FIREBASE_AUTH_EMULATOR_HOST": "127.0.0.1:\(server.port)", "FLINT_URL": server.baseURL.absoluteString,
                "FLINT_API_KEY": server.apiKey, "FLINT_PROJECT": server.projectID,
            ])
        }
    }

    /// The same, in production, with a service-account key file.
    @Test func firebaseAdminManagesTenantsWithAServiceAccount() async throws {
        try await withProductionKeyFile { server, path in
            try await expectSuccess("tenants_check.py", [
                "FLINT_URL": server.baseURL.absoluteString, "FLINT_API_KEY": server.apiKey, "FLINT_PROJECT": server.projectID,
                "FLINT_KEY_FILE": path,
            ])
        }
    }

    @Test func stockJWTLibraryVerifiesAgainstJWKS() async throws {
        try await withServer(emulator: false) { server, _ in
            try await expectSuccess("jwks_check.py", [
                "FLINT_URL": server.baseURL.absoluteString, "FLINT_API_KEY": server.apiKey, "FLINT_PROJECT": server.projectID,
            ])
        }
    }
}
