import FlintWire
import Foundation

/// Profile data of a user at one identity provider (or, for `User`, of the Firebase user itself).
public protocol UserInfo: NSObjectProtocol, Sendable {
    /// The provider, e.g. `password`, `phone`, `apple.com`; `Firebase` for a `User`.
    var providerID: String { get }
    /// The user's ID at that provider (the `federatedId`); the Firebase uid for a `User`.
    var uid: String { get }
    var displayName: String? { get }
    var photoURL: URL? { get }
    var email: String? { get }
    var phoneNumber: String? { get }
}

/// One entry of `User.providerData`.
final class UserInfoImpl: NSObject, UserInfo {
    let providerID: String
    let uid: String
    let displayName: String?
    let photoURL: URL?
    let email: String?
    let phoneNumber: String?

    /// As FirebaseAuth does, `uid` is the `federatedId`, or empty when the server sent none.
    init(_ info: ProviderUserInfo) {
        providerID = info.providerId
        uid = info.federatedId ?? ""
        displayName = info.displayName
        photoURL = info.photoUrl.flatMap { URL(string: $0) }
        email = info.email
        phoneNumber = info.phoneNumber
    }
}

/// When a user was created and last signed in, as the server reports it.
public final class UserMetadata: NSObject, Sendable {
    /// The last sign-in (`lastLoginAt`).
    public let lastSignInDate: Date?
    /// The account's creation (`createdAt`).
    public let creationDate: Date?

    init(lastSignInDate: Date?, creationDate: Date?) {
        self.lastSignInDate = lastSignInDate
        self.creationDate = creationDate
    }
}
