import FlintServer
import FlintTestSupport
import Foundation
import Testing

/// Authlib (PyPI, installed by scripts/test.sh) as a relying party of the project's OpenID provider, through the
/// team's own sign-in page: discovery, PKCE, the team page's approval, the code exchange, ID and access token
/// validation, userinfo, refresh, introspection and revocation, then a machine client's own token (client credentials,
/// for a registered resource), all over plain HTTP.
@Suite struct OAuthAuthlibTests {
    private static let signInPage = "https://app.example/signin"

    @Test func authlibSignsInThroughTheTeamsPage() async throws {
        // Authlib checks the tokens' dates against the wall clock: the server's runs with it.
        try await withServer(emulator: false, clock: .running()) { server, _ in
            _ = try await server.server.projects.updateSettings(server.projectID) {
                $0.oauthServer = OAuthServerSettings(signInPageURL: Self.signInPage)
            }
            try await PythonScripts.withKeyFile(of: server) { path in
                try await PythonScripts.expectSuccess("oauth_authlib_check.py", [
                    "FLINT_URL": server.baseURL.absoluteString, "FLINT_API_KEY": server.apiKey, "FLINT_PROJECT": server.projectID,
                    "FLINT_KEY_FILE": path, "FLINT_SIGN_IN_PAGE": Self.signInPage,
                ])
            }
        }
    }
}
