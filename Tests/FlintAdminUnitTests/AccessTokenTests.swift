@testable import FlintAdminCore
import FlintWire
import Foundation
import Testing

/// `verifyAccessToken` against access tokens made by an independent implementation (Python's `cryptography`, see
/// `Server/Tests/python/forge_access_tokens.py`), with the keys and the introspection endpoint served by a fake
/// transport: the genuine ones pass, each forgery is refused with its error. Then RFC 9728's metadata and RFC 6750's
/// challenge.
@Suite struct AccessTokenTests {
    static let server = "https://flint.example"
    static let project = "forged-project"
    static let tenant = "tenant-1"
    static let issuer = "\(server)/\(project)"
    static let resource = "\(issuer)/userinfo"
    static let now = Date(timeIntervalSince1970: 1_700_000_000)

    /// Each forgery, and what verifying it for `resource` throws.
    static let refusals: [(token: String, code: AccessTokenError.Code, says: String)] = [
        ("typ-jwt", .invalidAccessToken, "not at+jwt"), ("no-typ", .invalidAccessToken, "not at+jwt"),
        ("firebase-id-token", .invalidAccessToken, "not at+jwt"),
        ("firebase-claims-typed-at+jwt", .invalidAccessToken, "issuer"),
        ("wrong-audience", .invalidAccessToken, "not \(resource)"),
        ("audience-array-without-resource", .invalidAccessToken, "not \(resource)"),
        ("numeric-audience", .invalidAccessToken, "audience"), ("no-audience", .invalidAccessToken, "audience"),
        ("wrong-issuer", .invalidAccessToken, "issuer"), ("tenant-issuer", .invalidAccessToken, "issuer"),
        ("signed-by-another-key", .invalidAccessToken, "signature"), ("unknown-kid", .invalidAccessToken, "no-such-key"),
        ("no-kid", .invalidAccessToken, "kid"), ("alg-none", .invalidAccessToken, "not RS256"),
        ("hs256-with-the-public-key", .invalidAccessToken, "not RS256"),
        ("payload-changed-after-signing", .invalidAccessToken, "signature"),
        ("no-subject", .invalidAccessToken, "sub"), ("no-client-id", .invalidAccessToken, "client_id"),
        ("numeric-scope", .invalidAccessToken, "scope"), ("issued-in-the-future", .invalidAccessToken, "future"),
        ("not-yet-valid", .invalidAccessToken, "nbf"), ("no-expiry", .invalidAccessToken, "exp"),
        ("no-issued-at", .invalidAccessToken, "iat"),
        ("expired", .accessTokenExpired, "expired"), ("expired-a-second-ago", .accessTokenExpired, "expired"),
    ]

    @Test func genuineTokensPassAndEveryForgeryIsRefused() async throws {
        let forgery = try Forged.make()
        let server = FakeIssuer(jwks: forgery.jwks)
        let auth = try Self.client(server)
        let token = try await auth.verifyAccessToken(try forgery.token("valid"), resource: Self.resource, requiredScopes: ["openid"])
        #expect(token.subject == "user-1" && token.uid == "user-1" && token.clientID == "client-1")
        #expect(token.scopes == ["openid", "email", "notes:read"] && token.hasScope("notes:read") && !token.hasScope("notes"))
        #expect(token.audiences == [Self.resource] && token.issuer == Self.issuer && token.tenantID == nil)
        #expect(token.issuedAt == Self.now.addingTimeInterval(-100) && token.expiresAt == Self.now.addingTimeInterval(3500))
        #expect(token.authTime == Self.now.addingTimeInterval(-200) && token.tokenID == "family-1.abc")
        #expect(token["acr"] == "urn:flint:acr:1fa")
        for name in ["valid-typ-application-at+jwt", "valid-typ-in-capitals", "valid-audience-array", "valid-not-before-now"] {
            let other = try await auth.verifyAccessToken(try forgery.token(name), resource: Self.resource)
            #expect(other.subject == "user-1", "\(name)")
        }
        #expect(try await auth.verifyAccessToken(try forgery.token("valid-audience-array"), resource: "https://other.example/api")
            .audiences == ["https://other.example/api", Self.resource])

        for (name, code, says) in Self.refusals {
            await expectRefusal(code, says, name) { try await auth.verifyAccessToken(try forgery.token(name), resource: Self.resource) }
        }
        for garbage in ["", "a.b", "a.b.c.d", "not a token", "e30.e30.", "....."] {
            await expectRefusal(.invalidAccessToken, "", garbage) { try await auth.verifyAccessToken(garbage, resource: Self.resource) }
        }
        // A genuine token for another resource.
        await expectRefusal(.invalidAccessToken, "not https://api.example/mcp") {
            try await auth.verifyAccessToken(try forgery.token("valid"), resource: "https://api.example/mcp")
        }
        // The keys were fetched once (their Cache-Control allows ten minutes), introspection never asked.
        #expect(server.requests.count == 1 && server.requests.first?.url.absoluteString == Self.server + "/.well-known/jwks.json")
    }

    /// An ID token's checks keep refusing access tokens, even of the same keys and issuer, and even with an ID token's
    /// claims: the header's `typ: at+jwt` says what it is.
    @Test func idTokenVerificationRefusesAccessTokens() async throws {
        let forgery = try Forged.make()
        let auth = try Self.client(FakeIssuer(jwks: forgery.jwks))
        for name in ["valid", "valid-in-tenant", "valid-typ-application-at+jwt", "firebase-claims-typed-at+jwt"] {
            await expectAdmin(.invalidIDToken, name) { try await auth.verifyIDToken(try forgery.token(name)) }
            await expectAdmin(.invalidSessionCookie, name) { try await auth.verifySessionCookie(try forgery.token(name)) }
        }
    }

    @Test func scopesAreRequiredOneByOne() async throws {
        let forgery = try Forged.make()
        let auth = try Self.client(FakeIssuer(jwks: forgery.jwks))
        let token = try forgery.token("valid")
        _ = try await auth.verifyAccessToken(token, resource: Self.resource, requiredScopes: ["notes:read", "openid", "email"])
        do {
            _ = try await auth.verifyAccessToken(token, resource: Self.resource, requiredScopes: ["notes:read", "notes:write", "admin"])
            Issue.record("a token without notes:write passed")
        } catch let error as AccessTokenError {
            #expect(error.code == .insufficientScope && error.missingScopes == ["notes:write", "admin"], "\(error)")
            #expect(error.requiredScopes == ["notes:read", "notes:write", "admin"] && error.httpStatus == 403)
            #expect(error.bearerError == "insufficient_scope")
        }
        // An invalid token is refused as invalid, whatever scopes it lacks.
        await expectRefusal(.invalidAccessToken, "signature") {
            try await auth.verifyAccessToken(try forgery.token("signed-by-another-key"), resource: Self.resource, requiredScopes: ["x"])
        }
    }

    /// A tenant's client takes its tenant's tokens only, a project's client none of its tenants'.
    @Test func tenantsHaveIssuersOfTheirOwn() async throws {
        let forgery = try Forged.make()
        let auth = try Self.client(FakeIssuer(jwks: forgery.jwks))
        let tenant = auth.tenant(Self.tenant)
        #expect(tenant.accessTokenIssuer == Self.issuer + "/tenants/" + Self.tenant && auth.accessTokenIssuer == Self.issuer)
        let tenantResource = tenant.accessTokenIssuer + "/userinfo"
        let token = try await tenant.verifyAccessToken(try forgery.token("valid-in-tenant"), resource: tenantResource)
        #expect(token.tenantID == Self.tenant && token.issuer == tenant.accessTokenIssuer)
        await expectRefusal(.invalidAccessToken, "issuer") {
            try await auth.verifyAccessToken(try forgery.token("valid-in-tenant"), resource: tenantResource)
        }
        await expectRefusal(.invalidAccessToken, "issuer") {
            try await tenant.verifyAccessToken(try forgery.token("valid"), resource: Self.resource)
        }
        await expectRefusal(.invalidAccessToken, "issuer") {
            try await auth.tenant("tenant-2").verifyAccessToken(try forgery.token("valid-in-tenant"), resource: tenantResource)
        }
    }

    @Test func clockSkewIsAllowedBothWays() async throws {
        let forgery = try Forged.make()
        let auth = try Self.client(FakeIssuer(jwks: forgery.jwks), clockSkew: 5)
        _ = try await auth.verifyAccessToken(try forgery.token("expired-a-second-ago"), resource: Self.resource)
        await expectRefusal(.accessTokenExpired, "expired") {
            try await auth.verifyAccessToken(try forgery.token("expired"), resource: Self.resource)
        }
        let late = try Self.client(FakeIssuer(jwks: forgery.jwks), clock: MovingClock(Self.now.addingTimeInterval(-110)), clockSkew: 0)
        await expectRefusal(.invalidAccessToken, "future") {
            try await late.verifyAccessToken(try forgery.token("valid"), resource: Self.resource)
        }
        let lenient = try Self.client(FakeIssuer(jwks: forgery.jwks), clock: MovingClock(Self.now.addingTimeInterval(-110)), clockSkew: 60)
        _ = try await lenient.verifyAccessToken(try forgery.token("valid"), resource: Self.resource)
    }

    @Test func revocationIsAskedOfTheIntrospectionEndpointAndKeptBriefly() async throws {
        let forgery = try Forged.make()
        let server = FakeIssuer(jwks: forgery.jwks)
        let clock = MovingClock(Self.now)
        let auth = try Self.client(server, clock: clock)
        let token = try forgery.token("valid")
        // Without an introspection client, checkRevoked cannot be honoured.
        await expectAdmin(.missingIntrospectionClient) {
            try await auth.verifyAccessToken(token, resource: Self.resource, checkRevoked: true)
        }
        #expect(throws: AdminError.self) { try auth.introspecting(clientID: "", clientSecret: "s") }
        #expect(throws: AdminError.self) { try auth.introspecting(clientID: "c", clientSecret: "s", cacheLifetime: 301) }

        let resourceServer = try auth.introspecting(clientID: "notes api", clientSecret: "s3cret:+/=")
        server.introspection = (200, #"{"active":true,"client_id":"client-1","sub":"user-1"}"#)
        _ = try await resourceServer.verifyAccessToken(token, resource: Self.resource, checkRevoked: true)
        let asked = try #require(server.introspections.first)
        #expect(asked.method == "POST" && asked.url.absoluteString == Self.issuer + "/introspect")
        #expect(asked.headers["Content-Type"] == "application/x-www-form-urlencoded")
        let basic = Data("notes%20api:s3cret%3A%2B%2F%3D".utf8).base64EncodedString()
        #expect(asked.headers["Authorization"] == "Basic " + basic, "\(asked.headers)")
        let form = Dictionary(FormURLEncoding.decode(String(decoding: asked.body ?? Data(), as: UTF8.self)), uniquingKeysWith: { a, _ in a })
        #expect(form["token"] == token && form["token_type_hint"] == "access_token")

        // The positive answer stands for 30 seconds: a revocation in between is seen after them.
        server.introspection = (200, #"{"active":false}"#)
        clock.advance(29)
        _ = try await resourceServer.verifyAccessToken(token, resource: Self.resource, checkRevoked: true)
        #expect(server.introspections.count == 1)
        clock.advance(2)
        await expectRefusal(.accessTokenRevoked, "no longer active") {
            try await resourceServer.verifyAccessToken(token, resource: Self.resource, checkRevoked: true)
        }
        #expect(server.introspections.count == 2)
        // Refusals are not kept; without checkRevoked the issuer is not asked.
        await expectRefusal(.accessTokenRevoked, "no longer active") {
            try await resourceServer.verifyAccessToken(token, resource: Self.resource, checkRevoked: true)
        }
        _ = try await resourceServer.verifyAccessToken(token, resource: Self.resource)
        #expect(server.introspections.count == 3)
        // A refused token is refused before the issuer is asked.
        await expectRefusal(.invalidAccessToken, "not at+jwt") {
            try await resourceServer.verifyAccessToken(try forgery.token("typ-jwt"), resource: Self.resource, checkRevoked: true)
        }
        #expect(server.introspections.count == 3)

        // Refused credentials, and answers that are no introspection response, are the resource server's fault.
        server.introspection = (401, #"{"error":"invalid_client","error_description":"Unknown client."}"#)
        await expectAdmin(.invalidCredential) {
            try await resourceServer.verifyAccessToken(token, resource: Self.resource, checkRevoked: true)
        }
        server.introspection = (200, #"{"ok":true}"#)
        await expectAdmin(.internalError) { try await resourceServer.verifyAccessToken(token, resource: Self.resource, checkRevoked: true) }
        server.introspection = (503, "busy")
        await expectAdmin(.internalError) { try await resourceServer.verifyAccessToken(token, resource: Self.resource, checkRevoked: true) }

        // A tenant of the result has no introspection client: clients are their realm's only.
        await expectAdmin(.missingIntrospectionClient) {
            try await resourceServer.tenant(Self.tenant).verifyAccessToken(try forgery.token("valid-in-tenant"),
                                                                            resource: Self.issuer + "/tenants/\(Self.tenant)/userinfo",
                                                                            checkRevoked: true)
        }
        // With no cache, each check asks.
        let uncached = try auth.introspecting(clientID: "c", clientSecret: "s", cacheLifetime: 0)
        server.introspection = (200, #"{"active":true}"#)
        let before = server.introspections.count
        _ = try await uncached.verifyAccessToken(token, resource: Self.resource, checkRevoked: true)
        _ = try await uncached.verifyAccessToken(token, resource: Self.resource, checkRevoked: true)
        #expect(server.introspections.count == before + 2)
    }

    @Test func emulatorClientsVerifyNoAccessTokens() async throws {
        let auth = try AdminAuth(projectID: "p", credential: .emulatorOwner, endpoints: .emulator(host: "127.0.0.1:9099"),
                                 transport: RefusingTransport())
        await expectAdmin(.invalidArgument) { try await auth.verifyAccessToken("a.b.c", resource: "https://api.example/mcp") }
    }

    @Test func aVerifyingClientMakesNoAdminCall() async throws {
        let auth = try Self.client(RefusingTransport())
        await expectAdmin(.invalidCredential) { _ = try await auth.user(uid: "someone") }
        await expectAdmin(.invalidCredential) { _ = try auth.createCustomToken(uid: "someone") }
    }

    // MARK: Metadata and challenges

    @Test func protectedResourceMetadataIsRFC9728s() throws {
        let auth = try Self.client(RefusingTransport())
        let metadata = ProtectedResourceMetadata(resource: "https://api.example.com/mcp", issuedBy: auth,
                                                 scopesSupported: ["notes:read", "notes:write"], resourceName: "Notes",
                                                 resourceDocumentation: "https://api.example.com/docs")
        let json = try JSONDecoder().decode(JSONValue.self, from: try metadata.jsonData())
        #expect(json == .object([
            "resource": "https://api.example.com/mcp", "authorization_servers": .array([.string(Self.issuer)]),
            "scopes_supported": .array(["notes:read", "notes:write"]), "bearer_methods_supported": .array(["header"]),
            "resource_name": "Notes", "resource_documentation": "https://api.example.com/docs",
        ]), "\(json)")
        #expect(String(decoding: try metadata.jsonData(), as: UTF8.self).contains(#""https://api.example.com/mcp""#))
        let bare = try JSONDecoder().decode(JSONValue.self, from: try ProtectedResourceMetadata(
            resource: "https://api.example.com", authorizationServers: [Self.issuer]).jsonData())
        #expect(bare.objectValue?.keys.sorted() == ["authorization_servers", "bearer_methods_supported", "resource"])
        #expect(try JSONDecoder().decode(ProtectedResourceMetadata.self, from: try metadata.jsonData()) == metadata)

        let wellKnown = "/.well-known/oauth-protected-resource"
        let cases: [(String, String?)] = [
            ("https://api.example.com/mcp", "https://api.example.com\(wellKnown)/mcp"),
            ("https://api.example.com", "https://api.example.com\(wellKnown)"),
            ("https://api.example.com/", "https://api.example.com\(wellKnown)"),
            ("https://api.example.com/a/b/", "https://api.example.com\(wellKnown)/a/b"),
            ("http://127.0.0.1:8080/mcp?v=2", "http://127.0.0.1:8080\(wellKnown)/mcp?v=2"),
            ("https://user@api.example.com:8443/x", "https://user@api.example.com:8443\(wellKnown)/x"),
            ("https://api.example.com/mcp#top", nil), ("/mcp", nil), ("urn:example:api", nil), ("ftp://api.example.com/x", nil),
            ("", nil),
        ]
        for (resource, url) in cases {
            #expect(ProtectedResourceMetadata.wellKnownURL(for: resource) == url, "\(resource)")
        }
        #expect(ProtectedResourceMetadata.wellKnownPath(for: "https://api.example.com/mcp") == "\(wellKnown)/mcp")
        #expect(ProtectedResourceMetadata.wellKnownPath(for: "https://api.example.com") == wellKnown)
        #expect(metadata.wellKnownURL == "https://api.example.com\(wellKnown)/mcp")
    }

    @Test func challengesAreRFC6750s() {
        let metadata = ProtectedResourceMetadata(resource: "https://api.example.com/mcp", authorizationServers: [Self.issuer])
        let url = "https://api.example.com/.well-known/oauth-protected-resource/mcp"
        #expect(metadata.challenge() == #"Bearer resource_metadata="\#(url)""#)
        let invalid = AccessTokenError(.invalidAccessToken, #"the token's type is "JWT", not at+jwt \ é"#)
        #expect(metadata.challenge(for: invalid) == #"Bearer resource_metadata="\#(url)", error="invalid_token""#)
        #expect(metadata.challenge(for: invalid, includeDescription: true)
            == #"Bearer resource_metadata="\#(url)", error="invalid_token", error_description="the token's type is JWT, not at+jwt  ""#)
        #expect(metadata.challenge(for: AccessTokenError(.accessTokenExpired, "expired"))
            == #"Bearer resource_metadata="\#(url)", error="invalid_token""#)
        let scope = AccessTokenError(.insufficientScope, "lacks notes:write", requiredScopes: ["notes:read", "notes:write"],
                                     missingScopes: ["notes:write"])
        #expect(metadata.challenge(for: scope)
            == #"Bearer resource_metadata="\#(url)", error="insufficient_scope", scope="notes:read notes:write""#)
        // Quoting: a metadata URL with a quote or backslash is escaped; scope tokens keep their allowed characters.
        #expect(BearerChallenge.header(resourceMetadata: #"https://x.example/a"b\c"#)
            == #"Bearer resource_metadata="https://x.example/a\"b\\c""#)
        #expect(BearerChallenge.header(resourceMetadata: nil, scope: ["a\"b", "c d", "é"]) == #"Bearer scope="ab cd""#)
        #expect(BearerChallenge.header(resourceMetadata: nil) == "Bearer")
        #expect(BearerChallenge.header(resourceMetadata: url, scope: ["notes:read"])
            == #"Bearer resource_metadata="\#(url)", scope="notes:read""#)
    }

    // MARK: Helpers

    static func client(_ transport: any AdminTransport, clock: MovingClock = MovingClock(now), clockSkew: Int = 0) throws -> AdminAuth {
        try AdminAuth(projectID: project, credential: .verificationOnly, endpoints: .flint(URL(string: server)!),
                      clockSkew: clockSkew, transport: transport, now: { clock.now() })
    }
}

/// The tokens and keys `forge_access_tokens.py` makes.
struct Forged {
    let jwks: Data
    let tokens: [String: String]

    static func make() throws -> Forged {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Server/Tests/python/forge_access_tokens.py")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path, AccessTokenTests.server, AccessTokenTests.project, AccessTokenTests.tenant,
                             String(Int(AccessTokenTests.now.timeIntervalSince1970))]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "forge_access_tokens.py failed")
        struct Output: Decodable {
            var jwks: JSONValue
            var tokens: [String: String]
        }
        let decoded = try JSONDecoder().decode(Output.self, from: data)
        return Forged(jwks: try JSONEncoder().encode(decoded.jwks), tokens: decoded.tokens)
    }

    func token(_ name: String) throws -> String { try #require(tokens[name], "no token \(name)") }
}

/// A Flint server's JWKS (cacheable ten minutes) and its introspection endpoint, answering as `introspection` says.
final class FakeIssuer: AdminTransport, @unchecked Sendable {
    private let lock = NSLock()
    private let jwks: Data
    private var sent: [AdminHTTPRequest] = []
    private var answer: (Int, String) = (500, "")

    init(jwks: Data) { self.jwks = jwks }

    var requests: [AdminHTTPRequest] { lock.withLock { sent } }
    var introspections: [AdminHTTPRequest] { requests.filter { $0.url.path.hasSuffix("/introspect") } }
    var introspection: (Int, String) {
        get { lock.withLock { answer } }
        set { lock.withLock { answer = newValue } }
    }

    func send(_ request: AdminHTTPRequest) async throws -> AdminHTTPResponse {
        lock.withLock { sent.append(request) }
        if request.method == "GET", request.url.path == "/.well-known/jwks.json" {
            return AdminHTTPResponse(status: 200, headers: ["Cache-Control": "public, max-age=600"], body: jwks)
        }
        if request.method == "POST", request.url.path.hasSuffix("/introspect") {
            let (status, body) = introspection
            return AdminHTTPResponse(status: status, headers: ["Content-Type": "application/json"], body: Data(body.utf8))
        }
        Issue.record("unexpected \(request.method) \(request.url.absoluteString)")
        return AdminHTTPResponse(status: 404, headers: [:], body: Data())
    }
}

/// A clock tests move.
final class MovingClock: @unchecked Sendable {
    private let lock = NSLock()
    private var instant: Date

    init(_ instant: Date) { self.instant = instant }

    func now() -> Date { lock.withLock { instant } }
    func advance(_ seconds: TimeInterval) { lock.withLock { instant.addTimeInterval(seconds) } }
}

/// Expects `body` to throw an `AccessTokenError` with `code` whose message contains `says`.
func expectRefusal<Value>(_ code: AccessTokenError.Code, _ says: String, _ comment: @autoclosure () -> String = "",
                          sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> Value) async {
    do {
        let value = try await body()
        Issue.record("expected \(code), got \(value) \(comment())", sourceLocation: sourceLocation)
    } catch let error as AccessTokenError {
        #expect(error.code == code && (says.isEmpty || error.message.contains(says)), "\(error) \(comment())",
                sourceLocation: sourceLocation)
    } catch {
        Issue.record("expected \(code), got \(error) \(comment())", sourceLocation: sourceLocation)
    }
}

/// Expects `body` to throw an `AdminError` with `code`.
func expectAdmin<Value>(_ code: AdminError.Code, _ comment: @autoclosure () -> String = "",
                        sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> Value) async {
    do {
        let value = try await body()
        Issue.record("expected \(code), got \(value) \(comment())", sourceLocation: sourceLocation)
    } catch let error as AdminError {
        #expect(error.code == code, "\(error) \(comment())", sourceLocation: sourceLocation)
    } catch {
        Issue.record("expected \(code), got \(error) \(comment())", sourceLocation: sourceLocation)
    }
}
