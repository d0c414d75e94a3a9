import FlintWire
import Foundation

extension UserRecord {
    /// `disabled` or `enabled`.
    var status: String { disabled == true ? "disabled" : "enabled" }

    /// The record as JSON, or as labelled lines for people.
    func show(json: Bool) throws {
        if json {
            try Output.json(self)
            return
        }
        Output.fields([
            ("uid", localId),
            ("email", email.map { "\($0) (\(emailVerified == true ? "verified" : "not verified"))" }),
            ("phone", phoneNumber),
            ("display name", displayName),
            ("photo URL", photoUrl),
            ("status", status),
            ("custom claims", customAttributes),
            ("providers", providerUserInfo.flatMap { $0.isEmpty ? nil : $0.map(\.providerId).joined(separator: ", ") }),
            ("second factors", mfaInfo.map { String($0.count) }),
            ("created", Output.date(milliseconds: createdAt)),
            ("last sign-in", Output.date(milliseconds: lastLoginAt)),
            ("tokens valid since", Output.date(seconds: validSince)),
        ])
    }
}
