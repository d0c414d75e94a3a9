import FlintWire
import Foundation

/// A user's sessions for the CLI on the database (`flint users sessions`): the admin API's calls
/// (`v2/projects/{p}[/tenants/{t}]/accounts/{uid}/sessions[/{sessionId}]`), through the same `SessionRoutes`. A
/// tenant's caller acts on its tenant's users.
extension AuthServer {
    /// The user's living sessions, the most recently refreshed first.
    public func sessions(localID: String, caller: Caller) async throws -> ListUserSessionsResponse {
        try await sessionRoutes.list(realm: caller.projectID, localID: localID, current: nil)
    }

    /// Ends the user's session `sessionID`: its refresh token is refused from now on; `SESSION_NOT_FOUND` if the user
    /// has no living session of that ID.
    public func endSession(_ sessionID: String, localID: String, caller: Caller) async throws -> RevokeUserSessionsResponse {
        try await sessionRoutes.end(realm: caller.projectID, localID: localID, .only(sessionID))
    }

    private var sessionRoutes: SessionRoutes { assembly.userSessions }
}
