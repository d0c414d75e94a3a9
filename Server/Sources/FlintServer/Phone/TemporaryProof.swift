import Foundation

/// The `temporaryProof` Firebase returns when a number being linked already belongs to another
/// account: proof that the caller just verified `phoneNumber`, good for one sign-in within an hour
/// (so the app can switch to that account without a second SMS). Sealed, bound to the project and
/// number, and single-use on every node (`SingleUseTokens`).
struct TemporaryProofs: Sendable {
    static let lifetimeSeconds: Int64 = 3600

    fileprivate struct Content: Codable, Sendable {
        var projectID: String
        var phoneNumber: String
    }

    private let tokens: SingleUseTokens<Content>

    init(core: ServerCore) {
        tokens = core.singleUseTokens(purpose: "phone-temporary-proof", lifetimeSeconds: Self.lifetimeSeconds)
    }

    func make(phoneNumber: String, projectID: String) throws -> String {
        try tokens.make(Content(projectID: projectID, phoneNumber: phoneNumber))
    }

    /// A checked proof, not yet used.
    struct Checked {
        fileprivate let opened: SingleUseTokens<Content>.Opened
        var phoneNumber: String { opened.payload.phoneNumber }
    }

    /// Checks a proof for `phoneNumber` without using it; throws `INVALID_TEMPORARY_PROOF` if it is not one.
    func check(_ proof: String, phoneNumber: String?, projectID: String) throws -> Checked {
        guard let phoneNumber, !phoneNumber.isEmpty else { throw FlintError(.missingPhoneNumber) }
        guard let opened = tokens.open(proof), opened.payload.projectID == projectID,
              opened.payload.phoneNumber == phoneNumber
        else { throw FlintError(.invalidTemporaryProof) }
        guard tokens.isLive(opened) else { throw FlintError(.sessionExpired) }
        return Checked(opened: opened)
    }

    /// Uses a checked proof up; a second use fails, on every node.
    func redeem(_ proof: Checked) async throws {
        guard try await tokens.redeem(proof.opened) else { throw FlintError(.invalidTemporaryProof) }
    }
}
