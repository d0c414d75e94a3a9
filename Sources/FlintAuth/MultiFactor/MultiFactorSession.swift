import Foundation

/// Identifies a multi-factor flow: enrolling a second factor (from `MultiFactor.session()`) or signing in
/// with one (`MultiFactorResolver.session`). Opaque; pass it to
/// `PhoneAuthProvider.verifyPhoneNumber(_:uiDelegate:multiFactorSession:)`,
/// `PhoneAuthProvider.verifyPhoneNumber(with:uiDelegate:multiFactorSession:)` or
/// `TOTPMultiFactorGenerator.generateSecret(with:)`.
public final class MultiFactorSession: NSObject, Sendable {
    enum Kind: Sendable {
        /// Enrollment for `user`, proven by its ID token.
        case enrollment(idToken: String, user: User)
        /// Second-factor sign-in to `auth` after a first factor, proven by the server's pending credential.
        case signIn(pendingCredential: String, auth: Auth)
    }

    let kind: Kind

    init(kind: Kind) {
        self.kind = kind
    }

    /// The `Auth` the flow belongs to.
    var auth: Auth {
        switch kind {
        case .enrollment(_, let user): user.auth
        case .signIn(_, let auth): auth
        }
    }

    /// The ID token and user of an enrollment session; `invalidMultiFactorSession` for a sign-in session.
    func enrollment() throws -> (idToken: String, user: User) {
        guard case .enrollment(let idToken, let user) = kind else {
            throw AuthErrorUtils.error(.invalidMultiFactorSession,
                                       message: "The session is a sign-in session (MultiFactorResolver.session); enrolling needs one from MultiFactor.session().")
        }
        return (idToken, user)
    }

    /// The pending credential of a sign-in session; `invalidMultiFactorSession` for an enrollment session.
    func pendingCredential() throws -> String {
        guard case .signIn(let pendingCredential, _) = kind else {
            throw AuthErrorUtils.error(.invalidMultiFactorSession,
                                       message: "The session is an enrollment session; signing in needs MultiFactorResolver.session.")
        }
        return pendingCredential
    }
}
