import Crypto
import FlintServer
import Foundation
import Hummingbird
import NIOConcurrencyHelpers

/// A local Facebook Graph API for one app, plus the Limited Login OIDC keys:
///
/// - `GET /debug_token?input_token=…&access_token=APPID|APPSECRET` → `{"data":{app_id, type, is_valid, user_id,
///   expires_at, scopes}}`; another app token → 400 Graph error (`OAuthException`, code 190)
/// - `GET /me?fields=…&access_token=…&appsecret_proof=…` → the user (`id`, `name`, `email`,
///   `picture.data.url`, as `fields` asks); a missing or wrong `appsecret_proof` (lowercase hex
///   HMAC-SHA256 of the access token keyed by the app secret) → 400 code 100; an unknown, invalid or
///   expired token → 400 code 190
/// - both also under a version prefix (`/v19.0/me`)
/// - `GET /.well-known/oauth/openid/jwks/` → the JWKS of the keys that sign Limited Login tokens
///
/// Every request is recorded in `requests`, with the app token and `appsecret_proof` redacted.
public final class FakeFacebook: FakeService {
    public static let limitedLoginIssuer = "https://www.facebook.com"
    public static let redacted = "<redacted>"

    public struct RecordedRequest: Sendable, Equatable {
        public let method: String
        /// Without the version prefix.
        public let path: String
        public let version: String?
        public let query: [String: String]
    }

    public struct User: Sendable, Equatable {
        public let userID: String
        public let name: String
        public let email: String?
        public let pictureURL: String
        public let appID: String
        public let valid: Bool
        public let expiresAt: Int64
    }

    public let appID: String
    public let appSecret: String
    public let requests = Recorder<RecordedRequest>()

    private let clock: any FlintClock
    private let keys: FakeRSAKeys
    private let tokens = NIOLockedValueBox<[String: User]>([:])
    let server = NIOLockedValueBox<FakeHTTPServer?>(nil)

    public var port: Int { server.withLockedValue { $0?.port ?? 0 } }
    /// Stands for `https://graph.facebook.com`.
    public var graphURL: String { "http://127.0.0.1:\(port)" }
    /// Stands for `https://limited.facebook.com/.well-known/oauth/openid/jwks/`.
    public var jwksURL: String { "http://127.0.0.1:\(port)/.well-known/oauth/openid/jwks/" }
    /// The app access token `APPID|APPSECRET`.
    public var appAccessToken: String { "\(appID)|\(appSecret)" }
    public var currentKeyID: String { keys.current.kid }
    public var currentPublicKeyDER: Data { keys.current.privateKey.publicKey.derRepresentation }

    private init(appID: String, appSecret: String, clock: any FlintClock) throws {
        self.appID = appID
        self.appSecret = appSecret
        self.clock = clock
        keys = try FakeRSAKeys()
    }

    /// Starts a fake for one app; the secret is random unless given.
    public static func start(appID: String = "1234567890123456", appSecret: String? = nil,
                             clock: any FlintClock = SystemClock()) async throws -> FakeFacebook {
        let fake = try FakeFacebook(appID: appID, appSecret: appSecret ?? FakeHTTP.randomHex(bytes: 16), clock: clock)
        try await fake.serve(name: "fake-facebook")
        return fake
    }

    public func stop() async {
        await server.withLockedValue { $0 }?.stop()
        requests.finish()
    }

    /// Adds a new Limited Login signing key, which signs from now on. Returns its kid.
    @discardableResult
    public func rotateKey() throws -> String { try keys.rotate() }

    /// A user access token the fake knows (`appID` another app's to test tokens for the wrong app;
    /// `valid: false` for a revoked one).
    public func makeUserAccessToken(userID: String, name: String = "Test User", email: String? = nil,
                                    pictureURL: String? = nil, appID: String? = nil, valid: Bool = true,
                                    expiresIn: TimeInterval = 60 * 24 * 3600) -> String {
        let token = "EAA" + FakeHTTP.randomHex(bytes: 24)
        let user = User(userID: userID, name: name, email: email,
                        pictureURL: pictureURL ?? "https://platform-lookaside.fbsbx.com/platform/profilepic/?asid=\(userID)",
                        appID: appID ?? self.appID, valid: valid, expiresAt: clock.seconds + Int64(expiresIn))
        tokens.withLockedValue { $0[token] = user }
        return token
    }

    /// `appsecret_proof` for `accessToken`: lowercase hex HMAC-SHA256 keyed by the app secret.
    public func appSecretProof(for accessToken: String) -> String {
        HMAC<SHA256>.authenticationCode(for: Data(accessToken.utf8), using: SymmetricKey(data: Data(appSecret.utf8)))
            .map { String(format: "%02x", $0) }.joined()
    }

    /// A Limited Login (OIDC) token as Facebook makes it.
    public func makeLimitedLoginToken(
        sub: String, audience: String? = nil, nonce: String? = nil, name: String? = nil, email: String? = nil,
        picture: String? = nil, issuer: String = FakeFacebook.limitedLoginIssuer, issuedAt: Date? = nil,
        expiresIn: TimeInterval = 3600, signWith signature: FakeTokenSignature = .current
    ) throws -> String {
        let iat = Int64((issuedAt ?? clock.now()).timeIntervalSince1970)
        var claims: [String: Any] = [
            "iss": issuer, "aud": audience ?? appID, "sub": sub, "iat": iat, "exp": iat + Int64(expiresIn),
            "jti": UUID().uuidString.lowercased(),
        ]
        if let nonce { claims["nonce"] = nonce }
        if let name { claims["name"] = name }
        if let email { claims["email"] = email }
        if let picture { claims["picture"] = picture }
        return try keys.sign(claims, with: signature)
    }

    private func graphError(_ message: String, type: String = "OAuthException", code: Int) -> Response {
        FakeHTTP.json(400, ["error": ["message": message, "type": type, "code": code,
                                      "fbtrace_id": FakeHTTP.randomHex(bytes: 8)] as [String: Any]])
    }

    func handle(_ request: Request) async -> Response {
        var segments = request.uri.path.split(separator: "/").map(String.init)
        var version: String?
        if let first = segments.first, first.hasPrefix("v"), Double(first.dropFirst()) != nil {
            version = first
            segments.removeFirst()
        }
        let path = "/" + segments.joined(separator: "/")
        let query = FakeHTTP.form(Data((request.uri.query ?? "").utf8))
        var recorded = query
        if recorded["access_token"] == appAccessToken { recorded["access_token"] = "\(appID)|\(Self.redacted)" }
        if recorded["appsecret_proof"] != nil { recorded["appsecret_proof"] = Self.redacted }
        requests.append(RecordedRequest(method: request.method.rawValue, path: path, version: version, query: recorded))
        guard request.method == .get else { return graphError("Unsupported method", type: "GraphMethodException", code: 100) }
        switch path {
        case "/.well-known/oauth/openid/jwks":
            return FakeHTTP.json(200, keys.jwks())
        case "/debug_token":
            return debugToken(query)
        case "/me":
            return me(query)
        default:
            return graphError("Unknown path components: \(path)", code: 2500)
        }
    }

    private func debugToken(_ query: [String: String]) -> Response {
        guard let accessToken = query["access_token"] else {
            return graphError("An access token is required to request this resource.", code: 104)
        }
        guard accessToken == appAccessToken else {
            return graphError("Invalid OAuth access token - Cannot parse access token", code: 190)
        }
        guard let input = query["input_token"] else {
            return graphError("(#100) The parameter input_token is required", code: 100)
        }
        guard let user = tokens.withLockedValue({ $0[input] }) else {
            return FakeHTTP.json(200, ["data": [
                "is_valid": false, "scopes": [String](),
                "error": ["code": 190, "message": "Invalid OAuth access token - Cannot parse access token"] as [String: Any],
            ] as [String: Any]])
        }
        let valid = user.valid && user.expiresAt > clock.seconds
        return FakeHTTP.json(200, ["data": [
            "app_id": user.appID, "type": "USER", "application": "Flint Test App", "is_valid": valid,
            "user_id": user.userID, "expires_at": user.expiresAt, "data_access_expires_at": user.expiresAt,
            "issued_at": user.expiresAt - 60 * 24 * 3600, "scopes": ["email", "public_profile"],
        ] as [String: Any]])
    }

    private func me(_ query: [String: String]) -> Response {
        guard let accessToken = query["access_token"] else {
            return graphError("An active access token must be used to query information about the current user.", code: 2500)
        }
        guard let user = tokens.withLockedValue({ $0[accessToken] }), user.valid, user.expiresAt > clock.seconds else {
            return graphError("Invalid OAuth access token - Cannot parse access token", code: 190)
        }
        guard let proof = query["appsecret_proof"], user.appID == appID, proof == appSecretProof(for: accessToken) else {
            return graphError("Invalid appsecret_proof provided in the API argument", type: "GraphMethodException", code: 100)
        }
        let fields = Set((query["fields"] ?? "id,name").split(separator: ",").map {
            $0.trimmingCharacters(in: .whitespaces)
        })
        var body: [String: Any] = ["id": user.userID]
        if fields.contains("name") { body["name"] = user.name }
        if fields.contains("email"), let email = user.email { body["email"] = email }
        if fields.contains(where: { $0.hasPrefix("picture") }) {
            body["picture"] = ["data": ["url": user.pictureURL, "height": 50, "width": 50, "is_silhouette": false] as [String: Any]]
        }
        return FakeHTTP.json(200, body)
    }
}
