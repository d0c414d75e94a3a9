import Foundation

/// The error domain of every error FlintAuth reports (`"FIRAuthErrorDomain"`).
public let AuthErrorDomain = "FIRAuthErrorDomain"
/// `userInfo` key of the error's short name, e.g. `ERROR_INVALID_EMAIL`. Always present.
public let AuthErrorUserInfoNameKey = "FIRAuthErrorUserInfoNameKey"
/// `userInfo` key of the email involved in an `accountExistsWithDifferentCredential`,
/// `credentialAlreadyInUse` or `emailAlreadyInUse` error, when known.
public let AuthErrorUserInfoEmailKey = "FIRAuthErrorUserInfoEmailKey"
/// `userInfo` key of a credential the app can use to recover from a conflict.
public let AuthErrorUserInfoUpdatedCredentialKey = "FIRAuthErrorUserInfoUpdatedCredentialKey"
/// Flint: `userInfo` key of the phone number of a `credentialAlreadyInUse` error raised when linking
/// (or updating to) a number another account holds. FirebaseAuth has no such key.
public let AuthErrorUserInfoPhoneNumberKey = "FIRAuthErrorUserInfoPhoneNumberKey"
/// `userInfo` key of the `MultiFactorResolver` of a `secondFactorRequired` error.
public let AuthErrorUserInfoMultiFactorResolverKey = "FIRAuthErrorUserInfoMultiFactorResolverKey"

/// The error domain and `userInfo` keys of FlintAuth errors, under their FirebaseAuth names.
public final class AuthErrors: NSObject, Sendable {
    /// `AuthErrorDomain`.
    public static let domain = AuthErrorDomain
    /// `AuthErrorUserInfoNameKey`.
    public static let userInfoNameKey = AuthErrorUserInfoNameKey
    /// `AuthErrorUserInfoEmailKey`.
    public static let userInfoEmailKey = AuthErrorUserInfoEmailKey
    /// `AuthErrorUserInfoUpdatedCredentialKey`.
    public static let userInfoUpdatedCredentialKey = AuthErrorUserInfoUpdatedCredentialKey
    /// `AuthErrorUserInfoPhoneNumberKey`.
    public static let userInfoPhoneNumberKey = AuthErrorUserInfoPhoneNumberKey
    /// `AuthErrorUserInfoMultiFactorResolverKey`.
    public static let userInfoMultiFactorResolverKey = AuthErrorUserInfoMultiFactorResolverKey

    private override init() {}
}
