import FlintWire
import Foundation

/// Sessions of a user's that another feature keeps (the OpenID provider's clients, `OAuthClientSessions`), listed with
/// the user's sign-ins and ended the same way, by the user or an admin.
protocol ExternalSessions: Sendable {
    /// The user's live sessions of this kind, the most recently used first.
    func sessions(realm: String, localID: String) async throws -> [UserSession]
    /// Ends those of the user's that `selection` names; returns their IDs (an `.allBut` ends every one of this kind:
    /// the session kept is a sign-in's).
    func end(realm: String, localID: String, _ selection: SessionSelection) async throws -> [String]
}

extension UserSession {
    /// A session's time on the wire: RFC 3339, to the second.
    static func time(_ seconds: Int64) -> String {
        Date(timeIntervalSince1970: TimeInterval(seconds)).formatted(.iso8601)
    }
}
