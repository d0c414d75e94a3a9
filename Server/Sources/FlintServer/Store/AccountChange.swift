/// What a write does to one account, field by field: the columns it sets, the identities it links or
/// unlinks, whether it ends the account's sessions. Nothing else of the row is touched, so two writes
/// that change different fields never undo each other (see `Store.modifyUser`).
public struct AccountChange: Sendable, Equatable {
    public enum Edit: Sendable, Equatable {
        case email(String?)
        case emailVerified(Bool)
        case displayName(String?)
        case photoURL(String?)
        case phoneNumber(String?)
        /// A new password credential, or nil to remove it.
        case password(StoredPassword?)
        case disabled(Bool)
        case customAttributes(String?)
        /// The wire's `validSince`, in epoch seconds.
        case validSince(Int64)
        /// Ends every session issued so far (see `UserAccount.sessionEpoch`).
        case revokeSessions
        /// A sign-in at this time (ms): `lastLoginAt` and `lastRefreshAt`, as Firebase records every sign-in.
        case signedIn(at: Int64)
        case emailLinkSignin(Bool)
        /// The whole list of second factors (decided from the list as stored now, under the row lock).
        case secondFactors([SecondFactor])
        /// The whole list of passkeys (decided from the list as stored now, under the row lock).
        case passkeys([Passkey])
        /// Links an identity no account has yet.
        case link(FederatedIdentity)
        /// Updates the stored profile of an identity the account already has.
        case refreshIdentity(FederatedIdentity)
        case unlink(providerID: String)
    }

    public private(set) var edits: [Edit]

    public init(_ edits: [Edit] = []) { self.edits = edits }

    public mutating func add(_ edit: Edit) { edits.append(edit) }

    public mutating func add(_ other: AccountChange) { edits += other.edits }

    /// Ends every session issued so far and tells the wire so (`validSince` = `seconds`).
    public mutating func revokeSessions(at seconds: Int64) {
        edits += [.validSince(seconds), .revokeSessions]
    }

    /// Whether the change ends the account's sessions.
    public var revokesSessions: Bool { edits.contains(.revokeSessions) }

    /// `user` as the store holds it once the change is applied. However many edits revoke sessions, the
    /// epoch moves once, as `Store.modifyUser` moves it.
    public func applied(to user: UserAccount) -> UserAccount {
        var user = user
        if revokesSessions { user.sessionEpoch += 1 }
        for edit in edits {
            switch edit {
            case .email(let value): user.email = value
            case .emailVerified(let value): user.emailVerified = value
            case .displayName(let value): user.displayName = value
            case .photoURL(let value): user.photoURL = value
            case .phoneNumber(let value): user.phoneNumber = value
            case .password(let password): user.password = password
            case .disabled(let value): user.disabled = value
            case .customAttributes(let value): user.customAttributes = value
            case .validSince(let value): user.validSince = value
            case .revokeSessions: break
            case .signedIn(let time): (user.lastLoginAt, user.lastRefreshAt) = (time, time)
            case .emailLinkSignin(let value): user.emailLinkSignin = value
            case .secondFactors(let factors): user.mfaFactors = factors
            case .passkeys(let passkeys): user.passkeys = passkeys
            case .link(let identity): user.identities.append(identity)
            case .refreshIdentity(let identity):
                if let index = user.identities.firstIndex(where: {
                    $0.providerID == identity.providerID && $0.rawID == identity.rawID
                }) { user.identities[index] = identity }
            case .unlink(let providerID): user.identities.removeAll { $0.providerID == providerID }
            }
        }
        return user
    }
}

/// A password credential as stored: the hash, its salt, when it was set, and how an imported hash was made.
public struct StoredPassword: Sendable, Equatable {
    /// Base64 of the hash.
    public var hash: String
    /// Base64 of the salt.
    public var salt: String
    /// Epoch milliseconds.
    public var updatedAt: Int64
    /// Set for an imported hash made another way than the project's own scrypt.
    public var imported: ImportedPasswordHash?

    public init(hash: String, salt: String, updatedAt: Int64, imported: ImportedPasswordHash? = nil) {
        self.hash = hash
        self.salt = salt
        self.updatedAt = updatedAt
        self.imported = imported
    }
}

extension UserAccount {
    /// The password credential, read or written as one piece.
    public var password: StoredPassword? {
        get {
            guard let passwordHash, let passwordSalt else { return nil }
            return StoredPassword(hash: passwordHash, salt: passwordSalt, updatedAt: passwordUpdatedAt ?? 0,
                                  imported: importedPasswordHash)
        }
        set {
            passwordHash = newValue?.hash
            passwordSalt = newValue?.salt
            passwordUpdatedAt = newValue?.updatedAt
            importedPasswordHash = newValue?.imported
        }
    }
}
