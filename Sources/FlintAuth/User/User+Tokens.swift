import Foundation

extension User {
    /// The user's ID token. A cached token is returned unless it expires within 5 minutes or
    /// `forceRefresh` is true; otherwise it is refreshed (concurrent refreshes share one request).
    public func getIDToken(forcingRefresh forceRefresh: Bool = false) async throws -> String {
        if !forceRefresh, let token = snapshot.tokens.freshAccessToken() {
            return token
        }
        return try await refreshedAccessToken()
    }

    /// Same as `getIDToken(forcingRefresh:)`.
    public func idTokenForcingRefresh(_ forceRefresh: Bool) async throws -> String {
        try await getIDToken(forcingRefresh: forceRefresh)
    }

    /// Completion-handler form of `getIDToken()`.
    public func getIDToken(completion: (@MainActor (String?, (any Error)?) -> Void)?) {
        getIDTokenForcingRefresh(false, completion: completion)
    }

    /// Completion-handler form of `getIDToken(forcingRefresh:)`.
    public func getIDTokenForcingRefresh(_ forceRefresh: Bool, completion: (@MainActor (String?, (any Error)?) -> Void)?) {
        completeOnMainActor(completion) { try await self.getIDToken(forcingRefresh: forceRefresh) }
    }

    /// The ID token (as `getIDToken(forcingRefresh:)`) together with its decoded claims.
    public func getIDTokenResult(forcingRefresh forceRefresh: Bool = false) async throws -> AuthTokenResult {
        try AuthTokenResult(token: try await getIDToken(forcingRefresh: forceRefresh))
    }

    /// Completion-handler form of `getIDTokenResult()`.
    public func getIDTokenResult(completion: (@MainActor (AuthTokenResult?, (any Error)?) -> Void)?) {
        getIDTokenResult(forcingRefresh: false, completion: completion)
    }

    /// Completion-handler form of `getIDTokenResult(forcingRefresh:)`.
    public func getIDTokenResult(
        forcingRefresh forceRefresh: Bool,
        completion: (@MainActor (AuthTokenResult?, (any Error)?) -> Void)?
    ) {
        completeOnMainActor(completion) { try await self.getIDTokenResult(forcingRefresh: forceRefresh) }
    }

    /// Joins the refresh in flight, or starts one.
    private func refreshedAccessToken() async throws -> String {
        let refresh = state.withLock { state in
            if let running = state.refresh {
                return running
            }
            let refreshToken = state.snapshot.tokens.refreshToken
            let refresh = Task { try await self.performRefresh(using: refreshToken) }
            state.refresh = refresh
            return refresh
        }
        return try await refresh.value
    }

    /// Exchanges the refresh token for new tokens, stores them and notifies listeners.
    /// Runs at most once at a time per user; the lock ordering in `refreshedAccessToken` guarantees
    /// `state.refresh` is set before this clears it.
    private func performRefresh(using refreshToken: String) async throws -> String {
        defer { state[\.refresh] = nil }
        let backend = auth.backend
        let response = try await signingOutOnInvalidSession {
            try await backend.refresh(refreshToken: refreshToken)
        }
        let tokens = try TokenSnapshot(response, previousRefreshToken: refreshToken)
        try update { $0.tokens = tokens }
        return tokens.accessToken
    }
}
