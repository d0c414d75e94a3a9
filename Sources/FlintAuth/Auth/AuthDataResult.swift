import FlintWire
import Foundation

/// The outcome of a sign-in, link or reauthentication.
public final class AuthDataResult: NSObject, Sendable {
    /// The signed-in user.
    public let user: User
    /// Provider details of this sign-in; nil for links of email and phone credentials.
    public let additionalUserInfo: AdditionalUserInfo?
    /// The identity provider's own credential, for OAuth sign-ins that return one.
    public let credential: OAuthCredential?

    init(user: User, additionalUserInfo: AdditionalUserInfo?, credential: OAuthCredential? = nil) {
        self.user = user
        self.additionalUserInfo = additionalUserInfo
        self.credential = credential
    }
}

/// Details of one sign-in from the identity provider.
public final class AdditionalUserInfo: NSObject, Sendable {
    /// The provider of the sign-in: `"password"`, `"phone"`, an IdP ID; `""` for anonymous sign-in.
    public let providerID: String
    /// Whether this sign-in created the user.
    public let isNewUser: Bool
    /// The IdP's user name, if it has one.
    public let username: String?
    private let rawProfile: [String: JSONValue]?

    /// The IdP's profile of the user (`rawUserInfo`), if it sent one.
    public var profile: [String: Any]? { rawProfile?.mapValues(\.anyValue) }

    init(providerID: String, isNewUser: Bool, profile: [String: JSONValue]? = nil, username: String? = nil) {
        self.providerID = providerID
        self.isNewUser = isNewUser
        self.rawProfile = profile
        self.username = username
    }
}
