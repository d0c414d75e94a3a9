import FlintWire
import Foundation

/// What an email action code is for.
public enum ActionCodeOperation: Int, Sendable {
    /// Not recognized.
    case unknown = 0
    /// Resets the password (`mode=resetPassword`).
    case passwordReset = 1
    /// Verifies the email address (`mode=verifyEmail`).
    case verifyEmail = 2
    /// Undoes an email change (`mode=recoverEmail`).
    case recoverEmail = 3
    /// Signs in (`mode=signIn`).
    case emailLink = 4
    /// Verifies a new email address, then changes to it (`mode=verifyAndChangeEmail`).
    case verifyAndChangeEmail = 5
    /// Undoes the enrollment of a second factor (`mode=revertSecondFactorAddition`).
    case revertSecondFactorAddition = 6

    /// The operation of a server `requestType` (`PASSWORD_RESET`, …) or of a link's `mode`
    /// (`resetPassword`, …); `.unknown` for anything else.
    init(requestTypeOrMode value: String?) {
        switch value {
        case "PASSWORD_RESET", "resetPassword": self = .passwordReset
        case "VERIFY_EMAIL", "verifyEmail": self = .verifyEmail
        case "RECOVER_EMAIL", "recoverEmail": self = .recoverEmail
        case "EMAIL_SIGNIN", "signIn": self = .emailLink
        case "VERIFY_AND_CHANGE_EMAIL", "verifyAndChangeEmail": self = .verifyAndChangeEmail
        case "REVERT_SECOND_FACTOR_ADDITION", "revertSecondFactorAddition": self = .revertSecondFactorAddition
        default: self = .unknown
        }
    }
}

/// What `Auth.checkActionCode(_:)` learned about an action code.
public final class ActionCodeInfo: NSObject, Sendable {
    /// What the code is for.
    public let operation: ActionCodeOperation
    /// The address the code was sent to; for an email change, the new address.
    public let email: String
    /// For an email change (`verifyAndChangeEmail`, `recoverEmail`), the address before the change.
    public let previousEmail: String?

    init(operation: ActionCodeOperation, email: String, newEmail: String?) {
        self.operation = operation
        if let newEmail, !newEmail.isEmpty {
            self.email = newEmail
            previousEmail = email
        } else {
            self.email = email
            previousEmail = nil
        }
    }
}
