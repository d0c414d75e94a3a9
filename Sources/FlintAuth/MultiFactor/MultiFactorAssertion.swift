import FlintWire
import Foundation

/// Proof of a second factor, for `MultiFactor.enroll(with:displayName:)` and
/// `MultiFactorResolver.resolveSignIn(with:)`. Made by `PhoneMultiFactorGenerator` and
/// `TOTPMultiFactorGenerator`.
public class MultiFactorAssertion: NSObject, @unchecked Sendable {
    // @unchecked Sendable: a non-final class cannot be checked. Assertions are immutable: only `let`
    // properties of Sendable types, in this class and its subclasses.

    /// `PhoneMultiFactorID` or `TOTPMultiFactorID`.
    public let factorID: String

    init(factorID: String) {
        self.factorID = factorID
    }

    /// Puts the proof into an `mfaEnrollment:finalize` request. Each kind of factor overrides this.
    func apply(to request: inout FinalizeMFAEnrollmentRequest) throws {
        preconditionFailure("\(type(of: self)) must override apply(to:)")
    }

    /// Puts the proof into an `mfaSignIn:finalize` request. Each kind of factor overrides this.
    func apply(to request: inout FinalizeMFASignInRequest) throws {
        preconditionFailure("\(type(of: self)) must override apply(to:)")
    }
}

/// Proof of a phone second factor: the code texted for a multi-factor verification ID.
public final class PhoneMultiFactorAssertion: MultiFactorAssertion, @unchecked Sendable {
    let credential: PhoneAuthCredential

    init(credential: PhoneAuthCredential) {
        self.credential = credential
        super.init(factorID: PhoneMultiFactorID)
    }

    override func apply(to request: inout FinalizeMFAEnrollmentRequest) throws {
        request.phoneVerificationInfo = try credential.verificationInfo()
    }

    override func apply(to request: inout FinalizeMFASignInRequest) throws {
        request.phoneVerificationInfo = try credential.verificationInfo()
    }
}

/// Makes phone second-factor assertions.
public final class PhoneMultiFactorGenerator: NSObject, Sendable {
    /// An assertion of `credential`: `PhoneAuthProvider.credential(withVerificationID:verificationCode:)` of
    /// the verification ID that `PhoneAuthProvider.verifyPhoneNumber` returned for a multi-factor session.
    public static func assertion(with credential: PhoneAuthCredential) -> PhoneMultiFactorAssertion {
        PhoneMultiFactorAssertion(credential: credential)
    }

    private override init() {}
}
