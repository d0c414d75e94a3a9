import FlintWire
import Foundation

extension User {
    /// Fetches the user's profile from the server (`accounts:lookup`).
    public func reload() async throws {
        try await withFreshToken { backend, idToken in
            let record = try await backend.lookup(idToken: idToken)
            try update { $0.apply(record) }
        }
    }

    /// Completion-handler form of `reload()`.
    public func reload(completion: (@MainActor ((any Error)?) -> Void)? = nil) {
        completeOnMainActor(completion) { try await self.reload() }
    }

    /// Changes the user's email. (Deprecated in FirebaseAuth in favour of a verified change.)
    public func updateEmail(to email: String) async throws {
        try await updateAccount(UpdateAccountRequest(email: email))
    }

    /// Completion-handler form of `updateEmail(to:)`.
    public func updateEmail(to email: String, completion: (@MainActor ((any Error)?) -> Void)? = nil) {
        completeOnMainActor(completion) { try await self.updateEmail(to: email) }
    }

    /// Changes the user's password. Other sessions' ID tokens stop working; this one gets new tokens.
    public func updatePassword(to password: String) async throws {
        try await updateAccount(UpdateAccountRequest(password: password))
    }

    /// Completion-handler form of `updatePassword(to:)`.
    public func updatePassword(to password: String, completion: (@MainActor ((any Error)?) -> Void)? = nil) {
        completeOnMainActor(completion) { try await self.updatePassword(to: password) }
    }

    /// A request to change the display name and photo URL; nothing is sent until `commitChanges`.
    public func createProfileChangeRequest() -> UserProfileChangeRequest {
        UserProfileChangeRequest(user: self)
    }

    /// Links `credential` to this user. Fails with `providerAlreadyLinked` if a credential of the
    /// same provider is already linked. An anonymous user stops being anonymous.
    @discardableResult
    public func link(with credential: AuthCredential) async throws -> AuthDataResult {
        guard !snapshot.providerData.contains(where: { $0.providerId == credential.provider }) else {
            throw AuthErrorUtils.error(.providerAlreadyLinked)
        }
        return try await withFreshToken { backend, idToken in
            let exchange = try await credential.exchange(for: .link(idToken: idToken), backend: backend,
                                                         pending: .updateUser(self))
            let tokens = try TokenSnapshot(exchange.response)
            let record = try await backend.lookup(idToken: tokens.accessToken)
            try update { snapshot in
                snapshot.tokens = tokens
                snapshot.apply(record)
                snapshot.isAnonymous = false
            }
            return AuthDataResult(user: self, additionalUserInfo: exchange.additionalUserInfo, credential: exchange.credential)
        }
    }

    /// Completion-handler form of `link(with:)`.
    public func link(with credential: AuthCredential,
                     completion: (@MainActor (AuthDataResult?, (any Error)?) -> Void)? = nil) {
        completeOnMainActor(completion) { try await self.link(with: credential) }
    }

    /// Signs in again with `credential`, which must belong to this user (else `userMismatch`),
    /// giving the session fresh tokens, e.g. before a sensitive operation.
    @discardableResult
    public func reauthenticate(with credential: AuthCredential) async throws -> AuthDataResult {
        let backend = auth.backend
        let exchange: CredentialExchange
        do {
            exchange = try await credential.exchange(for: .reauthenticate, backend: backend, pending: .updateUser(self))
        } catch let error where AuthErrorCode(error) == .userNotFound {
            throw AuthErrorUtils.error(.userMismatch)
        }
        let response = exchange.response
        guard response.localId == uid else {
            throw AuthErrorUtils.error(.userMismatch)
        }
        try await adopt(try TokenSnapshot(response), backend: backend)
        let info = exchange.additionalUserInfo ?? AdditionalUserInfo(providerID: credential.provider, isNewUser: false)
        return AuthDataResult(user: self, additionalUserInfo: info, credential: exchange.credential)
    }

    /// Completion-handler form of `reauthenticate(with:)`.
    public func reauthenticate(
        with credential: AuthCredential,
        completion: (@MainActor (AuthDataResult?, (any Error)?) -> Void)? = nil
    ) {
        completeOnMainActor(completion) { try await self.reauthenticate(with: credential) }
    }

    /// Removes the identity of `provider` (e.g. `"password"`) from this user. Fails with
    /// `noSuchProvider` if it is not linked.
    @discardableResult
    public func unlink(fromProvider provider: String) async throws -> User {
        guard snapshot.providerData.contains(where: { $0.providerId == provider }) else {
            throw AuthErrorUtils.error(.noSuchProvider)
        }
        try await updateAccount(UpdateAccountRequest(deleteProvider: [provider]))
        return self
    }

    /// Completion-handler form of `unlink(fromProvider:)`.
    public func unlink(fromProvider provider: String, completion: (@MainActor (User?, (any Error)?) -> Void)? = nil) {
        completeOnMainActor(completion) { try await self.unlink(fromProvider: provider) }
    }

    /// Deletes the account on the server, then signs it out locally.
    public func delete() async throws {
        try await withFreshToken { backend, idToken in
            try await backend.deleteAccount(idToken: idToken, localID: uid)
        }
        auth.signOutByForce(userID: uid)
    }

    /// Completion-handler form of `delete()`.
    public func delete(completion: (@MainActor ((any Error)?) -> Void)? = nil) {
        completeOnMainActor(completion) { try await self.delete() }
    }

    /// Takes over new `tokens` of this user's account (from a re-authentication, or a change of its second
    /// factors) and reloads the profile.
    /// Fails with `userMismatch`, changing nothing, if they belong to another account.
    func adopt(_ tokens: TokenSnapshot, backend: AuthBackend) async throws {
        let record = try await signingOutOnInvalidSession { try await backend.lookup(idToken: tokens.accessToken) }
        guard record.localId == uid else {
            throw AuthErrorUtils.error(.userMismatch)
        }
        try update { snapshot in
            snapshot.tokens = tokens
            snapshot.apply(record)
        }
    }

    /// Sends an `accounts:update` with a fresh ID token, adopts the new tokens the server may return
    /// (password and email changes revoke the old ones), and reloads the profile.
    func updateAccount(_ request: UpdateAccountRequest) async throws {
        try await withFreshToken { backend, idToken in
            var request = request
            request.idToken = idToken
            let response = try await backend.updateAccount(request)
            let tokens = TokenSnapshot(response)
            let record = try await backend.lookup(idToken: tokens?.accessToken ?? idToken)
            try update { snapshot in
                if let tokens {
                    snapshot.tokens = tokens
                }
                snapshot.apply(record)
            }
        }
    }
}
