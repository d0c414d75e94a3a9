import FlintWire
import Foundation

/// A passkey enrolled on the user's account: an entry of ``User/enrolledPasskeys``.
public final class PasskeyInfo: NSObject, Sendable {
    /// The name the passkey was enrolled under.
    public let name: String?
    /// The credential's ID as the server keeps it: what ``User/unenrollPasskey(withCredentialID:)`` takes.
    public let credentialID: String?

    init(_ info: FlintWire.PasskeyInfo) {
        name = info.name
        credentialID = info.credentialId
    }
}
