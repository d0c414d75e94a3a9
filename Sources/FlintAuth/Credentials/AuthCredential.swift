import FlintWire
import Foundation

/// What a credential is presented for.
enum CredentialOperation: Sendable {
    case signIn
    /// Attach the credential to the user of this ID token.
    case link(idToken: String)
    /// Prove again that the current user holds the credential (the uid is checked by the caller).
    case reauthenticate
}

/// A proof of identity from one provider, for `Auth.signIn(with:)`, `User.link(with:)` and
/// `User.reauthenticate(with:)`. Obtain one from a provider, e.g. `EmailAuthProvider.credential(withEmail:password:)`.
///
/// Each provider's subclass knows which RPC exchanges it for Firebase tokens.
open class AuthCredential: NSObject, @unchecked Sendable {
    // @unchecked Sendable: a non-final class cannot be checked. Credentials are immutable: only
    // `let` properties of Sendable types, in this class and in every subclass.

    /// The provider ID, e.g. `"password"`.
    public let provider: String

    init(provider: String) {
        self.provider = provider
    }

    /// Performs the provider's RPC for `operation` and returns the tokens it grants.
    func signInResponse(for operation: CredentialOperation, backend: AuthBackend) async throws -> SignInResponse {
        throw AuthErrorUtils.error(.invalidCredential, message: "Credentials of provider '\(provider)' are not supported.")
    }
}

/// A credential from an OAuth identity provider, as returned in `AuthDataResult.credential`.
public final class OAuthCredential: AuthCredential, @unchecked Sendable {
    // @unchecked Sendable: immutable, as `AuthCredential` requires.
    /// The provider's OpenID Connect ID token.
    public let idToken: String?
    /// The provider's OAuth access token.
    public let accessToken: String?
    /// The OAuth 1.0 token secret.
    public let secret: String?

    init(provider: String, idToken: String?, accessToken: String?, secret: String?) {
        self.idToken = idToken
        self.accessToken = accessToken
        self.secret = secret
        super.init(provider: provider)
    }
}
