import FlintServer
import FlintTestSupport
import Foundation
import Testing

/// Authlib (PyPI, installed by scripts/test.sh) as a relying party of the project's OpenID provider, through the
/// team's own sign-in page: discovery, PKCE, the team page's approval, the code exchange, ID and access token
/// validation, userinfo, refresh, introspection and revocation, all over plain HTTP.
@Suite struct OAuthAuthlibTests {
    private static let scripts = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("python")
    private static let signInPage = "https://app.example/signin"

    /// Runs a Python script with `environment` and expects it to exit 0 (its output is the failure's detail).
    private func expectSuccess(_ script: String, _ environment: [String: String],
                               sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let process = try ChildProcess.launch(
            "python3", [Self.scripts.appendingPathComponent(script).path],
            environment: ChildProcess.environment.merging(environment) { $1 }, errors: .standardOutput)
        let result = await process.finish()
        #expect(result.status == 0, "\(result.output)", sourceLocation: sourceLocation)
    }

    @Test func authlibSignsInThroughTheTeamsPage() async throws {
        // Authlib checks the tokens' dates against the wall clock: the server's runs with it.
        try await withServer(emulator: false, clock: .running()) { server, _ in
            _ = try await server.server.projects.updateSettings(server.projectID) {
                $0.oauthServer = OAuthServerSettings(signInPageURL: Self.signInPage)
            }
            let keyFile = try await server.server.serviceAccounts.create(projectID: server.projectID)
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("flint-key-\(UUID().uuidString).json")
            try JSONEncoder().encode(keyFile).write(to: path)
            defer { try? FileManager.default.removeItem(at: path) }
            try await expectSuccess("oauth_authlib_check.py", [
                "FLINT_URL": server.baseURL.absoluteString, "FLINT_API_KEY": server.apiKey, "FLINT_PROJECT": server.projectID,
                "FLINT_KEY_FILE": path.path, "FLINT_SIGN_IN_PAGE": Self.signInPage,
            ])
        }
    }
}
