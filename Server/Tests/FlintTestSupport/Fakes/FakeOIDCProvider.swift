import FlintServer
import Foundation
import Hummingbird
import NIOConcurrencyHelpers

/// A local OpenID Connect provider (as Okta, Entra or Keycloak would be) whose issuer is its own address:
///
/// - `GET /.well-known/openid-configuration` → `{issuer, jwks_uri, …}`, naming `discoveryIssuer` (the real issuer
///   unless a test makes it lie)
/// - `GET /keys` → the JWKS of the keys that sign its ID tokens
public final class FakeOIDCProvider: FakeService {
    public let clientID: String
    /// Paths asked for, in order.
    public let requests = Recorder<String>()
    /// The issuer the discovery document names; nil for the real one.
    public let discoveryIssuer = NIOLockedValueBox<String?>(nil)

    private let clock: any FlintClock
    private let keys: FakeRSAKeys
    let server = NIOLockedValueBox<FakeHTTPServer?>(nil)

    public var port: Int { server.withLockedValue { $0?.port ?? 0 } }
    public var issuer: String { "http://127.0.0.1:\(port)" }

    private init(clientID: String, clock: any FlintClock) throws {
        self.clientID = clientID
        self.clock = clock
        keys = try FakeRSAKeys()
    }

    public static func start(clientID: String = "flint-web-client", clock: any FlintClock = SystemClock()) async throws
        -> FakeOIDCProvider {
        let fake = try FakeOIDCProvider(clientID: clientID, clock: clock)
        try await fake.serve(name: "fake-oidc")
        return fake
    }

    public func stop() async {
        await server.withLockedValue { $0 }?.stop()
        requests.finish()
    }

    /// An ID token as the provider signs it.
    public func makeIDToken(sub: String, audience: String? = nil, issuer: String? = nil, nonce: String? = nil,
                            email: String? = nil, emailVerified: Bool? = nil, name: String? = nil,
                            expiresIn: TimeInterval = 3600, signWith signature: FakeTokenSignature = .current) throws -> String {
        let iat = clock.seconds
        var claims: [String: Any] = ["iss": issuer ?? self.issuer, "aud": audience ?? clientID, "sub": sub, "iat": iat,
                                     "exp": iat + Int64(expiresIn)]
        if let nonce { claims["nonce"] = nonce }
        if let email { claims["email"] = email }
        if let emailVerified { claims["email_verified"] = emailVerified }
        if let name { claims["name"] = name }
        return try keys.sign(claims, with: signature)
    }

    func handle(_ request: Request) async -> Response {
        requests.append(request.uri.path)
        switch request.uri.path {
        case "/.well-known/openid-configuration":
            return FakeHTTP.json(200, [
                "issuer": discoveryIssuer.withLockedValue { $0 } ?? issuer, "jwks_uri": issuer + "/keys",
                "authorization_endpoint": issuer + "/authorize", "token_endpoint": issuer + "/token",
                "response_types_supported": ["code", "id_token"], "subject_types_supported": ["public"],
                "id_token_signing_alg_values_supported": ["RS256"],
            ])
        case "/keys":
            return FakeHTTP.json(200, keys.jwks())
        default:
            return FakeHTTP.json(404, ["error": "not_found"])
        }
    }
}
