@testable import FlintAdminCore
import FlintWire
import Foundation
import Testing

/// A user's sessions without a server: the requests `sessions(uid:)` and `revokeSession(uid:sessionID:)` send, the
/// name of `SESSION_NOT_FOUND`, and when `checkRevoked` asks for the sessions (against an emulator, whose unsigned
/// tokens a test can make; the live tests in `Server/` cover a Flint server in production mode).
@Suite struct SessionsTests {
    static let project = "p"
    static let now = Date(timeIntervalSince1970: 1_700_000_000)

    static func client(_ transport: any AdminTransport, endpoints: AdminEndpoints = .emulator(host: "127.0.0.1:9099")) throws -> AdminAuth {
        try AdminAuth(projectID: project, credential: .emulatorOwner, endpoints: endpoints, transport: transport,
                      now: { now })
    }

    static let listed = #"{"sessions":[{"sessionId":"s2","signInProvider":"password","createTime":"2023-11-14T22:13:00Z","lastRefreshTime":"2023-11-14T22:13:20Z"},{"sessionId":"s1","signInProvider":"custom","createTime":"2023-11-14T22:00:00Z","lastRefreshTime":"2023-11-14T22:10:00Z","tenantId":"t1"}]}"#

    /// An emulator's unsigned ID token (or, with the cookies' issuer, session cookie) of user `u1`, with `sid` when given.
    static func idToken(sid: String?, tenant: String? = nil,
                        issuerPrefix: String = AdminEndpoints.firebase.idTokenIssuerPrefix) throws -> String {
        let issuedAt = Double(now.timeIntervalSince1970) - 60
        var firebase: [String: JSONValue] = ["sign_in_provider": "password"]
        if let tenant { firebase["tenant"] = .string(tenant) }
        var claims: [String: JSONValue] = [
            "iss": .string(issuerPrefix + project), "aud": .string(project), "sub": "u1",
            "user_id": "u1", "iat": .number(issuedAt), "auth_time": .number(issuedAt), "exp": .number(issuedAt + 3600),
            "firebase": .object(firebase),
        ]
        if let sid { claims["sid"] = .string(sid) }
        return try JWT.encode(claims, kid: nil, signingWith: nil)
    }

    static let lookup = #"{"users":[{"localId":"u1"}]}"#

    @Test func theSessionsAreListedAndEndedUnderTheUsersPath() async throws {
        let transport = AnsweringTransport([(200, Self.listed), (200, "{}"), (200, Self.listed)])
        let auth = try Self.client(transport)
        let sessions = try await auth.sessions(uid: "u/1")
        #expect(sessions.map(\.sessionId) == ["s2", "s1"] && sessions[1].tenantId == "t1" && sessions[0].signInProvider == "password")
        try await auth.revokeSession(uid: "u/1", sessionID: "s 1")
        _ = try await auth.tenant("t1").sessions(uid: "u1")
        let root = "http://127.0.0.1:9099/identitytoolkit.googleapis.com/v2/projects/p"
        #expect(transport.requests.map { "\($0.method) \($0.url.absoluteString)" } == [
            "GET \(root)/accounts/u%2F1/sessions", "DELETE \(root)/accounts/u%2F1/sessions/s%201",
            "GET \(root)/tenants/t1/accounts/u1/sessions",
        ])
        #expect(transport.requests.allSatisfy { $0.headers["Authorization"] == "Bearer owner" })
    }

    @Test func anUnknownSessionIsSessionNotFound() async throws {
        let refusal = #"{"error":{"code":400,"message":"SESSION_NOT_FOUND","errors":[]}}"#
        let auth = try Self.client(AnsweringTransport([(400, refusal)]))
        do {
            try await auth.revokeSession(uid: "u1", sessionID: "gone")
            Issue.record("an unknown session was ended")
        } catch let error as AdminError {
            #expect(error.code == .sessionNotFound && error.code.rawValue == "auth/session-not-found", "\(error)")
            #expect(error.serverCode == "SESSION_NOT_FOUND" && error.httpStatus == 400)
        }
    }

    @Test func argumentsAreCheckedBeforeSending() async throws {
        let auth = try Self.client(RefusingTransport())
        await expectCode(.invalidUID) { _ = try await auth.sessions(uid: "") }
        await expectCode(.invalidUID) { _ = try await auth.sessions(uid: String(repeating: "u", count: 129)) }
        await expectCode(.invalidUID) { try await auth.revokeSession(uid: "", sessionID: "s1") }
        await expectCode(.invalidArgument) { try await auth.revokeSession(uid: "u1", sessionID: "") }
    }

    /// With `checkRevoked`, a token naming a session costs one more call, and passes only while the session lives.
    @Test func checkRevokedRequiresTheTokensSessionToLive() async throws {
        let living = AnsweringTransport([(200, Self.lookup), (200, Self.listed)])
        #expect(try await Self.client(living).verifyIDToken(Self.idToken(sid: "s1"), checkRevoked: true).sessionID == "s1")
        #expect(living.requests.map(\.method) == ["POST", "GET"])
        #expect(living.requests.last?.url.path.hasSuffix("/v2/projects/p/accounts/u1/sessions") == true)

        let ended = AnsweringTransport([(200, Self.lookup), (200, Self.listed)])
        await expectCode(.idTokenRevoked) { _ = try await Self.client(ended).verifyIDToken(Self.idToken(sid: "s0"), checkRevoked: true) }
        let cookie = AnsweringTransport([(200, Self.lookup), (200, #"{"sessions":[]}"#)])
        await expectCode(.sessionCookieRevoked) {
            _ = try await Self.client(cookie).verifySessionCookie(
                Self.idToken(sid: "s1", issuerPrefix: AdminEndpoints.firebase.sessionCookieIssuerPrefix), checkRevoked: true)
        }

        // A tenant's token, verified by the project's client: the tenant's user, and the tenant's sessions.
        let tenant = AnsweringTransport([(200, Self.lookup), (200, Self.listed)])
        _ = try await Self.client(tenant).verifyIDToken(Self.idToken(sid: "s2", tenant: "t1"), checkRevoked: true)
        #expect(tenant.requests.last?.url.path.hasSuffix("/v2/projects/p/tenants/t1/accounts/u1/sessions") == true)

        // No sid, or no checkRevoked: no sessions call.
        let noSID = AnsweringTransport([(200, Self.lookup)])
        #expect(try await Self.client(noSID).verifyIDToken(Self.idToken(sid: nil), checkRevoked: true).sessionID == nil)
        #expect(noSID.requests.count == 1)
        #expect(try await Self.client(RefusingTransport()).verifyIDToken(Self.idToken(sid: "s0")).uid == "u1")
    }

    /// The official emulator has no sessions endpoint: its 404 lets the token through. Any other refusal is thrown.
    @Test func anEmulatorWithoutTheEndpointSkipsTheSessionCheck() async throws {
        let official = AnsweringTransport([(200, Self.lookup), (404, "Not Found")])
        #expect(try await Self.client(official).verifyIDToken(Self.idToken(sid: "s1"), checkRevoked: true).uid == "u1")
        let failing = AnsweringTransport([(200, Self.lookup), (500, "oops")])
        await expectCode(.internalError) { _ = try await Self.client(failing).verifyIDToken(Self.idToken(sid: "s1"), checkRevoked: true) }
    }

    @Test func onlyFirebasesEndpointsNeverCheckSessions() throws {
        #expect(try Self.client(RefusingTransport()).checksSessions)
        #expect(try Self.client(RefusingTransport(), endpoints: .flint(URL(string: "https://auth.example.com")!)).checksSessions)
        #expect(try !Self.client(RefusingTransport(), endpoints: .firebase).checksSessions)
    }

    private func expectCode(_ code: AdminError.Code, sourceLocation: SourceLocation = #_sourceLocation,
                            _ body: () async throws -> Void) async {
        do {
            try await body()
            Issue.record("expected \(code)", sourceLocation: sourceLocation)
        } catch let error as AdminError {
            #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("expected \(code), got \(error)", sourceLocation: sourceLocation)
        }
    }
}

/// A server that answers each request with the next of `answers` (status and body), and keeps the requests.
final class AnsweringTransport: AdminTransport, @unchecked Sendable {
    private let lock = NSLock()
    private var answers: [(Int, String)]
    private var sent: [AdminHTTPRequest] = []

    init(_ answers: [(Int, String)]) { self.answers = answers }

    var requests: [AdminHTTPRequest] { lock.withLock { sent } }

    func send(_ request: AdminHTTPRequest) async throws -> AdminHTTPResponse {
        let answer: (Int, String)? = lock.withLock {
            sent.append(request)
            return answers.isEmpty ? nil : answers.removeFirst()
        }
        guard let (status, body) = answer else {
            Issue.record("unexpected \(request.method) \(request.url.absoluteString)")
            throw URLError(.cancelled)
        }
        return AdminHTTPResponse(status: status, headers: ["Content-Type": "application/json"], body: Data(body.utf8))
    }
}
