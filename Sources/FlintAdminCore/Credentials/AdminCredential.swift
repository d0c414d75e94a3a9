import FlintWire
import Foundation

/// What authorizes admin calls.
public enum AdminCredential: Sendable {
    /// A service account: calls carry an OAuth2 access token from the JWT-bearer grant (RFC 7523) at the key file's
    /// `token_uri`, as Google's client libraries get them, kept until five minutes before it expires.
    case serviceAccount(ServiceAccount)
    /// `Bearer owner`, which only the emulators (the official one, and Flint's emulator mode) accept.
    case emulatorOwner
    /// None: for a server that only verifies tokens (ID tokens and session cookies against the published keys, access
    /// tokens, introspection as its own OAuth client), and so needs no key of the project's. Admin calls and custom
    /// tokens throw ``AdminError/Code/invalidCredential``.
    case verificationOnly
}

/// The `Authorization` header's value for each call, with a service account's access token cached. Concurrent callers
/// that find no fresh token share one grant.
actor AccessTokens {
    private let credential: AdminCredential
    private let transport: any AdminTransport
    private let now: @Sendable () -> Date
    private var current: (token: String, refreshAt: Date)?
    private var pending: Task<(String, Date), any Error>?

    /// OAuth scopes the Admin SDKs ask for; Identity Toolkit needs the first two.
    static let scopes = [
        "https://www.googleapis.com/auth/cloud-platform", "https://www.googleapis.com/auth/firebase",
        "https://www.googleapis.com/auth/identitytoolkit", "https://www.googleapis.com/auth/userinfo.email",
    ]
    /// A token is replaced this long before it expires, so none expires on its way to the server.
    static let refreshMargin: TimeInterval = 300

    init(credential: AdminCredential, transport: any AdminTransport, now: @escaping @Sendable () -> Date) {
        self.credential = credential
        self.transport = transport
        self.now = now
    }

    func authorization() async throws -> String {
        let account: ServiceAccount
        switch credential {
        case .serviceAccount(let serviceAccount): account = serviceAccount
        case .emulatorOwner: return "Bearer owner"
        case .verificationOnly:
            throw AdminError(.invalidCredential, "this client verifies tokens only: admin calls need a service account")
        }
        if let current, now() < current.refreshAt { return "Bearer " + current.token }
        let task = pending ?? Task { try await Self.grant(account, transport: transport, now: now) }
        pending = task
        defer { pending = nil }
        let (token, refreshAt) = try await task.value
        current = (token, refreshAt)
        return "Bearer " + token
    }

    /// The JWT-bearer grant: a one-hour assertion the account signs, audience the token endpoint.
    private static func grant(_ account: ServiceAccount, transport: any AdminTransport,
                              now: @Sendable () -> Date) async throws -> (String, Date) {
        let issuedAt = Int64(now().timeIntervalSince1970)
        let assertion = try JWT.encode([
            "iss": .string(account.clientEmail), "sub": .string(account.clientEmail),
            "aud": .string(account.tokenURI.absoluteString), "scope": .string(scopes.joined(separator: " ")),
            "iat": .number(Double(issuedAt)), "exp": .number(Double(issuedAt + 3600)),
        ], kid: account.privateKeyID, signingWith: account.privateKey)
        let request = AdminHTTPRequest(
            method: "POST", url: account.tokenURI, headers: ["Content-Type": "application/x-www-form-urlencoded"],
            body: Data(FormURLEncoding.encode([
                ("grant_type", "urn:ietf:params:oauth:grant-type:jwt-bearer"), ("assertion", assertion),
            ]).utf8),
            timeout: AdminConnection.timeout)
        struct Grant: Decodable {
            var access_token: String?
            var expires_in: Double?
            var error: String?
            var error_description: String?
        }
        let response = try await AdminConnection.send(request, with: transport)
        let grant = try? JSONDecoder().decode(Grant.self, from: response.body)
        guard response.status == 200, let token = grant?.access_token, let lifetime = grant?.expires_in else {
            let reason = [grant?.error, grant?.error_description].compactMap { $0 }.joined(separator: ": ")
            throw AdminError(.invalidCredential, "the token endpoint \(account.tokenURI.absoluteString) refused the "
                             + "service account's grant (HTTP \(response.status)\(reason.isEmpty ? "" : ", " + reason))")
        }
        return (token, now().addingTimeInterval(lifetime - refreshMargin))
    }
}
