import FlintWire
import Foundation

/// The user's signed-in sessions (a Flint extension, not in FirebaseAuth): each sign-in, on any device, begins a
/// session, which lasts as long as its refresh token. A settings screen lists them and signs other devices out.
extension User {
    /// The user's sessions, the most recently refreshed first. The one this `User` signed in with has
    /// `current == true`; its ``User/refreshToken`` is that session's.
    ///
    /// `UserSession` is FlintWire's type: name it with `import FlintWire`.
    public func sessions() async throws -> [UserSession] {
        try await withFreshToken { backend, idToken in try await backend.userSessions(idToken: idToken) }
    }

    /// Completion-handler form of `sessions()`.
    ///
    /// - Parameter completion: Called on the main actor with the sessions, or the error.
    public func sessions(completion: (@MainActor ([UserSession]?, (any Error)?) -> Void)?) {
        completeOnMainActor(completion) { try await self.sessions() }
    }

    /// Ends one of the user's sessions: its refresh token stops working at once, so the device holding it is signed
    /// out at its next token refresh (its ID tokens already issued stay valid until they expire, within the hour).
    /// Ending the current session signs this device out the same way.
    ///
    /// Throws ``AuthErrorCode/sessionNotFound`` for an ID that names none of the user's live sessions (unknown, or
    /// ended already).
    ///
    /// - Parameter sessionID: The session's `sessionId`, as ``sessions()`` lists it.
    public func revokeSession(_ sessionID: String) async throws {
        _ = try await withFreshToken { backend, idToken in
            try await backend.revokeUserSessions(sessionID: sessionID, idToken: idToken)
        }
    }

    /// Completion-handler form of `revokeSession(_:)`.
    ///
    /// - Parameters:
    ///   - sessionID: The session's `sessionId`, as ``sessions()`` lists it.
    ///   - completion: Called on the main actor with nil, or the error.
    public func revokeSession(_ sessionID: String, completion: (@MainActor ((any Error)?) -> Void)?) {
        completeOnMainActor(completion) { try await self.revokeSession(sessionID) }
    }

    /// Ends every session of the user but the current one ("sign out everywhere else"): the other devices are signed
    /// out at their next token refresh, and this one stays signed in.
    public func revokeOtherSessions() async throws {
        _ = try await withFreshToken { backend, idToken in
            try await backend.revokeUserSessions(sessionID: nil, idToken: idToken)
        }
    }

    /// Completion-handler form of `revokeOtherSessions()`.
    ///
    /// - Parameter completion: Called on the main actor with nil, or the error.
    public func revokeOtherSessions(completion: (@MainActor ((any Error)?) -> Void)?) {
        completeOnMainActor(completion) { try await self.revokeOtherSessions() }
    }
}
