@testable import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
import Testing

/// The official MCP Python SDK (PyPI `mcp`) signing a user in through Flint, end to end (Tests/python/mcp_flow.py):
/// its OAuth client, configured with nothing but an MCP server's URL, against an MCP server built with the same SDK
/// and protected by Flint's access tokens (a TokenVerifier checking them with PyJWT against Flint's JWKS). From the
/// server's 401 it reads the protected resource metadata, then Flint's; gets a client through dynamic registration
/// (RFC 7591) or, with `client_id_metadata_document_supported`, as a Client ID Metadata Document served over https on
/// loopback; the user signs up on Flint's page and allows on the consent page in headless Chromium; the SDK exchanges
/// the code and calls the `whoami` tool, which answers the user's `sub`. A token the same client got for another
/// registered resource is refused by that server with a 401, and a refresh asking for the other resource is refused.
@Suite struct MCPClientTests {
    enum Mode: String { case dcr, cimd }

    @Test func theSDKRegistersItselfDynamicallyAndCallsATool() async throws {
        try await Self.scenario(.dcr)
    }

    @Test func theSDKUsesAClientIDMetadataDocumentAndCallsATool() async throws {
        try await Self.scenario(.cimd)
    }

    private static func scenario(_ mode: Mode) async throws {
        let chromium = try #require(
            Chromium.executable(),
            "chromium is not installed: scripts/test.sh installs Debian's chromium package (apt-get install -y chromium)")
        let probe = try ChildProcess.launch("python3", ["-c", "import mcp, httpx2, uvicorn, jwt, google.auth"],
                                            environment: ChildProcess.environment, errors: .standardOutput)
        let probed = await probe.finish()
        try #require(probed.status == 0,
                     "the MCP Python SDK (PyPI package mcp) is not installed: pip install -r Server/Tests/python/requirements.txt\n\(probed.output)")
        // The document's host is 127.0.0.1, served with a certificate of this CA, which the server trusts.
        let ca = try FakeCertificateAuthority()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("flint-mcp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let certificate = folder.appendingPathComponent("server.pem"), key = folder.appendingPathComponent("server-key.pem")
        try Data(ca.serverCertificatePEM.utf8).write(to: certificate)
        try Data(ca.serverPrivateKeyPEM.utf8).write(to: key)

        // The resource servers check the tokens' dates (PyJWT) against the wall clock: the server's runs with it.
        try await withServer(emulator: false, clock: .running(), configure: {
            $0.delivery.extraTrustRootsPEM = [ca.caCertificatePEM]
            $0.delivery.allowLoopbackClientMetadata = true
        }) { server, client in
            let project = server.projectID
            let serviceAccount = try await server.server.serviceAccounts.create(projectID: project)
            let bearer = try serviceAccount.signedJWT(audience: "https://identitytoolkit.googleapis.com/", now: server.clock.seconds)
            let admin = ["Authorization": "Bearer \(bearer)"]
            let issuer = server.baseURL.absoluteString + "/" + project

            // Only the way under test is on: registration, or metadata documents.
            let setting = mode == .dcr
                ? #"{"oauthServer":{"dynamicClientRegistration":{"enabled":true,"allowedRedirectUris":["LOOPBACK"]}}}"#
                : #"{"oauthServer":{"clientIdMetadataDocuments":{"enabled":true}}}"#
            let configured = try await client.send("PATCH", "/v2/projects/\(project)/config?updateMask=oauthServer",
                                                   body: Data(setting.utf8), headers: admin)
            #expect(configured.status == 200, "\(configured.body)")
            let metadata = try await CookieBrowser().send("GET", server.baseURL.absoluteString
                                                          + "/.well-known/oauth-authorization-server/\(project)")
            switch mode {
            case .dcr:
                #expect(metadata.json["registration_endpoint"]?.stringValue == issuer + "/register", "\(metadata.body)")
            case .cimd:
                #expect(metadata.json["client_id_metadata_document_supported"] == true, "\(metadata.body)")
                #expect(metadata.json["registration_endpoint"] == nil, "\(metadata.body)")
            }

            try await PythonScripts.withKeyFile(of: server) { path in
                let run = try await BrowserDriver.run("mcp_flow.py", chromium: chromium, environment: [
                    "FLINT_URL": server.baseURL.absoluteString, "FLINT_PROJECT": project, "FLINT_KEY_FILE": path,
                    "FLINT_MODE": mode.rawValue, "FLINT_TLS_CERT": certificate.path, "FLINT_TLS_KEY": key.path,
                ], timeoutSeconds: 150)
                let diagnostics = BrowserDriver.diagnostics(
                    run, sections: ["checks", "requests", "authorizations", "consent_pages", "refusals", "notes", "document_requests"])
                #expect(run["error"] == nil, "\(diagnostics)")
                // The resources, the 401, the sign-up, two consent pages and two redirects, the client, the tool, the
                // other resource's token, two refusals and the refresh.
                #expect(run["checks"]?.arrayValue?.count == 13, "\(diagnostics)")
                let sub = try #require(run["whoami"]?["sub"]?.stringValue, "\(diagnostics)")
                let clientID = try #require(run["client_id"]?.stringValue, "\(diagnostics)")

                // The user the tool named is the one who signed up on the page.
                let looked = try await client.post("/v1/projects/\(project)/accounts:lookup", ["localId": [.string(sub)]],
                                                   headers: admin)
                let email = looked["users"]?.arrayValue?.first?["email"]?.stringValue
                #expect(email?.hasPrefix("mcp-sdk-") == true, "\(looked.body)")

                let listed = try await client.send("GET", "/v2/projects/\(project)/oauthClients", headers: admin)
                let clients = listed["oauthClients"]?.arrayValue ?? []
                switch mode {
                case .dcr:
                    // The SDK's registration, shown to an admin as registered dynamically.
                    let registered = clients.first { $0["clientId"]?.stringValue == clientID }
                    #expect(registered?["registeredDynamically"] == true, "\(listed.body)")
                    #expect(registered?["displayName"]?.stringValue == "MCP SDK agent", "\(listed.body)")
                case .cimd:
                    // The client is its document's URL, fetched by Flint; no client was registered.
                    #expect(clientID.hasPrefix("https://127.0.0.1:") && clientID.hasSuffix("/mcp-agent/client.json"), "\(clientID)")
                    #expect((run["document_requests"]?.arrayValue?.count ?? 0) > 0, "\(diagnostics)")
                    #expect(!clients.contains { $0["registeredDynamically"] == true }, "\(listed.body)")
                }
            }
        }
    }
}
