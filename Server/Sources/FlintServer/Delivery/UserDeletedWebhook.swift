import FlintWire
import Foundation
import Logging

/// The JSON body of the user-deletion webhook, so an app's backend can delete the user's own data.
public struct UserDeletedEvent: Codable, Sendable, Equatable {
    /// Always `user.deleted`.
    public var event: String
    public var projectId: String
    public var localId: String
    public var email: String?
    public var phoneNumber: String?
    /// The provider ids the account had (`password`, `phone`, `apple.com`, …).
    public var providerIds: [String]
    /// Epoch milliseconds.
    public var deletedAt: Int64
}

/// POSTs a `UserDeletedEvent`, signed with `X-Flint-Signature` (see `WebhookSignature`), after an account
/// is deleted. The deletion has happened either way: a failed delivery does not undo it or fail the
/// request; it is logged at error level with the user's id so an operator can replay it.
struct UserDeletedWebhook: Sendable {
    let url: String
    let secret: String
    let http: OutsideHTTP
    let clock: any FlintClock
    let logger: Logger

    func notify(_ user: UserAccount) async {
        let event = UserDeletedEvent(
            event: "user.deleted", projectId: user.projectID, localId: user.localID, email: user.email,
            phoneNumber: user.phoneNumber, providerIds: user.providerUserInfo.map(\.providerId), deletedAt: clock.milliseconds)
        do {
            try await http.postSigned(event, to: url, secret: secret, timestamp: clock.seconds, service: .webhook)
        } catch {
            logger.error("The user-deletion webhook failed", metadata: [
                "projectID": "\(user.projectID)", "localID": "\(user.localID)", "error": "\(error)",
            ])
        }
    }
}
