import FlintWire
import _CryptoExtras
import Crypto
import FlintServer
import Foundation
import Hummingbird
import NIOConcurrencyHelpers

/// How a fake identity provider signs a token it makes: with its current key (the good case), or in one
/// of the ways an attacker would try.
public enum FakeTokenSignature: Sendable {
    /// RS256 with the provider's current key, which its JWKS publishes.
    case current
    /// RS256 with a key the JWKS does not publish (but the current key's `kid`).
    case foreignKey
    /// `alg: none` and an empty signature.
    case none
    /// HS256 with `secret` as the HMAC key (pass the provider's public key bytes for the key-confusion attack).
    case hs256(secret: Data)
}

/// The RSA keys of a fake identity provider: the newest signs, all are published as a JWKS.
final class FakeRSAKeys: Sendable {
    struct Key: Sendable {
        let kid: String
        let privateKey: _RSA.Signing.PrivateKey
    }

    private let keys: NIOLockedValueBox<[Key]>
    private let foreign: _RSA.Signing.PrivateKey

    init() throws {
        keys = NIOLockedValueBox([try Self.newKey()])
        foreign = try PooledRSAKeys.shared.makeKey()
    }

    private static func newKey() throws -> Key {
        Key(kid: FakeHTTP.randomHex(bytes: 10), privateKey: try PooledRSAKeys.shared.makeKey())
    }

    var current: Key { keys.withLockedValue { $0[$0.count - 1] } }
    var all: [Key] { keys.withLockedValue { $0 } }

    /// Adds a new current key (older ones stay published) and returns its kid.
    func rotate() throws -> String {
        let key = try Self.newKey()
        keys.withLockedValue { $0.append(key) }
        return key.kid
    }

    /// `{"keys":[{kty, kid, use, alg, n, e}]}`.
    func jwks() -> [String: Any] {
        let keys: [[String: Any]] = all.compactMap { key in
            guard let primitives = try? key.privateKey.publicKey.getKeyPrimitives() else { return nil }
            return ["kty": "RSA", "kid": key.kid, "use": "sig", "alg": "RS256",
                    "n": Base64URL.encode(primitives.modulus), "e": Base64URL.encode(primitives.publicExponent)]
        }
        return ["keys": keys]
    }

    /// A compact JWS of `claims`, signed as `signature` says.
    func sign(_ claims: [String: Any], with signature: FakeTokenSignature) throws -> String {
        let kid = current.kid
        let alg: String
        switch signature {
        case .current, .foreignKey: alg = "RS256"
        case .none: alg = "none"
        case .hs256: alg = "HS256"
        }
        let header = try JSONSerialization.data(withJSONObject: ["alg": alg, "kid": kid, "typ": "JWT"], options: [.sortedKeys])
        let payload = try JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys, .withoutEscapingSlashes])
        let input = Base64URL.encode(header) + "." + Base64URL.encode(payload)
        let signatureBytes: Data
        switch signature {
        case .current:
            signatureBytes = try current.privateKey.signature(for: Data(input.utf8), padding: .insecurePKCS1v1_5).rawRepresentation
        case .foreignKey:
            signatureBytes = try foreign.signature(for: Data(input.utf8), padding: .insecurePKCS1v1_5).rawRepresentation
        case .none:
            signatureBytes = Data()
        case .hs256(let secret):
            signatureBytes = Data(HMAC<SHA256>.authenticationCode(for: Data(input.utf8), using: SymmetricKey(data: secret)))
        }
        return input + "." + Base64URL.encode(signatureBytes)
    }
}

/// A local Sign in with Apple (`appleid.apple.com`) for one team and its Services/App IDs:
///
/// - `GET /auth/keys` → the JWKS of the keys that sign identity tokens (`rotateKey()` adds one)
/// - `POST /auth/token` (form `client_id`, `client_secret`, `code`, `grant_type=authorization_code`) →
///   tokens and an identity token, for a code from `makeAuthorizationCode` used once by the client it was
///   issued to; the client secret must be an ES256 JWT by the team key (`kid` = `keyID`, `iss` = team,
///   `sub` = client, `aud` = `https://appleid.apple.com`, not expired, at most 6 months long) or the answer is
///   400 `invalid_client`; a bad code is 400 `invalid_grant`
/// - `POST /auth/revoke` (form `client_id`, `client_secret`, `token`, `token_type_hint`) → 200 for a token it
///   issued to that client (recorded in `revocations`), else 400
///
/// Every request is recorded in `requests` (path, and form fields without `client_secret`).
public final class FakeApple: FakeService {
    public static let defaultIssuer = "https://appleid.apple.com"
    /// Apple refuses client secrets valid longer than this.
    public static let maximumClientSecretLifetime: TimeInterval = 15_777_000

    public struct RecordedRequest: Sendable, Equatable {
        public let method: String
        public let path: String
        /// Form fields, with `client_secret` left out.
        public let fields: [String: String]
    }

    public struct Revocation: Sendable, Equatable {
        public let clientID: String
        public let token: String
        public let tokenTypeHint: String?
    }

    public let teamID: String
    public let keyID: String
    public let requests = Recorder<RecordedRequest>()
    public let revocations = Recorder<Revocation>()

    private let teamKey: P256.Signing.PublicKey
    private let clock: any FlintClock
    private let keys: FakeRSAKeys
    private let state = NIOLockedValueBox(State())
    let server = NIOLockedValueBox<FakeHTTPServer?>(nil)

    private struct Grant {
        let sub: String
        let clientID: String
        let email: String?
    }

    private struct State {
        var codes: [String: Grant] = [:]
        var usedCodes: Set<String> = []
        var tokens: [String: Grant] = [:]
    }

    public var port: Int { server.withLockedValue { $0?.port ?? 0 } }
    /// Stands for `https://appleid.apple.com`.
    public var baseURL: String { "http://127.0.0.1:\(port)" }
    /// The kid of the key that signs identity tokens now.
    public var currentKeyID: String { keys.current.kid }
    /// The DER of the current public key (the HS256 key-confusion attack signs with these bytes).
    public var currentPublicKeyDER: Data { keys.current.privateKey.publicKey.derRepresentation }

    private init(teamID: String, keyID: String, teamKey: P256.Signing.PublicKey, clock: any FlintClock) throws {
        self.teamID = teamID
        self.keyID = keyID
        self.teamKey = teamKey
        self.clock = clock
        keys = try FakeRSAKeys()
    }

    /// Starts a fake for one team; `teamKey` is the public half of the team's Sign in with Apple key.
    public static func start(teamKey: P256.Signing.PublicKey, teamID: String = "FLINTTEAM1", keyID: String = "FLINTSIWA1",
                             clock: any FlintClock = SystemClock()) async throws -> FakeApple {
        let fake = try FakeApple(teamID: teamID, keyID: keyID, teamKey: teamKey, clock: clock)
        try await fake.serve(name: "fake-apple")
        return fake
    }

    public func stop() async {
        await server.withLockedValue { $0 }?.stop()
        requests.finish()
        revocations.finish()
    }

    /// Adds a new signing key, which signs from now on; older keys stay in the JWKS. Returns its kid.
    @discardableResult
    public func rotateKey() throws -> String { try keys.rotate() }

    /// An identity token as Apple makes it. `nonce` is put in as given (Apple puts the SHA-256 hex of the
    /// app's raw nonce). `email_verified` and `is_private_email` are strings, as Apple sends them.
    public func makeIdentityToken(
        sub: String, audience: String, nonce: String? = nil, email: String? = nil, emailVerified: Bool = true,
        isPrivateEmail: Bool? = nil, issuer: String = FakeApple.defaultIssuer, issuedAt: Date? = nil,
        expiresIn: TimeInterval = 600, cHash: String? = nil, signWith signature: FakeTokenSignature = .current
    ) throws -> String {
        let iat = Int64((issuedAt ?? clock.now()).timeIntervalSince1970)
        var claims: [String: Any] = [
            "iss": issuer, "aud": audience, "sub": sub, "iat": iat, "exp": iat + Int64(expiresIn), "auth_time": iat,
        ]
        if let nonce {
            claims["nonce"] = nonce
            claims["nonce_supported"] = true
        }
        if let email {
            claims["email"] = email
            claims["email_verified"] = emailVerified ? "true" : "false"
        }
        if let isPrivateEmail { claims["is_private_email"] = isPrivateEmail ? "true" : "false" }
        if let cHash { claims["c_hash"] = cHash }
        return try keys.sign(claims, with: signature)
    }

    /// A single-use authorization code for `sub` at `clientID`.
    public func makeAuthorizationCode(for sub: String, clientID: String, email: String? = nil) -> String {
        let code = "c" + FakeHTTP.randomHex(bytes: 16) + ".0.nrxy." + FakeHTTP.randomHex(bytes: 8)
        state.withLockedValue { $0.codes[code] = Grant(sub: sub, clientID: clientID, email: email) }
        return code
    }

    private func error(_ code: String) -> Response { FakeHTTP.json(400, ["error": code]) }

    func handle(_ request: Request) async -> Response {
        let path = request.uri.path
        var fields: [String: String] = [:]
        if request.method == .post, FakeHTTP.isForm(request) {
            fields = FakeHTTP.form(await FakeHTTP.body(request) ?? Data())
        }
        requests.append(RecordedRequest(method: request.method.rawValue, path: path,
                                        fields: fields.filter { $0.key != "client_secret" }))
        switch (request.method, path) {
        case (.get, "/auth/keys"):
            return FakeHTTP.json(200, keys.jwks())
        case (.post, "/auth/token"):
            return token(fields)
        case (.post, "/auth/revoke"):
            return revoke(fields)
        default:
            return FakeHTTP.empty(404)
        }
    }

    private func token(_ fields: [String: String]) -> Response {
        guard let clientID = fields["client_id"], isValidClientSecret(fields["client_secret"], clientID: clientID) else {
            return error("invalid_client")
        }
        guard fields["grant_type"] == "authorization_code" else { return error("unsupported_grant_type") }
        guard let code = fields["code"] else { return error("invalid_request") }
        let grant = state.withLockedValue { state -> Grant? in
            guard let grant = state.codes[code], grant.clientID == clientID, !state.usedCodes.contains(code) else { return nil }
            state.usedCodes.insert(code)
            return grant
        }
        guard let grant else { return error("invalid_grant") }
        let accessToken = "a" + FakeHTTP.randomHex(bytes: 16) + ".0.nrxy." + FakeHTTP.randomHex(bytes: 8)
        let refreshToken = "r" + FakeHTTP.randomHex(bytes: 16) + ".0.nrxy." + FakeHTTP.randomHex(bytes: 8)
        guard let idToken = try? makeIdentityToken(sub: grant.sub, audience: clientID, email: grant.email) else {
            return FakeHTTP.json(500, ["error": "server_error"])
        }
        state.withLockedValue { state in
            state.tokens[accessToken] = grant
            state.tokens[refreshToken] = grant
        }
        return FakeHTTP.json(200, [
            "access_token": accessToken, "token_type": "Bearer", "expires_in": 3600, "refresh_token": refreshToken,
            "id_token": idToken,
        ])
    }

    private func revoke(_ fields: [String: String]) -> Response {
        guard let clientID = fields["client_id"], isValidClientSecret(fields["client_secret"], clientID: clientID) else {
            return error("invalid_client")
        }
        guard let token = fields["token"] else { return error("invalid_request") }
        let known = state.withLockedValue { state -> Bool in
            guard let grant = state.tokens[token], grant.clientID == clientID else { return false }
            state.tokens[token] = nil
            return true
        }
        guard known else { return error("invalid_grant") }
        revocations.append(Revocation(clientID: clientID, token: token, tokenTypeHint: fields["token_type_hint"]))
        return FakeHTTP.empty(200)
    }

    private struct SecretHeader: Decodable {
        var alg: String
        var kid: String?
    }

    private struct SecretClaims: Decodable {
        var iss: String?
        var sub: String?
        var aud: String?
        var iat: Int64?
        var exp: Int64?
    }

    /// The client secret Apple wants: an ES256 JWT by the team key for this client.
    private func isValidClientSecret(_ secret: String?, clientID: String) -> Bool {
        guard let secret else { return false }
        let segments = secret.split(separator: ".", omittingEmptySubsequences: false)
        guard segments.count == 3,
              let headerData = Base64URL.decode(segments[0]), let claimsData = Base64URL.decode(segments[1]),
              let signatureData = Base64URL.decode(segments[2]),
              let header = try? JSONDecoder().decode(SecretHeader.self, from: headerData),
              let claims = try? JSONDecoder().decode(SecretClaims.self, from: claimsData),
              header.alg == "ES256", header.kid == keyID, claims.iss == teamID, claims.sub == clientID,
              claims.aud == Self.defaultIssuer, let exp = claims.exp,
              let signature = try? P256.Signing.ECDSASignature(rawRepresentation: signatureData),
              teamKey.isValidSignature(signature, for: Data("\(segments[0]).\(segments[1])".utf8))
        else { return false }
        let now = clock.seconds
        guard exp > now, TimeInterval(exp - (claims.iat ?? now)) <= Self.maximumClientSecretLifetime,
              TimeInterval(exp - now) <= Self.maximumClientSecretLifetime
        else { return false }
        if let iat = claims.iat, iat > now + 60 { return false }
        return true
    }
}
