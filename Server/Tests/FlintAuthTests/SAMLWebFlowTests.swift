@testable import FlintAuth
import FlintTestSupport
import FlintWire
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// `OAuthProvider(providerID: "saml.…")` signs in through the web flow, as FirebaseAuth does with an Identity Platform
/// SAML provider: the server's `/__/auth/handler` page sends the browser to the IdP with an AuthnRequest, the IdP (written
/// in Python: `Tests/python/saml_flow.py`, signing with signxml) posts its response back to the page, and the page sends
/// the browser on to the app's scheme with the link the app finishes with.
@Suite struct SAMLWebFlowTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("python/saml_flow.py")

    static func python(_ command: String, _ argument: JSONValue) async throws -> JSONValue {
        let text = String(decoding: try JSONEncoder().encode(argument), as: UTF8.self)
        let (status, output, errors) = await (try ChildProcess.launch("python3", [script.path, command, text])).finish()
        guard status == 0 else { throw URLError(.badServerResponse, userInfo: [NSLocalizedDescriptionKey: errors + output]) }
        return try JSONDecoder().decode(JSONValue.self, from: Data(output.utf8))
    }

    /// A browser that meets a SAML IdP: it follows the handler to the IdP, takes the IdP's answer and posts it, as the
    /// IdP's self-submitting form would, to the callback the request names.
    final class SAMLBrowser: WebAuthenticationPresenter, @unchecked Sendable {
        // @unchecked Sendable: `opened` is only touched under `lock`.
        private let lock = NSLock()
        private var opened: [URL] = []
        var visited: [URL] { lock.withLock { opened } }
        let idp: @Sendable (URL) async throws -> JSONValue

        init(idp: @escaping @Sendable (URL) async throws -> JSONValue) {
            self.idp = idp
        }

        func authenticate(url: URL, callbackURLScheme: String) async throws -> URL {
            let handler = try await TestBrowser.get(url)
            guard let idpURL = handler.location else { throw URLError(.badServerResponse) }
            let answer = try await idp(idpURL)
            guard let acs = answer["request"]?["acs"]?.stringValue.flatMap(URL.init(string:)) else { throw URLError(.badURL) }
            let back = try await TestBrowser.post(acs, form: [
                ("SAMLResponse", answer["saml_response"]?.stringValue ?? ""), ("RelayState", answer["relay_state"]?.stringValue ?? ""),
            ])
            lock.withLock { opened += [url, idpURL, acs] }
            guard let end = back.location, end.scheme == callbackURLScheme else { throw URLError(.badServerResponse) }
            return end
        }
    }

    @Test func anOAuthProviderOfASAMLProviderSignsInThroughTheIdP() async throws {
        let server = try await TestServer.start(emulator: false)
        let name = "flint-saml-flow-\(UUID().uuidString)"
        do {
            let keys = try await Self.python("keypair", ["cn": "Corp IdP"])
            let entity = "https://idp.corp.test/saml"
            let callback = server.baseURL.absoluteString + "/__/auth/handler"
            // Production mode's admin credential: a service account's self-signed JWT.
            let key = try await server.server.serviceAccounts.create(projectID: server.projectID)
            let bearer = try key.signedJWT(audience: "https://identitytoolkit.googleapis.com/", now: server.clock.seconds)
            let config: JSONValue = [
                "displayName": "Corp", "enabled": true,
                "idpConfig": ["idpEntityId": .string(entity), "ssoUrl": "https://idp.corp.test/sso",
                              "idpCertificates": [["x509Certificate": keys["cert_pem"] ?? .null]]],
                "spConfig": ["spEntityId": "https://app.corp.test", "callbackUri": .string(callback)],
                "emailVerifiedByIdp": true,
            ]
            let created = try await TestClient(server).send(
                "POST", "/v2/projects/\(server.projectID)/inboundSamlConfigs?inboundSamlConfigId=saml.corp",
                body: try JSONEncoder().encode(config), headers: ["Authorization": "Bearer \(bearer)"], includeKey: false)
            #expect(created.status == 200, "\(created.body)")

            let options = FirebaseOptions(apiKey: server.apiKey, projectID: server.projectID, serverURL: server.baseURL)
            options.bundleID = "com.example.Flint"
            options.googleAppID = "1:1234567890:ios:abcdef"
            try await server.registerIOSApp(bundleID: "com.example.Flint", appID: "1:1234567890:ios:abcdef")
            FirebaseApp.configure(name: name, options: options)
            let app = try #require(FirebaseApp.app(name: name))
            let auth = Auth(app: app, credentialStore: InMemoryCredentialStore(), httpClient: URLSessionHTTPClient.shared)
            let now = server.clock.now().timeIntervalSince1970
            let browser = SAMLBrowser { idpURL in
                let reply = try await SAMLWebFlowTests.python("answer", [
                    "idp": keys, "entity_id": .string(entity), "now": .number(now),
                    "cases": [["auth_uri": .string(idpURL.absoluteString), "name_id": "ada@corp.test",
                               "attributes": ["displayName": ["Ada Lovelace"]]]],
                ])
                guard let answer = reply["answers"]?.arrayValue?.first else { throw URLError(.badServerResponse) }
                return answer
            }
            auth.webAuthenticationPresenter = browser

            let result = try await auth.signIn(with: OAuthProvider(providerID: "saml.corp", auth: auth), uiDelegate: nil)
            #expect(result.user.email == "ada@corp.test" && result.user.isEmailVerified)
            #expect(result.user.displayName == "Ada Lovelace")
            #expect(result.additionalUserInfo?.providerID == "saml.corp" && result.additionalUserInfo?.isNewUser == true)
            #expect(result.user.providerData.first?.providerID == "saml.corp")
            #expect(browser.visited.map { $0.path } == ["/__/auth/handler", "/sso", "/__/auth/handler"])
        } catch {
            Issue.record(error)
        }
        await FirebaseApp.app(name: name)?.delete()
        try await server.stop()
    }
}

private extension JSONValue {
    subscript(key: String) -> JSONValue? { objectValue?[key] }
}
