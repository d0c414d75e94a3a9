import FlintWire
import Foundation

extension Auth {
    /// Revokes the current user's Sign in with Apple tokens with a fresh authorization code from
    /// `ASAuthorizationAppleIDCredential.authorizationCode` (App Store rules ask for this when an
    /// account is deleted). Does nothing when no user is signed in.
    public func revokeToken(withAuthorizationCode authorizationCode: String) async throws {
        guard let user = currentUser else { return }
        try await user.withFreshToken { backend, idToken in
            try await backend.revokeToken(RevokeTokenRequest(providerId: ProviderID.apple, tokenType: "CODE",
                                                             token: authorizationCode, idToken: idToken))
        }
    }

    /// Completion-handler form of `revokeToken(withAuthorizationCode:)`.
    public func revokeToken(withAuthorizationCode authorizationCode: String,
                            completion: (@MainActor ((any Error)?) -> Void)? = nil) {
        completeOnMainActor(completion) { try await self.revokeToken(withAuthorizationCode: authorizationCode) }
    }
}
