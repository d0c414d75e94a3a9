import FlintAdmin
import FlintAdminHummingbird
import Foundation
import Hummingbird

/// An MCP server's HTTP side (the Streamable HTTP transport, JSON answers only) whose tools need access tokens of a
/// Flint project's OpenID provider. From the environment:
/// - `FLINT_SERVER_URL` and `FLINT_PROJECT_ID`: the Flint server (production mode) and the project whose tokens count;
/// - `MCP_RESOURCE_URL`: this server's resource identifier, registered in the project (`flint oauth-resources create`),
///   whose path is the JSON-RPC endpoint: `http://127.0.0.1:8080/mcp`;
/// - `FLINT_INTROSPECTION_CLIENT_ID` and `FLINT_INTROSPECTION_CLIENT_SECRET` (optional): a confidential client of the
///   project, with which each token is checked for revocation (`checkRevoked`);
/// - `PORT`: the port to listen on on 127.0.0.1 (8080 by default; 0 picks one, printed on start).
@main
struct MCPServerApp {
    static func main() async throws {
        let environment = ProcessInfo.processInfo.environment
        guard let server = environment["FLINT_SERVER_URL"].flatMap(URL.init(string:)), let project = environment["FLINT_PROJECT_ID"],
              let resource = environment["MCP_RESOURCE_URL"], let path = URLComponents(string: resource)?.path, !path.isEmpty
        else {
            fatalError("Set FLINT_SERVER_URL, FLINT_PROJECT_ID and MCP_RESOURCE_URL (an absolute URL with a path)")
        }
        // Verifying access tokens makes no admin call (the keys are public, introspection authenticates as its client),
        // so the server holds no service-account key.
        let verifier = try AdminAuth(projectID: project, credential: .verificationOnly, endpoints: .flint(server))
        let client = environment["FLINT_INTROSPECTION_CLIENT_ID"].flatMap { id in
            environment["FLINT_INTROSPECTION_CLIENT_SECRET"].map { (id: id, secret: $0) }
        }
        let auth = try client.map { try verifier.introspecting(clientID: $0.id, clientSecret: $0.secret) } ?? verifier
        let metadata = ProtectedResourceMetadata(resource: resource, issuedBy: auth, scopesSupported: Tool.all.map(\.scope),
                                                 resourceName: "Flint's MCP example")

        let router = Router(context: MCPRequestContext.self)
        try router.addProtectedResourceMetadata(metadata)
        router.group(RouterPath(path))
            .add(middleware: AccessTokenMiddleware(auth: auth, metadata: metadata, checkRevoked: client != nil))
            .post(use: MCPEndpoint(notes: Notes()).respond)
            // No server-sent event stream: every answer is the POST's JSON (Streamable HTTP allows 405 here).
            .get { _, _ in HTTPResponse.Status.methodNotAllowed }

        let app = Application(
            router: router,
            configuration: .init(address: .hostname("127.0.0.1", port: Int(environment["PORT"] ?? "") ?? 8080)),
            onServerRunning: { channel in
                // Written at once (print's output waits in a buffer when it goes to a pipe).
                FileHandle.standardOutput.write(Data("MCPServer is listening on port \(channel.localAddress?.port ?? 0)\n".utf8))
            })
        try await app.runService()
    }
}

/// Hummingbird's context, plus the caller's verified access token.
struct MCPRequestContext: AccessTokenRequestContext {
    var coreContext: CoreRequestContextStorage
    var accessToken: VerifiedAccessToken?

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
    }
}
