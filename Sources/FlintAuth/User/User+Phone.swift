import FlintWire
import Foundation

extension User {
    /// Sets the user's phone number to the one `credential` proves (replacing any number it had).
    /// Fails with `credentialAlreadyInUse` if another account holds the number; the error's
    /// `AuthErrorUserInfoUpdatedCredentialKey` then signs in as that account.
    public func updatePhoneNumber(_ credential: PhoneAuthCredential) async throws {
        try await withFreshToken { backend, idToken in
            let response = try await credential.exchange(.update, idToken: idToken, backend: backend)
            let tokens = try TokenSnapshot(response)
            let record = try await backend.lookup(idToken: tokens.accessToken)
            try update { snapshot in
                snapshot.tokens = tokens
                snapshot.apply(record)
            }
        }
    }

    /// Completion-handler form of `updatePhoneNumber(_:)`.
    public func updatePhoneNumber(_ credential: PhoneAuthCredential, completion: (@MainActor ((any Error)?) -> Void)? = nil) {
        completeOnMainActor(completion) { try await self.updatePhoneNumber(credential) }
    }
}
