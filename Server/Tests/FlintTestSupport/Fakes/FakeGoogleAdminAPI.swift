import _CryptoExtras
import Crypto
import FlintWire
import Foundation
import Hummingbird
import NIOConcurrencyHelpers

/// Google's side of an Admin SDK on 127.0.0.1: the OAuth2 token endpoint (the JWT-bearer grant, checked as Google
/// checks it: RS256 by the service account's key, `iss`, `aud` the endpoint, a cloud-platform scope, at most an hour),
/// the published token-signing keys (the X.509 map of ID tokens and of session cookies, with `Cache-Control`), and
/// Identity Toolkit's `accounts:lookup`, which answers only a live access token the endpoint issued.
///
/// The grant's signature is checked with swift-crypto, independently of the client's own RSA code.
public final class FakeGoogleAdminAPI: Sendable {
    private struct State {
        var certificates: [String: String] = [:]
        var cacheControl: String?
        var users: [String: JSONValue] = [:]
        /// Access token → when it expires.
        var accessTokens: [String: Date] = [:]
        var grants = 0
        var keyFetches = 0
        var refusedGrants: [String] = []
    }

    private let state = NIOLockedValueBox(State())
    private let server = NIOLockedValueBox<FakeHTTPServer?>(nil)
    private let account: (clientEmail: String, keyID: String, publicKey: _RSA.Signing.PublicKey)
    private let tokenLifetime: Int
    private let now: @Sendable () -> Date

    public var port: Int { server.withLockedValue { $0?.port ?? 0 } }
    public var baseURL: String { "http://127.0.0.1:\(port)" }
    public var tokenURL: String { baseURL + "/token" }
    public var idTokenKeysURL: String { baseURL + "/robot/v1/metadata/x509/securetoken@system.gserviceaccount.com" }
    public var sessionCookieKeysURL: String { baseURL + "/identitytoolkit/v3/relyingparty/publicKeys" }
    /// Grants answered with an access token, and why the others were refused.
    public var grants: Int { state.withLockedValue { $0.grants } }
    public var refusedGrants: [String] { state.withLockedValue { $0.refusedGrants } }
    public var keyFetches: Int { state.withLockedValue { $0.keyFetches } }

    private init(clientEmail: String, keyID: String, publicKey: _RSA.Signing.PublicKey, tokenLifetime: Int,
                 now: @escaping @Sendable () -> Date) {
        account = (clientEmail, keyID, publicKey)
        self.tokenLifetime = tokenLifetime
        self.now = now
    }

    /// A fake that grants tokens to the service account `clientEmail` whose key `keyID` is `publicKey`, good for
    /// `tokenLifetime` seconds by `now`.
    public static func start(clientEmail: String, keyID: String, publicKey: _RSA.Signing.PublicKey, tokenLifetime: Int = 3600,
                             now: @escaping @Sendable () -> Date = Date.init) async throws -> FakeGoogleAdminAPI {
        let fake = FakeGoogleAdminAPI(clientEmail: clientEmail, keyID: keyID, publicKey: publicKey,
                                      tokenLifetime: tokenLifetime, now: now)
        let server = try await FakeHTTPServer.start(name: "fake-google-admin") { [weak fake] request, _ in
            guard let fake else { return FakeHTTP.empty(503) }
            return await fake.answer(request)
        }
        fake.server.withLockedValue { $0 = server }
        return fake
    }

    public func stop() async {
        await server.withLockedValue { $0 }?.stop()
    }

    /// The key map both key URLs serve, and their `Cache-Control`.
    public func publish(certificates: [String: String], cacheControl: String?) {
        state.withLockedValue {
            $0.certificates = certificates
            $0.cacheControl = cacheControl
        }
    }

    /// A user `accounts:lookup` finds by `localId`, in Identity Toolkit's JSON.
    public func addUser(_ user: [String: JSONValue]) {
        guard let uid = user["localId"]?.stringValue else { return }
        state.withLockedValue { $0.users[uid] = .object(user) }
    }

    private func answer(_ request: Request) async -> Response {
        let path = request.uri.path
        switch (request.method, path) {
        case (.post, "/token"):
            return grant(FakeHTTP.form(await FakeHTTP.body(request) ?? Data()))
        case (.get, "/robot/v1/metadata/x509/securetoken@system.gserviceaccount.com"),
             (.get, "/identitytoolkit/v3/relyingparty/publicKeys"):
            let (certificates, cacheControl) = state.withLockedValue { state in
                state.keyFetches += 1
                return (state.certificates, state.cacheControl)
            }
            return FakeHTTP.json(200, certificates, headers: cacheControl.map { ["Cache-Control": $0] } ?? [:])
        case (.post, _) where path.hasPrefix("/v1/projects/") && path.hasSuffix("/accounts:lookup"):
            guard authorized(FakeHTTP.header(request, "Authorization")) else {
                return FakeHTTP.json(401, ["error": ["code": 401, "message": "UNAUTHENTICATED", "status": "UNAUTHENTICATED"]])
            }
            let body = (await FakeHTTP.body(request)).flatMap { try? JSONDecoder().decode(LookupRequest.self, from: $0) }
            let found = state.withLockedValue { state in (body?.localId ?? []).compactMap { state.users[$0] } }
            return FakeHTTP.json(200, encoding: ["kind": "identitytoolkit#GetAccountInfoResponse", "users": .array(found)])
        default:
            return FakeHTTP.json(404, ["error": ["code": 404, "message": "NOT_FOUND"]])
        }
    }

    private func authorized(_ header: String?) -> Bool {
        guard let header, header.hasPrefix("Bearer ") else { return false }
        let token = String(header.dropFirst(7))
        return state.withLockedValue { $0.accessTokens[token].map { $0 > now() } ?? false }
    }

    /// RFC 7523's grant as Google's endpoint takes it; OAuth's `invalid_grant` otherwise, with the reason.
    private func grant(_ form: [String: String]) -> Response {
        guard form["grant_type"] == "urn:ietf:params:oauth:grant-type:jwt-bearer" else {
            return refuse("unsupported_grant_type", "grant_type is \(form["grant_type"] ?? "missing")")
        }
        let parts = (form["assertion"] ?? "").split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerBytes = Base64URL.decode(parts[0]), let claimBytes = Base64URL.decode(parts[1]),
              let signature = Base64URL.decode(parts[2]),
              case .object(let header)? = try? JSONDecoder().decode(JSONValue.self, from: headerBytes),
              case .object(let claims)? = try? JSONDecoder().decode(JSONValue.self, from: claimBytes)
        else { return refuse("invalid_grant", "the assertion is not a JWT") }
        guard header["alg"]?.stringValue == "RS256", header["kid"]?.stringValue == account.keyID else {
            return refuse("invalid_grant", "the assertion's alg or kid is wrong")
        }
        let input = Data((parts[0] + "." + parts[1]).utf8)
        guard account.publicKey.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: signature), for: input,
                                                 padding: .insecurePKCS1v1_5)
        else { return refuse("invalid_grant", "Invalid JWT Signature.") }
        let time = now().timeIntervalSince1970
        guard claims["iss"]?.stringValue == account.clientEmail, claims["aud"]?.stringValue == tokenURL,
              let scope = claims["scope"]?.stringValue, scope.split(separator: " ").contains("https://www.googleapis.com/auth/cloud-platform"),
              let issuedAt = claims["iat"]?.numberValue, let expiresAt = claims["exp"]?.numberValue,
              issuedAt <= time + 60, expiresAt > time, expiresAt - issuedAt <= 3600
        else { return refuse("invalid_grant", "Invalid JWT: iss, aud, scope or times are wrong.") }
        let token = "ya29.fake-" + UUID().uuidString
        state.withLockedValue {
            $0.grants += 1
            $0.accessTokens[token] = now().addingTimeInterval(TimeInterval(tokenLifetime))
        }
        return FakeHTTP.json(200, ["access_token": token, "expires_in": tokenLifetime, "token_type": "Bearer"])
    }

    private func refuse(_ error: String, _ description: String) -> Response {
        state.withLockedValue { $0.refusedGrants.append(description) }
        return FakeHTTP.json(400, ["error": error, "error_description": description])
    }
}
