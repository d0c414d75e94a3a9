// Request and response bodies of the Identity Toolkit v1 account operations
// (`/v1/accounts:*`, and their v3 `relyingparty/*` aliases). Field names are Firebase's own.

/// `accounts:signUp` (v3 `signupNewUser`): anonymous, email+password, or an upgrade of the user in `idToken`.
/// Privileged callers (the Admin SDKs' `createUser`) may also set the profile and `localId`.
public struct SignUpRequest: Codable, Sendable {
    public var email: String?
    public var password: String?
    public var displayName: String?
    public var photoUrl: String?
    public var idToken: String?
    public var returnSecureToken: Bool?
    public var tenantId: String?
    // Privileged (admin) fields.
    public var localId: String?
    public var emailVerified: Bool?
    public var phoneNumber: String?
    public var disabled: Bool?
    public var targetProjectId: String?
    /// Phone second factors to start with (admin; clients too in emulator mode).
    public var mfaInfo: [MFAEnrollment]?

    public init(email: String? = nil, password: String? = nil, displayName: String? = nil, idToken: String? = nil,
                returnSecureToken: Bool? = true) {
        self.email = email
        self.password = password
        self.displayName = displayName
        self.idToken = idToken
        self.returnSecureToken = returnSecureToken
    }
}

/// Tokens as the sign-in family of operations returns them. `expiresIn` is a string, as SDKs expect.
public struct SignInResponse: Codable, Sendable {
    public var kind: String?
    public var localId: String
    public var email: String?
    public var displayName: String?
    public var idToken: String?
    public var refreshToken: String?
    public var expiresIn: String?
    public var registered: Bool?
    public var isNewUser: Bool?
    /// Set instead of tokens when the user must pass a second factor (`v2/accounts/mfaSignIn:*`).
    public var mfaPendingCredential: String?
    public var mfaInfo: [MFAEnrollment]?

    public init(kind: String? = nil, localId: String, email: String? = nil, displayName: String? = nil,
                idToken: String? = nil, refreshToken: String? = nil, expiresIn: String? = nil,
                registered: Bool? = nil, isNewUser: Bool? = nil) {
        self.kind = kind
        self.localId = localId
        self.email = email
        self.displayName = displayName
        self.idToken = idToken
        self.refreshToken = refreshToken
        self.expiresIn = expiresIn
        self.registered = registered
        self.isNewUser = isNewUser
    }
}

/// `accounts:signInWithPassword` (v3 `verifyPassword`).
public struct SignInWithPasswordRequest: Codable, Sendable {
    public var email: String?
    public var password: String?
    public var returnSecureToken: Bool?
    public var tenantId: String?

    public init(email: String?, password: String?, returnSecureToken: Bool? = true) {
        self.email = email
        self.password = password
        self.returnSecureToken = returnSecureToken
    }
}

/// `accounts:lookup` (v3 `getAccountInfo`): by `idToken`, or by identifiers when privileged.
public struct LookupRequest: Codable, Sendable {
    public var idToken: String?
    public var localId: [String]?
    public var email: [String]?
    public var phoneNumber: [String]?
    /// Admin: users by linked provider account.
    public var federatedUserId: [FederatedUserID]?
    public var targetProjectId: String?
    public var tenantId: String?

    /// A provider account: `{providerId, rawId}`.
    public struct FederatedUserID: Codable, Sendable {
        public var providerId: String
        public var rawId: String

        public init(providerId: String, rawId: String) {
            self.providerId = providerId
            self.rawId = rawId
        }
    }

    public init(idToken: String? = nil, localId: [String]? = nil, email: [String]? = nil, phoneNumber: [String]? = nil) {
        self.idToken = idToken
        self.localId = localId
        self.email = email
        self.phoneNumber = phoneNumber
    }
}

public struct LookupResponse: Codable, Sendable {
    public var kind: String?
    /// Omitted when nothing matched, as Firebase does.
    public var users: [UserRecord]?

    public init(kind: String? = "identitytoolkit#GetAccountInfoResponse", users: [UserRecord]?) {
        self.kind = kind
        self.users = users
    }
}

/// One linked identity of a user (`providerUserInfo[]`).
public struct ProviderUserInfo: Codable, Sendable, Equatable {
    public var providerId: String
    public var rawId: String?
    public var federatedId: String?
    public var email: String?
    public var displayName: String?
    public var photoUrl: String?
    public var phoneNumber: String?
    public var screenName: String?

    public init(providerId: String, rawId: String? = nil, federatedId: String? = nil, email: String? = nil,
                displayName: String? = nil, photoUrl: String? = nil, phoneNumber: String? = nil) {
        self.providerId = providerId
        self.rawId = rawId
        self.federatedId = federatedId
        self.email = email
        self.displayName = displayName
        self.photoUrl = photoUrl
        self.phoneNumber = phoneNumber
    }

    /// An import entry may lack `providerId` (the server then says what is missing): read as "".
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        providerId = try container.decodeIfPresent(String.self, forKey: .providerId) ?? ""
        rawId = try container.decodeIfPresent(String.self, forKey: .rawId)
        federatedId = try container.decodeIfPresent(String.self, forKey: .federatedId)
        email = try container.decodeIfPresent(String.self, forKey: .email)
        displayName = try container.decodeIfPresent(String.self, forKey: .displayName)
        photoUrl = try container.decodeIfPresent(String.self, forKey: .photoUrl)
        phoneNumber = try container.decodeIfPresent(String.self, forKey: .phoneNumber)
        screenName = try container.decodeIfPresent(String.self, forKey: .screenName)
    }
}

/// A user as `accounts:lookup` and `accounts:batchGet` return it.
/// `createdAt` and `lastLoginAt` are epoch milliseconds as strings; `validSince` is epoch seconds as a string.
public struct UserRecord: Codable, Sendable, Equatable {
    public var localId: String
    public var email: String?
    public var emailVerified: Bool?
    public var displayName: String?
    public var photoUrl: String?
    public var phoneNumber: String?
    /// The screen name a linked provider account gave (Twitter's, GitHub's login).
    public var screenName: String?
    public var passwordHash: String?
    public var salt: String?
    public var passwordUpdatedAt: Double?
    public var providerUserInfo: [ProviderUserInfo]?
    public var validSince: String?
    public var disabled: Bool?
    public var lastLoginAt: String?
    public var createdAt: String?
    public var lastRefreshAt: String?
    public var customAttributes: String?
    public var emailLinkSignin: Bool?
    /// The enrolled second factors.
    public var mfaInfo: [MFAEnrollment]?
    /// The enrolled passkeys.
    public var passkeyInfo: [PasskeyInfo]?
    public var tenantId: String?
    /// Import only (`accounts:batchCreate`): a password to hash, for users without a `passwordHash`.
    public var rawPassword: String?

    public init(localId: String) { self.localId = localId }

    /// An import entry may lack `localId` (the server then refuses that entry alone): read as "".
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        localId = try container.decodeIfPresent(String.self, forKey: .localId) ?? ""
        email = try container.decodeIfPresent(String.self, forKey: .email)
        emailVerified = try container.decodeIfPresent(Bool.self, forKey: .emailVerified)
        displayName = try container.decodeIfPresent(String.self, forKey: .displayName)
        photoUrl = try container.decodeIfPresent(String.self, forKey: .photoUrl)
        phoneNumber = try container.decodeIfPresent(String.self, forKey: .phoneNumber)
        screenName = try container.decodeIfPresent(String.self, forKey: .screenName)
        passwordHash = try container.decodeIfPresent(String.self, forKey: .passwordHash)
        salt = try container.decodeIfPresent(String.self, forKey: .salt)
        passwordUpdatedAt = try container.decodeIfPresent(Double.self, forKey: .passwordUpdatedAt)
        providerUserInfo = try container.decodeIfPresent([ProviderUserInfo].self, forKey: .providerUserInfo)
        validSince = try container.decodeIfPresent(String.self, forKey: .validSince)
        disabled = try container.decodeIfPresent(Bool.self, forKey: .disabled)
        lastLoginAt = try container.decodeIfPresent(String.self, forKey: .lastLoginAt)
        createdAt = try container.decodeIfPresent(String.self, forKey: .createdAt)
        lastRefreshAt = try container.decodeIfPresent(String.self, forKey: .lastRefreshAt)
        customAttributes = try container.decodeIfPresent(String.self, forKey: .customAttributes)
        emailLinkSignin = try container.decodeIfPresent(Bool.self, forKey: .emailLinkSignin)
        mfaInfo = try container.decodeIfPresent([MFAEnrollment].self, forKey: .mfaInfo)
        passkeyInfo = try container.decodeIfPresent([PasskeyInfo].self, forKey: .passkeyInfo)
        tenantId = try container.decodeIfPresent(String.self, forKey: .tenantId)
        rawPassword = try container.decodeIfPresent(String.self, forKey: .rawPassword)
    }
}

/// `accounts:update` (v3 `setAccountInfo`).
public struct UpdateAccountRequest: Codable, Sendable {
    public var idToken: String?
    public var localId: String?
    public var email: String?
    public var password: String?
    public var displayName: String?
    public var photoUrl: String?
    public var phoneNumber: String?
    /// `DISPLAY_NAME`, `PHOTO_URL`, `EMAIL`, `PASSWORD`, `PHONE_NUMBER`.
    public var deleteAttribute: [String]?
    /// Provider ids to unlink (`password`, `phone`, `apple.com`, …).
    public var deleteProvider: [String]?
    /// Credential IDs of passkeys to remove.
    public var deletePasskey: [String]?
    public var returnSecureToken: Bool?
    public var tenantId: String?
    /// An action code to apply: `VERIFY_EMAIL`, `VERIFY_AND_CHANGE_EMAIL` or `RECOVER_EMAIL`.
    public var oobCode: String?
    // Privileged (admin) fields.
    public var emailVerified: Bool?
    public var disableUser: Bool?
    public var customAttributes: String?
    /// Epoch seconds (a string on the wire; firebase-admin sends a number).
    public var validSince: LenientString?
    /// Replaces the user's second factors (phone only; `{}` or no enrollments removes them all).
    public var mfa: MFAEnrollments?
    /// Links an account of an identity provider (`apple.com`, `facebook.com`, …) by its `rawId`.
    public var linkProviderUserInfo: ProviderUserInfo?
    public var targetProjectId: String?

    public init(idToken: String? = nil, email: String? = nil, password: String? = nil, displayName: String? = nil,
                photoUrl: String? = nil, deleteAttribute: [String]? = nil, deleteProvider: [String]? = nil,
                returnSecureToken: Bool? = true) {
        self.idToken = idToken
        self.email = email
        self.password = password
        self.displayName = displayName
        self.photoUrl = photoUrl
        self.deleteAttribute = deleteAttribute
        self.deleteProvider = deleteProvider
        self.returnSecureToken = returnSecureToken
    }
}

/// The admin `accounts:update` `mfa` field: the second factors the user should have.
public struct MFAEnrollments: Codable, Sendable, Equatable {
    public var enrollments: [MFAEnrollment]?
    public init(enrollments: [MFAEnrollment]? = nil) { self.enrollments = enrollments }

    /// Absent means none; `null` is not a list and is refused as malformed, as Firebase does.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if container.contains(.enrollments), try container.decodeNil(forKey: .enrollments) {
            throw DecodingError.typeMismatch([Any].self, .init(
                codingPath: container.codingPath + [CodingKeys.enrollments], debugDescription: "enrollments is null"))
        }
        enrollments = try container.decodeIfPresent([MFAEnrollment].self, forKey: .enrollments)
    }
}

public struct UpdateAccountResponse: Codable, Sendable {
    public var kind: String?
    public var localId: String
    public var email: String?
    public var displayName: String?
    public var photoUrl: String?
    public var emailVerified: Bool?
    public var passwordHash: String?
    public var providerUserInfo: [ProviderUserInfo]?
    public var idToken: String?
    public var refreshToken: String?
    public var expiresIn: String?
    /// After applying an action code: the new email (`VERIFY_AND_CHANGE_EMAIL`, `RECOVER_EMAIL`).
    public var newEmail: String?

    public init(localId: String) { self.localId = localId }
}

/// `accounts:delete` (v3 `deleteAccount`).
public struct DeleteAccountRequest: Codable, Sendable {
    public var idToken: String?
    public var localId: String?
    public var targetProjectId: String?
    public var tenantId: String?

    public init(idToken: String? = nil, localId: String? = nil) {
        self.idToken = idToken
        self.localId = localId
    }
}

public struct DeleteAccountResponse: Codable, Sendable {
    public var kind: String?
    public init(kind: String? = "identitytoolkit#DeleteAccountResponse") { self.kind = kind }
}

/// `accounts:createAuthUri` (v3 `createAuthUri`): the sign-in methods of an email.
public struct CreateAuthURIRequest: Codable, Sendable {
    public var identifier: String?
    /// With `providerId`: where the provider sends the browser back (the redirect URI).
    public var continueUri: String?
    /// A provider to start the redirect flow with (`oidc.…`), instead of looking up an `identifier`.
    public var providerId: String?
    /// Scopes beyond `openid email profile`, separated by spaces or commas.
    public var oauthScope: String?
    /// Extra parameters for the provider's authorization request (`prompt`, `login_hint`, …).
    public var customParameter: [String: String]?
    public var tenantId: String?
    /// Echoed back when given.
    public var sessionId: String?
    /// The app the flow returns to, when `continueUri` is its own scheme: an iOS bundle ID, or an Android app's
    /// `<base64 SHA-1 of its certificate>:<package name>`.
    public var appId: String?

    public init(identifier: String?, continueUri: String? = "http://localhost") {
        self.identifier = identifier
        self.continueUri = continueUri
    }
}

public struct CreateAuthURIResponse: Codable, Sendable {
    public var kind: String?
    public var registered: Bool?
    public var allProviders: [String]?
    public var signinMethods: [String]?
    public var sessionId: String?
    /// The redirect flow: where to send the browser, and for which provider.
    public var authUri: String?
    public var providerId: String?

    public init(kind: String? = "identitytoolkit#CreateAuthUriResponse", registered: Bool? = nil,
                allProviders: [String]? = nil, signinMethods: [String]? = nil, sessionId: String? = nil) {
        self.kind = kind
        self.registered = registered
        self.allProviders = allProviders
        self.signinMethods = signinMethods
        self.sessionId = sessionId
    }
}

/// `GET v1/projects` (v3 `getProjectConfig`).
public struct ProjectConfigResponse: Codable, Sendable {
    public var projectId: String
    public var authorizedDomains: [String]

    public init(projectId: String, authorizedDomains: [String]) {
        self.projectId = projectId
        self.authorizedDomains = authorizedDomains
    }
}

/// The admin `accounts:batchGet` page.
public struct BatchGetResponse: Codable, Sendable {
    public var kind: String?
    public var users: [UserRecord]?
    public var nextPageToken: String?

    public init(users: [UserRecord]?, nextPageToken: String?) {
        self.kind = "identitytoolkit#DownloadAccountResponse"
        self.users = users
        self.nextPageToken = nextPageToken
    }
}

/// `accounts:signInWithCustomToken` (v3 `verifyCustomToken`): a token a server signed with a service
/// account's key (an unsigned one in emulator mode). The answer is a `SignInResponse`.
public struct SignInWithCustomTokenRequest: Codable, Sendable {
    public var token: String?
    public var returnSecureToken: Bool?
    public var tenantId: String?

    public init(token: String? = nil, returnSecureToken: Bool? = true) {
        self.token = token
        self.returnSecureToken = returnSecureToken
    }
}
