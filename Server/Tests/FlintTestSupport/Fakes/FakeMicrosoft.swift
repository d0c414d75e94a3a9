import FlintServer
import Foundation
import Hummingbird
import NIOConcurrencyHelpers

/// A local Microsoft identity platform (v2.0) for one application, with directory tenants:
///
/// - `GET /common/discovery/v2.0/keys` → the JWKS every tenant's ID tokens are signed with
/// - `GET /{tenant}/oauth2/v2.0/authorize` → the sign-in page (`FakeCodeGrants`); `browserUser`'s subject is an
///   account's object ID
/// - `POST /{tenant}/oauth2/v2.0/token` with the form's `client_id` and `client_secret` → `{id_token, access_token}`,
///   the ID token issued by the account's own tenant (`https://login.microsoftonline.com/{tid}/v2.0`); 401
///   `invalid_client`, or 400 `invalid_grant` for a bad code or an account the path's tenant does not admit
public final class FakeMicrosoft: FakeService {
    public static let issuerTemplate = "https://login.microsoftonline.com/{tenantid}/v2.0"

    public struct Account: Sendable {
        public var objectID: String
        public var tenantID: String
        public var email: String?
        public var name: String?

        public init(objectID: String, tenantID: String, email: String? = nil, name: String? = nil) {
            self.objectID = objectID
            self.tenantID = tenantID
            self.email = email
            self.name = name
        }
    }

    public let clientID: String
    public let clientSecret: String
    public let codeGrants: FakeCodeGrants
    /// Paths asked for, in order.
    public let requests = Recorder<String>()
    public let accounts = NIOLockedValueBox<[String: Account]>([:])

    private let clock: any FlintClock
    private let keys: FakeRSAKeys
    let server = NIOLockedValueBox<FakeHTTPServer?>(nil)

    public var port: Int { server.withLockedValue { $0?.port ?? 0 } }
    /// Stands for `https://login.microsoftonline.com`.
    public var loginURL: String { "http://127.0.0.1:\(port)" }

    private init(clientID: String, clientSecret: String, clock: any FlintClock) throws {
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.clock = clock
        keys = try FakeRSAKeys()
        codeGrants = FakeCodeGrants(clientID: clientID)
    }

    public static func start(clientID: String = "6731de76-14a6-49ae-97bc-6eba6914391e", clientSecret: String = "ms-app-secret",
                             clock: any FlintClock = SystemClock()) async throws -> FakeMicrosoft {
        let fake = try FakeMicrosoft(clientID: clientID, clientSecret: clientSecret, clock: clock)
        try await fake.serve(name: "fake-microsoft")
        return fake
    }

    public func stop() async {
        await server.withLockedValue { $0 }?.stop()
        requests.finish()
    }

    public func add(_ account: Account) {
        accounts.withLockedValue { $0[account.objectID] = account }
    }

    /// An ID token as the account's tenant issues it (`issuer`, `audience` or `signWith` changed to test refusals).
    public func makeIDToken(for account: Account, nonce: String? = nil, audience: String? = nil, issuer: String? = nil,
                            extraClaims: [String: Any] = [:], signWith signature: FakeTokenSignature = .current) throws -> String {
        let iat = clock.seconds
        var claims: [String: Any] = [
            "iss": issuer ?? Self.issuerTemplate.replacingOccurrences(of: "{tenantid}", with: account.tenantID),
            "aud": audience ?? clientID, "sub": "pairwise-" + account.objectID, "oid": account.objectID,
            "tid": account.tenantID, "iat": iat, "nbf": iat, "exp": iat + 3600, "ver": "2.0",
        ]
        if let nonce { claims["nonce"] = nonce }
        if let email = account.email {
            claims["email"] = email
            claims["preferred_username"] = email
        }
        if let name = account.name { claims["name"] = name }
        for (key, value) in extraClaims { claims[key] = value }
        return try keys.sign(claims, with: signature)
    }

    func handle(_ request: Request) async -> Response {
        let path = request.uri.path
        requests.append(path)
        if request.method == .get, path == "/common/discovery/v2.0/keys" { return FakeHTTP.json(200, keys.jwks()) }
        let parts = path.split(separator: "/").map(String.init)
        guard parts.count == 4, parts[1] == "oauth2", parts[2] == "v2.0" else { return FakeHTTP.json(404, ["error": "not_found"]) }
        switch (request.method, parts[3]) {
        case (.get, "authorize"):
            return codeGrants.authorize(request)
        case (.post, "token"):
            return exchange(FakeHTTP.form(await FakeHTTP.body(request) ?? Data()), tenant: parts[0])
        default:
            return FakeHTTP.json(404, ["error": "not_found"])
        }
    }

    private func exchange(_ form: [String: String], tenant: String) -> Response {
        guard form["client_id"] == clientID, form["client_secret"] == clientSecret else {
            return FakeHTTP.json(401, ["error": "invalid_client"])
        }
        guard let grant = codeGrants.redeem(form), let account = accounts.withLockedValue({ $0[grant.subject] }),
              ["common", "organizations", account.tenantID].contains(tenant),
              let idToken = try? makeIDToken(for: account, nonce: grant.nonce)
        else { return FakeHTTP.json(400, ["error": "invalid_grant"]) }
        return FakeHTTP.json(200, ["id_token": idToken, "access_token": FakeHTTP.randomHex(bytes: 24), "token_type": "Bearer",
                                   "expires_in": 3600, "scope": grant.scope ?? ""])
    }
}
