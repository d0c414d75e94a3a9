import FlintWire
import Foundation

/// The `signinMethods` value of an email/password account (see `Auth.fetchSignInMethods(forEmail:)`).
public let EmailPasswordAuthSignInMethod = ProviderID.password
/// The `signinMethods` value of an email-link account.
public let EmailLinkAuthSignInMethod = ProviderID.emailLinkSignInMethod

/// Makes email/password credentials.
public final class EmailAuthProvider: NSObject, Sendable {
    /// The provider ID of email/password identities: `"password"`.
    public static let id = ProviderID.password

    /// A credential for `Auth.signIn(with:)`, `User.link(with:)` or `User.reauthenticate(with:)`.
    public static func credential(withEmail email: String, password: String) -> AuthCredential {
        EmailAuthCredential(email: email, password: password)
    }

    private override init() {}
}

/// An email and password: signs in with `accounts:signInWithPassword`, links with `accounts:signUp`.
final class EmailAuthCredential: AuthCredential, @unchecked Sendable {
    // @unchecked Sendable: immutable, as `AuthCredential` requires.
    let email: String
    let password: String

    init(email: String, password: String) {
        self.email = email
        self.password = password
        super.init(provider: EmailAuthProvider.id)
    }

    override func signInResponse(for operation: CredentialOperation, backend: AuthBackend) async throws -> SignInResponse {
        switch operation {
        case .signIn, .reauthenticate:
            try await backend.signIn(email: email, password: password)
        case .link(let idToken):
            try await backend.signUp(SignUpRequest(email: email, password: password, idToken: idToken))
        }
    }
}
