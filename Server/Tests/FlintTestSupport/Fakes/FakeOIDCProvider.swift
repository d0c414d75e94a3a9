import FlintServer
import Foundation
import Hummingbird
import NIOConcurrencyHelpers

/// A local OpenID Connect provider (as Okta, Entra or Keycloak would be) whose issuer is its own address:
///
/// - `GET /.well-known/openid-configuration` → `{issuer, jwks_uri, …}`, naming `discoveryIssuer` (the real issuer
///   unless a test makes it lie)
/// - `GET /keys` → the JWKS of the keys that sign its ID tokens
/// - `GET /authorize` → the sign-in page (`FakeCodeGrants`), approving `codeGrants.browserUser` at once
/// - `POST /token` (the code flow) → `{id_token, access_token}` for a code the page (or `issueCode`) made, once, when
///   the client authenticates with HTTP Basic (`clientID:clientSecret`) and `FakeCodeGrants` accepts the request;
///   otherwise 400 `invalid_client` / `invalid_grant`
public final class FakeOIDCProvider: FakeService {
    public let clientID: String
    public let clientSecret: String
    /// Paths asked for, in order.
    public let requests = Recorder<String>()
    /// The issuer the discovery document names; nil for the real one.
    public let discoveryIssuer = NIOLockedValueBox<String?>(nil)

    /// The sign-in page and the codes it made.
    public let codeGrants: FakeCodeGrants
    /// The user the sign-in page approves (`codeGrants.browserUser`).
    public var browserUser: NIOLockedValueBox<(subject: String, email: String?)?> { codeGrants.browserUser }

    private let clock: any FlintClock
    private let keys: FakeRSAKeys
    let server = NIOLockedValueBox<FakeHTTPServer?>(nil)

    public var port: Int { server.withLockedValue { $0?.port ?? 0 } }
    public var issuer: String { "http://127.0.0.1:\(port)" }

    private init(clientID: String, clientSecret: String, clock: any FlintClock) throws {
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.clock = clock
        keys = try FakeRSAKeys()
        codeGrants = FakeCodeGrants(clientID: clientID)
    }

    public static func start(clientID: String = "flint-web-client", clientSecret: String = "flint-client-secret",
                             clock: any FlintClock = SystemClock()) async throws -> FakeOIDCProvider {
        let fake = try FakeOIDCProvider(clientID: clientID, clientSecret: clientSecret, clock: clock)
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

    /// What the provider does once the user signs in at `authorizationURL` (which must be this provider's, for this
    /// client): a code bound to its redirect URI, PKCE challenge and nonce. Nil when the URL is not a valid request.
    public func issueCode(for authorizationURL: String, subject: String, email: String? = nil) -> String? {
        guard URLComponents(string: authorizationURL)?.path == "/authorize" else { return nil }
        return codeGrants.issueCode(query: FakeCodeGrants.query(authorizationURL), subject: subject, email: email)
    }

    func handle(_ request: Request) async -> Response {
        requests.append(request.uri.path)
        if request.uri.path == "/authorize" { return codeGrants.authorize(request) }
        if request.uri.path == "/token", request.method == .post {
            return exchange(FakeHTTP.form(await FakeHTTP.body(request) ?? Data()), authorization: request.headers[.authorization])
        }
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

    private func exchange(_ form: [String: String], authorization: String?) -> Response {
        let basic = "Basic " + Data("\(clientID):\(clientSecret)".utf8).base64EncodedString()
        guard authorization == basic, form["client_id"] == nil || form["client_id"] == clientID else {
            return FakeHTTP.json(401, ["error": "invalid_client"])
        }
        guard let grant = codeGrants.redeem(form),
              let idToken = try? makeIDToken(sub: grant.subject, nonce: grant.nonce, email: grant.email, emailVerified: true)
        else { return FakeHTTP.json(400, ["error": "invalid_grant"]) }
        return FakeHTTP.json(200, ["id_token": idToken, "access_token": FakeHTTP.randomHex(bytes: 16), "token_type": "Bearer",
                                   "expires_in": 3600])
    }
}
