import FlintWire
import Foundation

/// One signed-in session of a user: what one sign-in began (its refresh token), with how and where it signed in and
/// when it last got a fresh ID token. The session's ID tokens carry its `sessionId` as their `sid` claim
/// (``DecodedIDToken/sessionID``). A Flint extension: Firebase has no sessions API.
public typealias UserSession = FlintWire.UserSession

extension AdminError.Code {
    /// No session of the user has this ID (unknown, already ended, or another user's): Flint's `SESSION_NOT_FOUND`.
    public static let sessionNotFound = AdminError.Code(rawValue: "auth/session-not-found")
}

/// A user's sessions, one per sign-in (`v2/projects/{p}[/tenants/{t}]/accounts/{uid}/sessions`, a Flint extension in
/// the v2 style): listed, and ended one at a time, where ``revokeRefreshTokens(uid:)`` ends them all. A tenant's
/// `AdminAuth` reaches its tenant's users.
extension AdminAuth {
    /// The sessions `uid` has signed in and not ended (nor had ended), the most recently refreshed first.
    ///
    /// Flint servers only: Firebase and the official emulator have no such endpoint.
    ///
    /// - Parameter uid: the user's uid; one that is not 1 to 128 characters is `invalidUID`, before anything is sent.
    /// - Returns: the user's living sessions; their `sessionId`s are the `sid` claims of their ID tokens.
    /// - Throws: `userNotFound` when there is no such user.
    public func sessions(uid: String) async throws -> [UserSession] {
        let path = try sessionsPath(uid: uid)
        return try await sessionsCall { try await connection.call("GET", path, as: ListUserSessionsResponse.self) }.sessions
    }

    /// Ends one session of `uid`, as signing out on that device would: its refresh token stops working at once, and
    /// its ID tokens fail ``verifyIDToken(_:checkRevoked:)`` with `checkRevoked` (`idTokenRevoked`). The user's other
    /// sessions, and tokens already issued that are verified without `checkRevoked`, keep working.
    ///
    /// Flint servers only: Firebase and the official emulator have no such endpoint.
    ///
    /// - Parameters:
    ///   - uid: the user's uid; one that is not 1 to 128 characters is `invalidUID`, before anything is sent.
    ///   - sessionID: the session's `sessionId` (an ID token's `sid`); an empty one is `invalidArgument`, before
    ///     anything is sent.
    /// - Throws: ``AdminError/Code/sessionNotFound`` when the user has no living session of that ID.
    public func revokeSession(uid: String, sessionID: String) async throws {
        guard !sessionID.isEmpty else { throw AdminError(.invalidArgument, "a session ID is not empty") }
        let path = try sessionsPath(uid: uid) + "/" + FormURLEncoding.escape(sessionID)
        _ = try await sessionsCall { try await connection.call("DELETE", path, as: JSONValue.self) }
    }

    /// Whether `verifyIDToken` and `verifySessionCookie` ask, with `checkRevoked`, that a token's session still
    /// lives: against a Flint server in production mode (its tokens carry its own issuer, not Google's), and against an
    /// emulator, which may be Flint's (the official one's answer of 404 then lets the token through). Never against
    /// Firebase, whose tokens name no session.
    var checksSessions: Bool {
        endpoints.isEmulator || endpoints.idTokenIssuerPrefix != AdminEndpoints.firebase.idTokenIssuerPrefix
    }

    /// For `checkRevoked`: a token that names its session (`sid`) is refused with `kind`'s revoked code when that
    /// session is no longer among the user's. One call of ``sessions(uid:)``; none for a token without `sid` or
    /// against Firebase.
    func checkSession(of decoded: DecodedIDToken, kind: TokenVerifier.Kind) async throws {
        guard checksSessions, let sessionID = decoded.sessionID else { return }
        let living: [UserSession]
        do {
            living = try await sessions(uid: decoded.uid)
        } catch let error as AdminError where endpoints.isEmulator && error.httpStatus == 404 {
            return // An emulator without the endpoint (the official one): it keeps no sessions to check.
        }
        guard living.contains(where: { $0.sessionId == sessionID }) else {
            throw AdminError(kind.revoked, "the \(kind.name) was revoked: its session (\(sessionID)) has ended")
        }
    }

    /// `/v2/projects/{p}[/tenants/{t}]/accounts/{uid}/sessions`, for a uid that passes `Check.uid`.
    private func sessionsPath(uid: String) throws -> String {
        try Check.uid(uid)
        return "/v2/" + resourceName + "/accounts/" + FormURLEncoding.escape(uid) + "/sessions"
    }

    /// `body`, with Flint's `SESSION_NOT_FOUND`, which firebase-admin's table does not know, as `sessionNotFound`.
    private func sessionsCall<Reply>(_ body: () async throws -> Reply) async throws -> Reply {
        do {
            return try await body()
        } catch let error as AdminError where error.serverCode == ServerErrorCode.sessionNotFound.rawValue {
            throw AdminError(.sessionNotFound, error.message, serverCode: error.serverCode, httpStatus: error.httpStatus)
        }
    }
}
