import FlintWire

/// The RPCs of the SDK, each adding `tenantId` where the method takes one.
extension AuthBackend {
    /// `accounts:signUp`: a new anonymous or email/password user, or (with `idToken`) a link.
    func signUp(_ request: SignUpRequest) async throws -> SignInResponse {
        return try await post(.signUp, request)
    }

    /// `accounts:signInWithPassword`.
    func signIn(email: String, password: String) async throws -> SignInResponse {
        let request = SignInWithPasswordRequest(email: email, password: password)
        return try await postFirstFactor(.signInWithPassword, request)
    }

    /// `accounts:signInWithCustomToken` (v3 `verifyCustomToken`). Custom tokens skip second factors.
    func signIn(customToken: String) async throws -> SignInResponse {
        return try await post(.signInWithCustomToken, SignInWithCustomTokenRequest(token: customToken))
    }

    /// `accounts:lookup` of the user an ID token belongs to. Like FirebaseAuth, anything but
    /// exactly one user in the answer is an `internalError`.
    func lookup(idToken: String) async throws -> UserRecord {
        let request = LookupRequest(idToken: idToken)
        let response: LookupResponse = try await post(.lookup, request)
        guard let users = response.users, users.count == 1 else {
            throw AuthErrorUtils.internalError(response: "accounts:lookup returned \(response.users?.count ?? 0) users")
        }
        return users[0]
    }

    /// `accounts:update` (profile, email, password, unlink).
    func updateAccount(_ request: UpdateAccountRequest) async throws -> UpdateAccountResponse {
        return try await post(.update, request)
    }

    /// `accounts:delete` of the user an ID token belongs to.
    func deleteAccount(idToken: String, localID: String) async throws {
        let request = DeleteAccountRequest(idToken: idToken, localId: localID)
        let _: DeleteAccountResponse = try await post(.delete, request)
    }

    /// `accounts:createAuthUri`, which lists the sign-in methods of an email.
    func createAuthURI(identifier: String) async throws -> CreateAuthURIResponse {
        let request = CreateAuthURIRequest(identifier: identifier, continueUri: "http://www.google.com/")
        return try await post(.createAuthURI, request)
    }

    /// v2 `GET passwordPolicy` of the configured tenant, or of the project without one.
    func passwordPolicy() async throws -> PasswordPolicyResponse {
        try await get(.passwordPolicy, query: tenantQuery)
    }

    /// Secure Token `grant_type=refresh_token`: a new ID token (and possibly a new refresh token).
    func refresh(refreshToken: String) async throws -> SecureTokenResponse {
        try await post(.secureToken, SecureTokenRequest(refreshToken: refreshToken))
    }
}
