import FlintWire
import Foundation

/// The `factorID` of phone (SMS) second factors: `"phone"`.
public let PhoneMultiFactorID = "phone"
/// The `factorID` of TOTP (authenticator app) second factors: `"totp"`.
public let TOTPMultiFactorID = "totp"

/// A second factor enrolled on an account: an entry of `MultiFactor.enrolledFactors` or of
/// `MultiFactorResolver.hints`.
public class MultiFactorInfo: NSObject, @unchecked Sendable {
    // @unchecked Sendable: a non-final class cannot be checked. Immutable: only `let` properties of
    // Sendable types, in this class and its subclasses.

    /// The enrollment's ID (`mfaEnrollmentId`).
    public let uid: String
    /// The name given at enrollment, if any.
    public let displayName: String?
    /// When the factor was enrolled (when it was read, if the server did not say).
    public let enrollmentDate: Date
    /// `PhoneMultiFactorID` or `TOTPMultiFactorID`.
    public let factorID: String

    init(_ enrollment: MFAEnrollment, factorID: String) {
        uid = enrollment.mfaEnrollmentId
        displayName = enrollment.displayName
        enrollmentDate = enrollment.enrolledAt.flatMap(Self.date) ?? Date()
        self.factorID = factorID
    }

    /// The factor of an `mfaInfo` entry; nil for a kind of factor FlintAuth does not know.
    static func make(_ enrollment: MFAEnrollment) -> MultiFactorInfo? {
        if let phoneNumber = enrollment.phoneInfo {
            return PhoneMultiFactorInfo(enrollment, phoneNumber: phoneNumber)
        }
        if enrollment.totpInfo != nil {
            return TOTPMultiFactorInfo(enrollment)
        }
        return nil
    }

    /// `enrolledAt`: RFC 3339, with or without fractional seconds.
    private static func date(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) {
            return date
        }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)
    }
}

/// An enrolled phone (SMS) second factor.
public final class PhoneMultiFactorInfo: MultiFactorInfo, @unchecked Sendable {
    /// The phone number: whole in `MultiFactor.enrolledFactors`, masked (`+*******0111`) in
    /// `MultiFactorResolver.hints`.
    public let phoneNumber: String

    init(_ enrollment: MFAEnrollment, phoneNumber: String) {
        self.phoneNumber = phoneNumber
        super.init(enrollment, factorID: PhoneMultiFactorID)
    }
}

/// An enrolled TOTP (authenticator app) second factor.
public final class TOTPMultiFactorInfo: MultiFactorInfo, @unchecked Sendable {
    init(_ enrollment: MFAEnrollment) {
        super.init(enrollment, factorID: TOTPMultiFactorID)
    }
}
