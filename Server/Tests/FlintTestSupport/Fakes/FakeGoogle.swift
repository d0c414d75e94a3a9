import FlintServer
import Foundation
import Hummingbird
import NIOConcurrencyHelpers

/// A local Google for one OAuth client: what Flint calls to check Google credentials.
///
/// - `GET /oauth2/v3/certs` → the JWKS of the keys that sign Google ID tokens
/// - `GET /tokeninfo?access_token=…` → `{azp, aud, sub, scope, exp, expires_in, email, email_verified}` as strings, as
///   Google writes them; an unknown, revoked or expired token → 400 `{"error":"invalid_token"}`
/// - `GET /v1/userinfo` with `Authorization: Bearer …` → the OpenID profile (`sub`, `name`, `given_name`,
///   `family_name`, `picture`, `email`, `email_verified`); no or a bad token → 401
/// - `GET /o/oauth2/v2/auth` → the sign-in page (`FakeCodeGrants`); `POST /token` with the form's `client_id` and
///   `client_secret` → `{id_token, access_token}` for its code; 401 `invalid_client`, 400 `invalid_grant`
///
/// Every request is recorded in `requests`, with access tokens redacted.
public final class FakeGoogle: FakeService {
    public static let issuer = "https://accounts.google.com"
    public static let redacted = "<redacted>"

    public struct RecordedRequest: Sendable, Equatable {
        public let path: String
        public let query: [String: String]
        public let authorization: String?
    }

    /// What an access token stands for.
    struct Grant: Sendable {
        var subject: String
        var clientID: String
        var email: String?
        var name: String
        var valid: Bool
        var expiresAt: Int64
    }

    public let clientID: String
    public let clientSecret: String
    public let requests = Recorder<RecordedRequest>()
    /// The sign-in page of the redirect flow and its codes.
    public let codeGrants: FakeCodeGrants

    private let clock: any FlintClock
    private let keys: FakeRSAKeys
    private let grants = NIOLockedValueBox<[String: Grant]>([:])
    let server = NIOLockedValueBox<FakeHTTPServer?>(nil)

    public var port: Int { server.withLockedValue { $0?.port ?? 0 } }
    /// Stands for `https://www.googleapis.com/oauth2/v3/certs`.
    public var jwksURL: String { "http://127.0.0.1:\(port)/oauth2/v3/certs" }
    /// Stands for `https://oauth2.googleapis.com/tokeninfo`.
    public var tokenInfoURL: String { "http://127.0.0.1:\(port)/tokeninfo" }
    /// Stands for `https://openidconnect.googleapis.com/v1/userinfo`.
    public var userInfoURL: String { "http://127.0.0.1:\(port)/v1/userinfo" }
    /// Stands for `https://accounts.google.com/o/oauth2/v2/auth`.
    public var authorizationURL: String { "http://127.0.0.1:\(port)/o/oauth2/v2/auth" }
    /// Stands for `https://oauth2.googleapis.com/token`.
    public var tokenURL: String { "http://127.0.0.1:\(port)/token" }

    private init(clientID: String, clientSecret: String, clock: any FlintClock) throws {
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.clock = clock
        keys = try FakeRSAKeys()
        codeGrants = FakeCodeGrants(clientID: clientID)
    }

    public static func start(clientID: String = "123456789012-flint.apps.googleusercontent.com",
                             clientSecret: String = "GOCSPX-flint-secret",
                             clock: any FlintClock = SystemClock()) async throws -> FakeGoogle {
        let fake = try FakeGoogle(clientID: clientID, clientSecret: clientSecret, clock: clock)
        try await fake.serve(name: "fake-google")
        return fake
    }

    public func stop() async {
        await server.withLockedValue { $0 }?.stop()
        requests.finish()
    }

    /// An ID token as Google signs it (`audience` another client's, `signWith` a forged signature, to test refusals).
    public func makeIDToken(
        sub: String, audience: String? = nil, nonce: String? = nil, email: String? = nil, emailVerified: Bool = true,
        name: String? = nil, picture: String? = nil, issuer: String = FakeGoogle.issuer, expiresIn: TimeInterval = 3600,
        signWith signature: FakeTokenSignature = .current
    ) throws -> String {
        let iat = clock.seconds
        var claims: [String: Any] = [
            "iss": issuer, "aud": audience ?? clientID, "azp": audience ?? clientID, "sub": sub, "iat": iat,
            "exp": iat + Int64(expiresIn),
        ]
        if let nonce { claims["nonce"] = nonce }
        if let email {
            claims["email"] = email
            claims["email_verified"] = emailVerified
        }
        if let name {
            claims["name"] = name
            let parts = name.split(separator: " ", maxSplits: 1).map(String.init)
            claims["given_name"] = parts.first
            if parts.count > 1 { claims["family_name"] = parts[1] }
        }
        if let picture { claims["picture"] = picture }
        return try keys.sign(claims, with: signature)
    }

    /// An access token the fake knows (`clientID` another client's to test tokens for the wrong app; `valid: false`
    /// for a revoked one).
    public func makeAccessToken(sub: String, email: String? = nil, name: String = "Test User", clientID: String? = nil,
                                valid: Bool = true, expiresIn: TimeInterval = 3599) -> String {
        let token = "ya29." + FakeHTTP.randomHex(bytes: 24)
        let grant = Grant(subject: sub, clientID: clientID ?? self.clientID, email: email, name: name, valid: valid,
                          expiresAt: clock.seconds + Int64(expiresIn))
        grants.withLockedValue { $0[token] = grant }
        return token
    }

    func handle(_ request: Request) async -> Response {
        let path = request.uri.path
        let query = FakeHTTP.form(Data((request.uri.query ?? "").utf8))
        var recorded = query
        if recorded["access_token"] != nil { recorded["access_token"] = Self.redacted }
        let authorization = request.headers[.authorization]
        requests.append(RecordedRequest(path: path, query: recorded, authorization: authorization.map { _ in Self.redacted }))
        if request.method == .post, path == "/token" { return exchange(FakeHTTP.form(await FakeHTTP.body(request) ?? Data())) }
        guard request.method == .get else { return FakeHTTP.json(405, ["error": "method_not_allowed"]) }
        switch path {
        case "/oauth2/v3/certs":
            return FakeHTTP.json(200, keys.jwks())
        case "/o/oauth2/v2/auth":
            return codeGrants.authorize(request)
        case "/tokeninfo":
            return tokenInfo(query["access_token"])
        case "/v1/userinfo":
            let bearer = authorization.flatMap { $0.hasPrefix("Bearer ") ? String($0.dropFirst(7)) : nil }
            return userInfo(bearer)
        default:
            return FakeHTTP.json(404, ["error": "not_found"])
        }
    }

    private func exchange(_ form: [String: String]) -> Response {
        guard form["client_id"] == clientID, form["client_secret"] == clientSecret else {
            return FakeHTTP.json(401, ["error": "invalid_client"])
        }
        guard let grant = codeGrants.redeem(form), let idToken = try? makeIDToken(sub: grant.subject, nonce: grant.nonce, email: grant.email)
        else { return FakeHTTP.json(400, ["error": "invalid_grant"]) }
        return FakeHTTP.json(200, ["id_token": idToken, "access_token": makeAccessToken(sub: grant.subject, email: grant.email),
                                   "token_type": "Bearer", "expires_in": 3599, "scope": grant.scope ?? ""])
    }

    /// The grant behind `token`, if it is known, not revoked and not expired.
    private func liveGrant(_ token: String?) -> Grant? {
        guard let token, let grant = grants.withLockedValue({ $0[token] }), grant.valid, grant.expiresAt > clock.seconds
        else { return nil }
        return grant
    }

    private func tokenInfo(_ token: String?) -> Response {
        guard let grant = liveGrant(token) else {
            return FakeHTTP.json(400, ["error": "invalid_token", "error_description": "Invalid Value"])
        }
        var body: [String: Any] = [
            "azp": grant.clientID, "aud": grant.clientID, "sub": grant.subject, "scope": "openid email profile",
            "exp": String(grant.expiresAt), "expires_in": String(grant.expiresAt - clock.seconds), "access_type": "online",
        ]
        if let email = grant.email {
            body["email"] = email
            body["email_verified"] = "true"
        }
        return FakeHTTP.json(200, body)
    }

    private func userInfo(_ token: String?) -> Response {
        guard let grant = liveGrant(token) else {
            return FakeHTTP.json(401, ["error": "invalid_request", "error_description": "Invalid Credentials"])
        }
        var body: [String: Any] = [
            "sub": grant.subject, "name": grant.name, "picture": "https://lh3.googleusercontent.com/a/\(grant.subject)",
        ]
        if let email = grant.email {
            body["email"] = email
            body["email_verified"] = true
        }
        return FakeHTTP.json(200, body)
    }
}
