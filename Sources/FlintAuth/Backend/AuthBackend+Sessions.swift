import FlintWire
import Foundation

extension Endpoint {
    static let listUserSessions = Endpoint(hostAndPath: "identitytoolkit.googleapis.com/v2/accounts/sessions:list")
    static let revokeUserSessions = Endpoint(hostAndPath: "identitytoolkit.googleapis.com/v2/accounts/sessions:revoke")
}

/// A user's own signed-in sessions (a Flint extension): each is what one sign-in began, its refresh token. The
/// configured tenant goes with each request (`post` adds it).
extension AuthBackend {
    /// `accounts/sessions:list`: the user's sessions, the most recently refreshed first.
    func userSessions(idToken: String) async throws -> [UserSession] {
        let response: ListUserSessionsResponse = try await post(.listUserSessions, UserSessionsRequest(idToken: idToken))
        return response.sessions
    }

    /// `accounts/sessions:revoke` of the session `sessionID`, or (`sessionID` nil) of every session but the ID
    /// token's own: the IDs of the sessions that ended.
    func revokeUserSessions(sessionID: String?, idToken: String) async throws -> [String] {
        let request = sessionID.map { UserSessionsRequest(idToken: idToken, sessionId: $0) }
            ?? UserSessionsRequest(idToken: idToken, allButCurrent: true)
        let response: RevokeUserSessionsResponse = try await post(.revokeUserSessions, request)
        return response.revokedSessionIds
    }
}
