import FlintWire
import Foundation

extension User {
    /// Emails the user a link that verifies their address, continuing as `actionCodeSettings` says.
    public func sendEmailVerification(with actionCodeSettings: ActionCodeSettings? = nil) async throws {
        try await sendVerification(SendOobCodeRequest(requestType: .verifyEmail), settings: actionCodeSettings)
    }

    /// Completion-handler form of `sendEmailVerification(with:)`.
    public func sendEmailVerification(
        with actionCodeSettings: ActionCodeSettings? = nil,
        completion: (@MainActor ((any Error)?) -> Void)? = nil
    ) {
        completeOnMainActor(completion) { try await self.sendEmailVerification(with: actionCodeSettings) }
    }

    /// Emails `newEmail` a link that, once opened (or its code passed to `Auth.applyActionCode(_:)`),
    /// verifies that address and makes it the user's. Until then the address stays as it is.
    public func sendEmailVerification(beforeUpdatingEmail newEmail: String,
                                      actionCodeSettings: ActionCodeSettings? = nil) async throws {
        try await sendVerification(SendOobCodeRequest(requestType: .verifyAndChangeEmail, newEmail: newEmail),
                                   settings: actionCodeSettings)
    }

    /// Completion-handler form of `sendEmailVerification(beforeUpdatingEmail:actionCodeSettings:)`.
    public func sendEmailVerification(
        beforeUpdatingEmail newEmail: String,
        actionCodeSettings: ActionCodeSettings? = nil,
        completion: (@MainActor ((any Error)?) -> Void)? = nil
    ) {
        completeOnMainActor(completion) {
            try await self.sendEmailVerification(beforeUpdatingEmail: newEmail, actionCodeSettings: actionCodeSettings)
        }
    }

    /// `accounts:sendOobCode` of `request` for this user (with a fresh ID token).
    private func sendVerification(_ request: SendOobCodeRequest, settings: ActionCodeSettings?) async throws {
        try await withFreshToken { backend, idToken in
            var request = request
            request.idToken = idToken
            settings?.apply(to: &request)
            try await backend.sendOobCode(request)
        }
    }
}
