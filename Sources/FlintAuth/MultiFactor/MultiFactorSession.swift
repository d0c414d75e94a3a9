import Foundation

/// Identifies a multi-factor flow (enrolling a second factor, or signing in with one) for
/// `PhoneAuthProvider.verifyPhoneNumber(_:uiDelegate:multiFactorSession:)`.
///
/// Placeholder: FlintAuth does not support multi-factor authentication yet, so no session can be
/// obtained, and `verifyPhoneNumber` rejects one.
public final class MultiFactorSession: NSObject, Sendable {
    override init() {}
}
