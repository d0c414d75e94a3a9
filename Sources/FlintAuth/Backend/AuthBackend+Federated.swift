import FlintWire

extension Endpoint {
    /// Federated sign-in, link and reauthentication (v3 `verifyAssertion`).
    static let signInWithIdp = Endpoint(hostAndPath: "identitytoolkit.googleapis.com/v1/accounts:signInWithIdp")
    /// Revocation of the user's tokens at the provider (Sign in with Apple).
    static let revokeToken = Endpoint(hostAndPath: "identitytoolkit.googleapis.com/v2/accounts:revokeToken")
}

/// An empty answer.
private struct EmptyResponse: Decodable {}

extension AuthBackend {
    /// `accounts:signInWithIdp`.
    func signInWithIdp(_ request: SignInWithIdpRequest) async throws -> SignInWithIdpResponse {
        return try await postFirstFactor(.signInWithIdp, request)
    }

    /// v2 `accounts:revokeToken`.
    func revokeToken(_ request: RevokeTokenRequest) async throws {
        let _: EmptyResponse = try await post(.revokeToken, request)
    }
}
