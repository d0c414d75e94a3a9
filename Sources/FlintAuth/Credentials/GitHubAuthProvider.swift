import Foundation

/// Makes GitHub credentials from an OAuth access token the app obtained from GitHub.
public final class GitHubAuthProvider: NSObject, Sendable {
    /// The provider ID of GitHub identities: `"github.com"`.
    public static let id = AuthProviderID.gitHub.rawValue

    /// A credential of a GitHub OAuth access token.
    public static func credential(withToken token: String) -> OAuthCredential {
        OAuthCredential(provider: id, idToken: nil, accessToken: token)
    }

    private override init() {}
}
