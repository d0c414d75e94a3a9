import FlintServer
import FlintTestSupport
import Foundation
import Testing

/// Authlib (PyPI) as a relying party signing a user in through Flint's own hosted sign-in page in headless Chromium
/// (Tests/python/oauth_authlib_browser.py): a confidential, not first-party client made through the admin API;
/// Authlib's authorization URL (S256, nonce, state) from discovery; sign-up on the page, the consent page's allow,
/// the code at the redirect URI (state, iss), Authlib's code exchange, CodeIDToken (nonce, at_hash) and userinfo;
/// then single sign-on, a second authorization in the same browser answered with a code at once.
@Suite struct OAuthAuthlibBrowserTests {
    @Test func authlibSignsInThroughFlintsPageInChromium() async throws {
        let chromium = try #require(
            Chromium.executable(),
            "chromium is not installed: scripts/test.sh installs Debian's chromium package (apt-get install -y chromium)")
        // Authlib checks the tokens' dates against the wall clock: the server's runs with it.
        try await withServer(emulator: false, clock: .running()) { server, _ in
            try await PythonScripts.withKeyFile(of: server) { path in
                let run = try await BrowserDriver.run("oauth_authlib_browser.py", chromium: chromium, environment: [
                    "FLINT_URL": server.baseURL.absoluteString, "FLINT_API_KEY": server.apiKey,
                    "FLINT_PROJECT": server.projectID, "FLINT_KEY_FILE": path,
                ], timeoutSeconds: 90)
                let diagnostics = BrowserDriver.diagnostics(run, sections: ["checks"])
                #expect(run["error"] == nil, "\(diagnostics)")
                #expect(run["checks"]?.arrayValue?.count == 10, "\(diagnostics)")
                let first = run["first_claims"], second = run["second_claims"]
                #expect(first?["sub"] != nil && first?["sub"] == second?["sub"], "\(diagnostics)")
            }
        }
    }
}
