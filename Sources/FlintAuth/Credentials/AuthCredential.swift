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

    /// Performs the provider's RPC for `operation` and returns the tokens with what the provider
    /// said besides (nil where the caller's default applies). Federated credentials override this.
    func exchange(for operation: CredentialOperation, backend: AuthBackend) async throws -> CredentialExchange {
        CredentialExchange(response: try await signInResponse(for: operation, backend: backend))
    }
}

/// The outcome of presenting a credential: the tokens, and for federated providers the provider's
/// details of the user and the provider credential the server returned.
struct CredentialExchange: Sendable {
    var response: SignInResponse
    var additionalUserInfo: AdditionalUserInfo?
    var credential: OAuthCredential?
}

