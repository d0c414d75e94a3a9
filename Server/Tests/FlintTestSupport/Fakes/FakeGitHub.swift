import FlintServer
import Foundation
import Hummingbird
import NIOConcurrencyHelpers

/// A local GitHub for one OAuth app: its web side and its REST API on one port (`webURL`, `apiURL`).
///
/// - `GET /login/oauth/authorize` → the sign-in page (`FakeCodeGrants`)
/// - `POST /login/oauth/access_token` with the form's `client_id` and `client_secret` → `{access_token, token_type,
///   scope}`; as GitHub does, a bad code or secret answers 200 with `{"error": …}`
/// - `POST /api/applications/{client_id}/token` with HTTP Basic `client_id:client_secret` and `{"access_token"}` →
///   200 and the token's user when the token is the app's and live; 404 when not; 401 for a bad secret
/// - `GET /api/user` and `GET /api/user/emails` with the token as bearer (the emails only with the `user:email`
///   scope, 404 otherwise); 401 for a bad token
public final class FakeGitHub: FakeService {
    public struct Account: Sendable {
        public var id: Int
        public var login: String
        public var name: String?
        public var email: String
        public var emailVerified: Bool

        public init(id: Int, login: String, name: String? = nil, email: String, emailVerified: Bool = true) {
            self.id = id
            self.login = login
            self.name = name
            self.email = email
            self.emailVerified = emailVerified
        }
    }

    /// What an access token stands for.
    private struct Token {
        var account: Account
        var clientID: String
        var canReadEmails: Bool
    }

    public let clientID: String
    public let clientSecret: String
    /// The sign-in page and its codes; `browserUser`'s subject is a login of `accounts`.
    public let codeGrants: FakeCodeGrants
    /// Paths asked for, in order.
    public let requests = Recorder<String>()
    public let accounts = NIOLockedValueBox<[String: Account]>([:])
    private let tokens = NIOLockedValueBox<[String: Token]>([:])
    let server = NIOLockedValueBox<FakeHTTPServer?>(nil)

    public var port: Int { server.withLockedValue { $0?.port ?? 0 } }
    /// Stands for `https://github.com`.
    public var webURL: String { "http://127.0.0.1:\(port)" }
    /// Stands for `https://api.github.com`.
    public var apiURL: String { "http://127.0.0.1:\(port)/api" }

    private init(clientID: String, clientSecret: String) {
        self.clientID = clientID
        self.clientSecret = clientSecret
        codeGrants = FakeCodeGrants(clientID: clientID)
    }

    public static func start(clientID: String = "Iv1.flint0123456789", clientSecret: String = "github-app-secret")
        async throws -> FakeGitHub {
        let fake = FakeGitHub(clientID: clientID, clientSecret: clientSecret)
        try await fake.serve(name: "fake-github")
        return fake
    }

    public func stop() async {
        await server.withLockedValue { $0 }?.stop()
        requests.finish()
    }

    public func add(_ account: Account) {
        accounts.withLockedValue { $0[account.login] = account }
    }

    /// An access token for `account` (`clientID` another app's, to test tokens for the wrong app).
    public func makeAccessToken(for account: Account, clientID: String? = nil, canReadEmails: Bool = true) -> String {
        let token = "gho_" + FakeHTTP.randomHex(bytes: 18)
        tokens.withLockedValue { $0[token] = Token(account: account, clientID: clientID ?? self.clientID, canReadEmails: canReadEmails) }
        return token
    }

    func handle(_ request: Request) async -> Response {
        let path = request.uri.path
        requests.append(path)
        switch (request.method, path) {
        case (.get, "/login/oauth/authorize"):
            return codeGrants.authorize(request)
        case (.post, "/login/oauth/access_token"):
            return exchange(FakeHTTP.form(await FakeHTTP.body(request) ?? Data()), accept: request.headers[.accept])
        case (.post, "/api/applications/\(clientID)/token"):
            return checkToken(request, body: await FakeHTTP.body(request) ?? Data())
        case (.get, "/api/user"):
            guard let token = bearer(request) else { return FakeHTTP.json(401, ["message": "Bad credentials"]) }
            return FakeHTTP.json(200, profile(token.account))
        case (.get, "/api/user/emails"):
            guard let token = bearer(request) else { return FakeHTTP.json(401, ["message": "Bad credentials"]) }
            guard token.canReadEmails else { return FakeHTTP.json(404, ["message": "Not Found"]) }
            let account = token.account
            let emails: [[String: Any]] = [
                ["email": "\(account.login)@users.noreply.github.com", "primary": false, "verified": true, "visibility": NSNull()],
                ["email": account.email, "primary": true, "verified": account.emailVerified, "visibility": "private"],
            ]
            return FakeHTTP.jsonArray(200, emails)
        default:
            return FakeHTTP.json(404, ["message": "Not Found"])
        }
    }

    private func profile(_ account: Account) -> [String: Any] {
        ["id": account.id, "login": account.login, "name": account.name ?? NSNull(), "email": NSNull(),
         "avatar_url": "https://avatars.example.com/u/\(account.id)", "type": "User"]
    }

    private func bearer(_ request: Request) -> Token? {
        guard let header = request.headers[.authorization], header.hasPrefix("Bearer ") else { return nil }
        return tokens.withLockedValue { $0[String(header.dropFirst(7))] }
    }

    private func exchange(_ form: [String: String], accept: String?) -> Response {
        guard accept == "application/json" else { return FakeHTTP.json(406, ["error": "not_acceptable"]) }
        guard form["client_id"] == clientID, form["client_secret"] == clientSecret else {
            return FakeHTTP.json(200, ["error": "incorrect_client_credentials"])
        }
        guard let grant = codeGrants.redeem(form), let account = accounts.withLockedValue({ $0[grant.subject] }) else {
            return FakeHTTP.json(200, ["error": "bad_verification_code"])
        }
        let scopes = (grant.scope ?? "").split(separator: " ").map(String.init)
        let token = makeAccessToken(for: account, canReadEmails: scopes.contains("user:email"))
        return FakeHTTP.json(200, ["access_token": token, "token_type": "bearer", "scope": scopes.joined(separator: ",")])
    }

    private func checkToken(_ request: Request, body: Data) -> Response {
        let basic = "Basic " + Data("\(clientID):\(clientSecret)".utf8).base64EncodedString()
        guard request.headers[.authorization] == basic else { return FakeHTTP.json(401, ["message": "Requires authentication"]) }
        guard let fields = try? JSONDecoder().decode([String: String].self, from: body), let value = fields["access_token"],
              let token = tokens.withLockedValue({ $0[value] }), token.clientID == clientID
        else { return FakeHTTP.json(404, ["message": "Not Found"]) }
        return FakeHTTP.json(200, ["token": value, "app": ["client_id": clientID], "user": profile(token.account)])
    }
}
