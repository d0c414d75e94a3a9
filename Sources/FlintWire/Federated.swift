// Request and response bodies of federated sign-in (`accounts:signInWithIdp`, v3 `verifyAssertion`) and
// Apple token revocation (v2 `accounts:revokeToken`). Field names are Firebase's own.

/// `accounts:signInWithIdp`: the provider's credential travels form-encoded in `postBody`
/// (`id_token=…&providerId=apple.com&nonce=…`, or `access_token=…&providerId=facebook.com`).
public struct SignInWithIdpRequest: Codable, Sendable {
    public var requestUri: String?
    public var postBody: String?
    public var sessionId: String?
    public var returnSecureToken: Bool?
    public var returnIdpCredential: Bool?
    public var returnRefreshToken: Bool?
    /// Link the provider to this user.
    public var idToken: String?
    /// A credential the server handed out earlier (a conflict), instead of `postBody`.
    public var pendingToken: String?
    /// False for re-authentication: never create a user.
    public var autoCreate: Bool?
    public var tenantId: String?

    public init(requestUri: String? = "http://localhost", postBody: String? = nil, returnSecureToken: Bool? = true,
                returnIdpCredential: Bool? = true, idToken: String? = nil, pendingToken: String? = nil, autoCreate: Bool? = nil) {
        self.requestUri = requestUri
        self.postBody = postBody
        self.returnSecureToken = returnSecureToken
        self.returnIdpCredential = returnIdpCredential
        self.idToken = idToken
        self.pendingToken = pendingToken
        self.autoCreate = autoCreate
    }
}

/// The answer: tokens and the provider's profile, or (with `returnIdpCredential`) a conflict report
/// (`needConfirmation`, `errorMessage`) carrying what the SDK needs to build an updated credential.
public struct SignInWithIdpResponse: Codable, Sendable {
    public var kind: String?
    public var federatedId: String?
    public var providerId: String?
    public var localId: String?
    public var email: String?
    public var emailVerified: Bool?
    public var firstName: String?
    public var lastName: String?
    public var fullName: String?
    public var displayName: String?
    public var photoUrl: String?
    /// The provider's profile, as a JSON string.
    public var rawUserInfo: String?
    public var isNewUser: Bool?
    public var idToken: String?
    public var refreshToken: String?
    public var expiresIn: String?
    public var oauthIdToken: String?
    public var oauthAccessToken: String?
    public var needConfirmation: Bool?
    /// With `needConfirmation`: the providers of the existing account the user can sign in with instead.
    public var verifiedProvider: [String]?
    public var errorMessage: String?
    public var pendingToken: String?
    /// Set instead of tokens when the user must pass a second factor (`v2/accounts/mfaSignIn:*`).
    public var mfaPendingCredential: String?
    public var mfaInfo: [MFAEnrollment]?
    /// The tenant the sign-in happened in.
    public var tenantId: String?

    public init(kind: String? = "identitytoolkit#VerifyAssertionResponse") { self.kind = kind }
}

/// v2 `accounts:revokeToken`: revoke the user's Apple tokens with an authorization code.
public struct RevokeTokenRequest: Codable, Sendable {
    public var providerId: String?
    /// `CODE` (an authorization code), `REFRESH_TOKEN` or `ACCESS_TOKEN`. The iOS SDK sends the enum's
    /// number instead (`"3"` for `CODE`, sometimes as a JSON number).
    public var tokenType: LenientString?
    public var token: String?
    public var idToken: String?
    public var redirectUri: String?
    public var tenantId: String?

    public init(providerId: String? = "apple.com", tokenType: LenientString? = "CODE", token: String? = nil, idToken: String? = nil) {
        self.providerId = providerId
        self.tokenType = tokenType
        self.token = token
        self.idToken = idToken
    }
}
