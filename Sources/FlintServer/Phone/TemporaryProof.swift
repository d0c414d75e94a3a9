import Foundation

/// The `temporaryProof` Firebase returns when a number being linked already belongs to another
/// account: proof that the caller just verified `phoneNumber`, good for one sign-in within an hour
/// (so the app can switch to that account without a second SMS).
///
/// It is sealed with the master key (so it cannot be forged or moved to another project or number)
/// and used once: its id is counted in the shared store, so a second use fails on every node.
struct TemporaryProofs: Sendable {
    let secrets: SecretBox
    let store: Store
    let clock: any FlintClock
    let random: any RandomSource

    static let lifetimeSeconds: Int64 = 3600

    private struct Content: Codable {
        var id: String
        var projectID: String
        var phoneNumber: String
        var expiresAt: Int64
    }

    func make(phoneNumber: String, projectID: String) throws -> String {
        let content = Content(id: random.token(byteCount: 16), projectID: projectID, phoneNumber: phoneNumber,
                              expiresAt: clock.seconds + Self.lifetimeSeconds)
        return try secrets.sealToken(content, context: Self.context)
    }

    /// A checked proof, not yet used.
    struct Checked {
        fileprivate let id: String
        fileprivate let expiresAt: Int64
        let phoneNumber: String
    }

    /// Checks a proof for `phoneNumber` without using it; throws `INVALID_TEMPORARY_PROOF` if it is not one.
    func check(_ proof: String, phoneNumber: String?, projectID: String) throws -> Checked {
        guard let phoneNumber, !phoneNumber.isEmpty else { throw FlintError(.missingPhoneNumber) }
        guard let content = secrets.openToken(proof, as: Content.self, context: Self.context),
              content.projectID == projectID, content.phoneNumber == phoneNumber
        else { throw FlintError(.invalidTemporaryProof) }
        guard content.expiresAt > clock.seconds else { throw FlintError(.sessionExpired) }
        return Checked(id: content.id, expiresAt: content.expiresAt, phoneNumber: phoneNumber)
    }

    /// Uses a checked proof up; a second use fails, on every node.
    func redeem(_ proof: Checked) async throws {
        // The marker's window is the expiry, so a sweep of old windows removes it once it is useless.
        let uses = try await store.incrementCounter("temporary-proof:\(proof.id)", windowStart: proof.expiresAt)
        guard uses == 1 else { throw FlintError(.invalidTemporaryProof) }
    }

    private static let context = "phone-temporary-proof"
}
