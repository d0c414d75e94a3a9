import FlintAdminCore
@testable import FlintAdminHummingbird
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// `AccessTokenMiddleware` and the metadata route in Hummingbird's router test client, with a real `AdminAuth` whose
/// keys a fake transport serves and whose clock stands at the instant the tokens were made: tokens from
/// `Server/Tests/python/forge_access_tokens.py` (Python's `cryptography`, independent of Flint) for the provider's
/// default resource, `<issuer>/userinfo`, with the scopes `openid email notes:read`.
@Suite struct AccessTokenMiddlewareTests {
    static let server = "https://flint.example"
    static let project = "forged-project"
    static let resource = "\(server)/\(project)/userinfo"
    static let metadataURL = "\(server)/.well-known/oauth-protected-resource/\(project)/userinfo"
    static let now = Date(timeIntervalSince1970: 1_700_000_000)

    @Test func theVerifiedTokenReachesTheHandler() async throws {
        let tokens = try ForgedTokens.make()
        try await Self.app(keys: .served(tokens.jwks)).test(.router) { client in
            try await client.execute(uri: "/api/whoami", method: .get, headers: [.authorization: "Bearer " + tokens.token("valid")]) {
                #expect($0.status == .ok)
                #expect(String(buffer: $0.body) == "user-1 client-1 openid email notes:read")
            }
            // The scheme's name in any case, and more than one space (RFC 6750 §2.1, RFC 9110 §11.1).
            try await client.execute(uri: "/api/whoami", method: .get, headers: [.authorization: "bearer  " + tokens.token("valid")]) {
                #expect($0.status == .ok)
            }
        }
    }

    @Test func aRequestWithoutATokenIsToldWhereTheMetadataIs() async throws {
        try await Self.app(keys: .unreachable).test(.router) { client in
            for headers: HTTPFields in [[:], [.authorization: "Basic dXNlcjpwYXNz"], [.authorization: "Bearer"]] {
                try await client.execute(uri: "/api/whoami", method: .get, headers: headers) {
                    #expect($0.status == .unauthorized, "\(headers)")
                    #expect($0.headers[.wwwAuthenticate] == "Bearer resource_metadata=\"\(Self.metadataURL)\"", "\(headers)")
                }
            }
        }
    }

    @Test func refusedTokensAreInvalidTokens() async throws {
        let tokens = try ForgedTokens.make()
        let challenge = "Bearer resource_metadata=\"\(Self.metadataURL)\", error=\"invalid_token\""
        try await Self.app(keys: .served(tokens.jwks)).test(.router) { client in
            let refused = [try tokens.token("expired"), try tokens.token("signed-by-another-key"), try tokens.token("wrong-audience"),
                           try tokens.token("firebase-id-token"), "not a token"]
            for token in refused {
                try await client.execute(uri: "/api/whoami", method: .get, headers: [.authorization: "Bearer " + token]) {
                    #expect($0.status == .unauthorized && $0.headers[.wwwAuthenticate] == challenge, "\(token)")
                }
            }
            // A genuine token, but for another resource than this server's.
            try await client.execute(uri: "/other/whoami", method: .get, headers: [.authorization: "Bearer " + tokens.token("valid")]) {
                #expect($0.status == .unauthorized)
                #expect($0.headers[.wwwAuthenticate]
                    == "Bearer resource_metadata=\"https://api.example/.well-known/oauth-protected-resource/mcp\", error=\"invalid_token\"")
            }
        }
    }

    @Test func missingScopesAreForbiddenWithTheScopesNamed() async throws {
        let tokens = try ForgedTokens.make()
        try await Self.app(keys: .served(tokens.jwks)).test(.router) { client in
            let bearer: HTTPFields = [.authorization: "Bearer " + (try tokens.token("valid"))]
            // The middleware's own requiredScopes.
            try await client.execute(uri: "/notes/list", method: .get, headers: bearer) {
                #expect($0.status == .forbidden)
                #expect($0.headers[.wwwAuthenticate]
                    == "Bearer resource_metadata=\"\(Self.metadataURL)\", error=\"insufficient_scope\", scope=\"notes:write\"")
            }
            // A handler's, with every scope it requires named (those the token has too).
            try await client.execute(uri: "/api/write", method: .post, headers: bearer) {
                #expect($0.status == .forbidden)
                #expect($0.headers[.wwwAuthenticate]
                    == "Bearer resource_metadata=\"\(Self.metadataURL)\", error=\"insufficient_scope\", scope=\"notes:read notes:write\"")
            }
            try await client.execute(uri: "/api/read", method: .get, headers: bearer) {
                #expect($0.status == .ok && String(buffer: $0.body) == "user-1 may read")
            }
        }
    }

    /// Tokens that could not be checked are the server's failure: no challenge, 503 or 500.
    @Test func checksThatCannotBeMadeAreServerErrors() async throws {
        let tokens = try ForgedTokens.make()
        let bearer: HTTPFields = [.authorization: "Bearer " + (try tokens.token("valid"))]
        try await Self.app(keys: .unreachable).test(.router) { client in
            try await client.execute(uri: "/api/whoami", method: .get, headers: bearer) {
                #expect($0.status == .serviceUnavailable && $0.headers[.wwwAuthenticate] == nil)
            }
        }
        // checkRevoked without an introspection client.
        try await Self.app(keys: .served(tokens.jwks)).test(.router) { client in
            try await client.execute(uri: "/revocable/whoami", method: .get, headers: bearer) {
                #expect($0.status == .internalServerError && $0.headers[.wwwAuthenticate] == nil)
            }
        }
    }

    @Test func theMetadataIsServedAtBothWellKnownPaths() async throws {
        let metadata = Self.metadata
        try await Self.app(keys: .unreachable).test(.router) { client in
            for path in ["/.well-known/oauth-protected-resource/\(Self.project)/userinfo", "/.well-known/oauth-protected-resource"] {
                try await client.execute(uri: path, method: .get) { response in
                    #expect(response.status == .ok && response.headers[.contentType] == "application/json", "\(path)")
                    let served = try JSONDecoder().decode(ProtectedResourceMetadata.self, from: Data(buffer: response.body))
                    #expect(served == metadata, "\(path)")
                }
            }
        }
        #expect(throws: AdminError.self) {
            try Router(context: TestContext.self).addProtectedResourceMetadata(ProtectedResourceMetadata(resource: "urn:example:api",
                                                                                                       authorizationServers: []))
        }
    }

    static let metadata = ProtectedResourceMetadata(resource: resource, authorizationServers: ["\(server)/\(project)"],
                                                    scopesSupported: ["notes:read", "notes:write"])

    /// `/api` (any token for `resource`), `/notes` (`notes:write` required), `/revocable` (`checkRevoked`) and
    /// `/other` (tokens for another resource), each answering with the token's subject.
    static func app(keys: FakeKeys) throws -> some ApplicationProtocol {
        let auth = try AdminAuth(projectID: project, credential: .verificationOnly, endpoints: .flint(URL(string: server)!),
                                 transport: keys, now: { now })
        let router = Router(context: TestContext.self)
        try router.addProtectedResourceMetadata(metadata)
        let api = router.group("api").add(middleware: AccessTokenMiddleware(auth: auth, metadata: metadata))
        api.get("whoami") { _, context in
            let token = try context.accessToken(requiring: [])
            return "\(token.subject) \(token.clientID) \(token.scopes.joined(separator: " "))"
        }
        api.get("read") { _, context in "\(try context.accessToken(requiring: ["notes:read"]).subject) may read" }
        api.post("write") { _, context in "\(try context.accessToken(requiring: ["notes:read", "notes:write"]).subject) wrote" }
        router.group("notes").add(middleware: AccessTokenMiddleware(auth: auth, metadata: metadata, requiredScopes: ["notes:write"]))
            .get("list") { _, _ in "notes" }
        router.group("revocable").add(middleware: AccessTokenMiddleware(auth: auth, metadata: metadata, checkRevoked: true))
            .get("whoami") { _, _ in "still active" }
        let other = ProtectedResourceMetadata(resource: "https://api.example/mcp", authorizationServers: ["\(server)/\(project)"])
        router.group("other").add(middleware: AccessTokenMiddleware(auth: auth, metadata: other))
            .get("whoami") { _, _ in "for another resource" }
        return Application(router: router)
    }

    @Test func bearerTokensAreReadFromTheHeader() {
        #expect(AccessTokenMiddleware<TestContext>.bearerToken("Bearer abc.def") == "abc.def")
        #expect(AccessTokenMiddleware<TestContext>.bearerToken("BEARER abc ") == "abc")
        #expect(AccessTokenMiddleware<TestContext>.bearerToken("Bearer") == nil)
        #expect(AccessTokenMiddleware<TestContext>.bearerToken("Basic abc") == nil)
    }
}

struct TestContext: AccessTokenRequestContext {
    var coreContext: CoreRequestContextStorage
    var accessToken: VerifiedAccessToken?

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
    }
}

/// A Flint server's JWKS, served (cacheable ten minutes) or not at all.
enum FakeKeys: AdminTransport {
    case served(Data)
    case unreachable

    func send(_ request: AdminHTTPRequest) async throws -> AdminHTTPResponse {
        guard case .served(let jwks) = self, request.method == "GET", request.url.path == "/.well-known/jwks.json" else {
            return AdminHTTPResponse(status: 503, headers: [:], body: Data())
        }
        return AdminHTTPResponse(status: 200, headers: ["Cache-Control": "public, max-age=600"], body: jwks)
    }
}

/// The keys and tokens `forge_access_tokens.py` makes for `server`'s `project` at `now`.
struct ForgedTokens {
    let jwks: Data
    let tokens: [String: String]

    static func make() throws -> ForgedTokens {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../../../Server/Tests/python/forge_access_tokens.py")
            .standardizedFileURL
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path, AccessTokenMiddlewareTests.server, AccessTokenMiddlewareTests.project, "tenant-1",
                             String(Int(AccessTokenMiddlewareTests.now.timeIntervalSince1970))]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "forge_access_tokens.py failed")
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let jwks = try JSONSerialization.data(withJSONObject: try #require(object["jwks"]))
        return ForgedTokens(jwks: jwks, tokens: try #require(object["tokens"] as? [String: String]))
    }

    func token(_ name: String) throws -> String { try #require(tokens[name], "no token \(name)") }
}
