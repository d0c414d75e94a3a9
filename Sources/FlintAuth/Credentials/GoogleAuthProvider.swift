import FlintWire
import Foundation

/// The provider ID of Google identities: `"google.com"`.
public let GoogleAuthProviderID = ProviderID.google
/// The sign-in method of Google accounts in `Auth.fetchSignInMethods(forEmail:)` terms.
public let GoogleAuthSignInMethod = ProviderID.google

/// Makes Google Sign-In credentials.
public final class GoogleAuthProvider: NSObject, Sendable {
    /// The provider ID of Google identities: `"google.com"`.
    public static let id = ProviderID.google

    /// A credential of the ID token and access token that Google Sign-In returned
    /// (`GIDGoogleUser.idToken.tokenString` and `accessToken.tokenString`).
    public static func credential(withIDToken idToken: String, accessToken: String) -> OAuthCredential {
        OAuthCredential(provider: ProviderID.google, idToken: idToken, accessToken: accessToken)
    }

    private override init() {}
}
