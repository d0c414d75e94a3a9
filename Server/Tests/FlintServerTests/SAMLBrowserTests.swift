import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
import Testing

/// SAML single sign-on in Debian's headless Chromium (Tests/python/saml_browser.py): from the hosted `/__/auth/handler`
/// page to a test IdP written in Python, whose self-submitting form posts the signed response back to the handler,
/// and on to the app's page, which finishes with `signInWithIdp`.
@Suite struct SAMLBrowserTests {
    @Test(arguments: TestDatabase.allCases)
    func chromiumSignsInThroughATestIdP(database: TestDatabase) async throws {
        let chromium = try #require(
            Chromium.executable(),
            "chromium is not installed: scripts/test.sh installs Debian's chromium package (apt-get install -y chromium)")
        // The IdP dates its response by the wall clock, as real IdPs do: the server's runs with it.
        try await withServer(emulator: false, database: database, clock: .running()) { server, client in
            let base = "http://localhost:\(server.port)"
            let run = try await BrowserDriver.run("saml_browser.py", chromium: chromium, environment: [
                "FLINT_BASE": base, "FLINT_API_KEY": server.apiKey, "FLINT_PROJECT": server.projectID,
                "FLINT_ADMIN_AUTHORIZATION": try await SAMLSignInTests.adminAuthorization(server),
            ])
            let log = run["log"]?.arrayValue?.compactMap(\.stringValue) ?? []
            #expect(run["error"] == nil, "\(run["error"] ?? .null); log: \(log)")

            // The IdP got one AuthnRequest, signed with the SP key the admin API shows, for the handler as callback.
            let requests = run["requests"]?.arrayValue ?? []
            #expect(requests.count == 1, "\(run)")
            #expect(requests.first?["signature_verified"] == true && requests.first?["acs"]?.stringValue == base + "/__/auth/handler")

            // The browser ended on the app's page, which signed in with the link and its session ID, once.
            let app = try #require(run["app"], "\(run)")
            #expect(run["final_url"]?.stringValue?.hasSuffix("/app") == true, "\(run)")
            #expect(app["fields"]?["authType"]?.stringValue == "signInViaRedirect" && app["fields"]?["eventId"]?.stringValue == "evt-saml-1")
            let first = app["first"]?["body"]
            #expect(app["first"]?["status"]?.numberValue == 200, "\(app); log: \(log)")
            #expect(first?["providerId"]?.stringValue == "saml.acme" && first?["federatedId"]?.stringValue == "Grace@Acme.test")
            #expect(first?["email"]?.stringValue == "grace@acme.test" && first?["displayName"]?.stringValue == "Grace Hopper")
            #expect(app["replay"]?["status"]?.numberValue == 400, "\(app)")

            // The account holds the SAML identity.
            let idToken = try #require(first?["idToken"]?.stringValue)
            let user = try await client.lookup(idToken: idToken).firstUser
            #expect(user?["providerUserInfo"]?.arrayValue?.first?["providerId"]?.stringValue == "saml.acme", "\(String(describing: user))")
        }
    }
}
