import FlintWire
import Foundation

/// The fields of a user to create; unset ones are left out (the server makes the uid when `uid` is nil).
public struct NewUser: Sendable {
    public var uid: String?
    public var email: String?
    public var emailVerified: Bool?
    public var phoneNumber: String?
    public var password: String?
    public var displayName: String?
    public var photoURL: String?
    public var disabled: Bool?

    public init(uid: String? = nil, email: String? = nil, emailVerified: Bool? = nil, phoneNumber: String? = nil,
                password: String? = nil, displayName: String? = nil, photoURL: String? = nil, disabled: Bool? = nil) {
        self.uid = uid
        self.email = email
        self.emailVerified = emailVerified
        self.phoneNumber = phoneNumber
        self.password = password
        self.displayName = displayName
        self.photoURL = photoURL
        self.disabled = disabled
    }

    /// The request, once the fields pass firebase-admin's checks.
    func wire() throws -> SignUpRequest {
        try Check.profile(uid: uid, email: email, phoneNumber: phoneNumber, password: password, displayName: displayName,
                          photoURL: photoURL)
        var request = SignUpRequest(email: email, password: password, displayName: displayName, returnSecureToken: nil)
        request.localId = uid
        request.emailVerified = emailVerified
        request.phoneNumber = phoneNumber
        request.photoUrl = photoURL
        request.disabled = disabled
        return request
    }
}

/// A field an update sets to a value or removes (firebase-admin's `None`).
public enum FieldChange<Value: Sendable>: Sendable {
    case set(Value)
    case remove
}

extension FieldChange {
    /// The value the change sets; nil for a removal.
    var value: Value? { if case .set(let value) = self { value } else { nil } }
}

/// What `updateUser` changes; nil fields are left as they are.
public struct UserUpdate: Sendable {
    public var email: String?
    /// Removing the number unlinks the `phone` provider, as firebase-admin does.
    public var phoneNumber: FieldChange<String>?
    public var displayName: FieldChange<String>?
    public var photoURL: FieldChange<String>?
    public var password: String?
    public var emailVerified: Bool?
    public var disabled: Bool?
    /// Removing them leaves the user's tokens with no custom claims.
    public var customClaims: FieldChange<[String: JSONValue]>?
    /// Provider ids to unlink (`google.com`, `password`, …).
    public var providersToUnlink: [String] = []

    public init(email: String? = nil, phoneNumber: FieldChange<String>? = nil, displayName: FieldChange<String>? = nil,
                photoURL: FieldChange<String>? = nil, password: String? = nil, emailVerified: Bool? = nil,
                disabled: Bool? = nil, customClaims: FieldChange<[String: JSONValue]>? = nil, providersToUnlink: [String] = []) {
        self.email = email
        self.phoneNumber = phoneNumber
        self.displayName = displayName
        self.photoURL = photoURL
        self.password = password
        self.emailVerified = emailVerified
        self.disabled = disabled
        self.customClaims = customClaims
        self.providersToUnlink = providersToUnlink
    }

    /// The request, once the uid and the fields pass firebase-admin's checks.
    func wire(uid: String) throws -> UpdateAccountRequest {
        try Check.profile(uid: uid, email: email, phoneNumber: phoneNumber?.value, password: password,
                          displayName: displayName?.value, photoURL: photoURL?.value)
        guard !providersToUnlink.contains(where: \.isEmpty) else {
            throw AdminError(.invalidArgument, "the providers to unlink are provider IDs, none empty")
        }
        if case .remove = phoneNumber, providersToUnlink.contains("phone") {
            throw AdminError(.invalidArgument, "the phone provider is unlinked by removing the number, or by naming it, not both")
        }
        var request = UpdateAccountRequest(email: email, password: password, returnSecureToken: nil)
        request.localId = uid
        request.emailVerified = emailVerified
        request.disableUser = disabled
        var deleteAttributes: [String] = []
        var deleteProviders = providersToUnlink
        switch displayName {
        case .set(let name): request.displayName = name
        case .remove: deleteAttributes.append("DISPLAY_NAME")
        case nil: break
        }
        switch photoURL {
        case .set(let url): request.photoUrl = url
        case .remove: deleteAttributes.append("PHOTO_URL")
        case nil: break
        }
        switch phoneNumber {
        case .set(let number): request.phoneNumber = number
        case .remove: deleteProviders.append("phone")
        case nil: break
        }
        switch customClaims {
        case .set(let claims): request.customAttributes = try CustomClaims.encode(claims)
        case .remove: request.customAttributes = "{}"
        case nil: break
        }
        request.deleteAttribute = deleteAttributes.isEmpty ? nil : deleteAttributes
        request.deleteProvider = deleteProviders.isEmpty ? nil : deleteProviders
        return request
    }
}

/// Custom claims as the server takes them: one JSON object as a string, at most 1,000 characters, no reserved names.
enum CustomClaims {
    static let maximumLength = 1000

    static func encode(_ claims: [String: JSONValue]) throws -> String {
        try checkNames(claims)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let text = String(decoding: try encoder.encode(JSONValue.object(claims)), as: UTF8.self)
        guard text.count <= maximumLength else {
            throw AdminError(.claimsTooLarge, "custom claims may take at most \(maximumLength) characters as JSON")
        }
        return text
    }

    /// No reserved name (`sub`, `firebase`, …) among `claims`; `code` is what firebase-admin throws for one.
    static func checkNames(_ claims: [String: JSONValue], code: AdminError.Code = .forbiddenClaim) throws {
        if let reserved = claims.keys.sorted().first(where: IDTokenClaims.reservedNames.contains) {
            throw AdminError(code, "\(reserved) is a reserved claim and cannot be a custom one")
        }
    }
}
