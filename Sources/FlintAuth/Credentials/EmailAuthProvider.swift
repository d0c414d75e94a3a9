import FlintWire
import Foundation

/// The `signinMethods` value of an email/password account (see `Auth.fetchSignInMethods(forEmail:)`).
public let EmailPasswordAuthSignInMethod = ProviderID.password
/// The `signinMethods` value of an email-link account.
public let EmailLinkAuthSignInMethod = ProviderID.emailLinkSignInMethod

/// Makes email/password and email-link credentials.
public final class EmailAuthProvider: NSObject, Sendable {
    /// The provider ID of email identities, with a password or signed in by link: `"password"`.
    public static let id = ProviderID.password

    /// A credential for `Auth.signIn(with:)`, `User.link(with:)` or `User.reauthenticate(with:)`.
    public static func credential(withEmail email: String, password: String) -> AuthCredential {
        EmailAuthCredential(email: email, secret: .password(password))
    }

    /// A credential of an email sign-in link (see `Auth.sendSignInLink(toEmail:actionCodeSettings:)`)
    /// and the address it was sent to, for `Auth.signIn(with:)`, `User.link(with:)` or
    /// `User.reauthenticate(with:)`. `link` may be the emailed link or an app link wrapping it.
    public static func credential(withEmail email: String, link: String) -> AuthCredential {
        EmailAuthCredential(email: email, secret: .link(link))
    }

    private override init() {}
}

/// An email with its password or a sign-in link: a password signs in with `accounts:signInWithPassword`
/// and links with `accounts:signUp`; a link does both with `accounts:signInWithEmailLink`.
public final class EmailAuthCredential: AuthCredential, @unchecked Sendable {
    // @unchecked Sendable: immutable, as `AuthCredential` requires.
    enum Secret: Sendable, Equatable {
        case password(String)
        case link(String)
    }

    /// The email address.
    public let email: String
    let secret: Secret

    init(email: String, secret: Secret) {
        self.email = email
        self.secret = secret
        super.init(provider: EmailAuthProvider.id)
    }

    override func signInResponse(for operation: CredentialOperation, backend: AuthBackend) async throws -> SignInResponse {
        switch secret {
        case .password(let password):
            switch operation {
            case .signIn, .reauthenticate:
                return try await backend.signIn(email: email, password: password)
            case .link(let idToken):
                return try await backend.signUp(SignUpRequest(email: email, password: password, idToken: idToken))
            }
        case .link(let link):
            let code = try Self.signInCode(of: link)
            switch operation {
            case .signIn, .reauthenticate:
                return try await backend.signInWithEmailLink(email: email, oobCode: code, idToken: nil)
            case .link(let idToken):
                return try await backend.signInWithEmailLink(email: email, oobCode: code, idToken: idToken)
            }
        }
    }

    /// The action code of a sign-in link. FirebaseAuth traps on a link that is not one; FlintAuth
    /// throws `invalidActionCode`.
    static func signInCode(of link: String) throws -> String {
        guard let code = EmailActionLink.signInCode(of: link) else {
            throw AuthErrorUtils.error(.invalidActionCode,
                                       message: "The link is not an email sign-in link (mode=signIn with an oobCode).")
        }
        return code
    }
}
