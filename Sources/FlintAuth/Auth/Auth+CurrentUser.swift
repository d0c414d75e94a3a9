import Foundation

extension Auth {
    /// Makes `user` the current user, as a sign-in would: it is persisted and the listeners are told.
    /// `user` may be one this instance signed in before (switching back to it), or the user of another
    /// `Auth` of the same project, of which this instance then keeps its own copy.
    ///
    /// As in FirebaseAuth, a user of an `Auth` with another API key (or, in FlintAuth, another server)
    /// is looked up through this instance first: a user of another project fails with the server's
    /// error, `invalidUserToken`. A user of another tenant fails with `tenantIDMismatch`. On failure
    /// the current user stays.
    public func updateCurrentUser(_ user: User) async throws {
        guard user.tenantID == tenantID else {
            throw AuthErrorUtils.error(.tenantIDMismatch)
        }
        try signInCompleted(user.auth === self ? user : try await copy(of: user))
    }

    /// Completion-handler form of `updateCurrentUser(_:)`; a nil `user` fails with `nullUser`.
    public func updateCurrentUser(_ user: User?, completion: (@MainActor ((any Error)?) -> Void)? = nil) {
        completeOnMainActor(completion) {
            guard let user else {
                throw AuthErrorUtils.error(.nullUser)
            }
            try await self.updateCurrentUser(user)
        }
    }

    /// This instance's copy of the session of `user`, a user of another `Auth`: checked with
    /// `accounts:lookup` through this instance unless both send the same API key to the same server.
    private func copy(of user: User) async throws -> User {
        let ours = backend.configuration
        let theirs = user.auth.backend.configuration
        guard ours.apiKey != theirs.apiKey || ours.baseURL != theirs.baseURL else {
            return User(snapshot: user.snapshot, auth: self)
        }
        let idToken = try await user.getIDToken()
        let record = try await backend.lookup(idToken: idToken)
        guard record.localId == user.uid else {
            throw AuthErrorUtils.error(.userMismatch)
        }
        var snapshot = user.snapshot
        snapshot.apply(record)
        return User(snapshot: snapshot, auth: self)
    }
}
