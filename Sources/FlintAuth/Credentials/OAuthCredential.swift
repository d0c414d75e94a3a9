import FlintWire
import Foundation

/// A credential of an OAuth or OpenID Connect identity provider (Sign in with Apple, Facebook Login, …),
/// for `Auth.signIn(with:)`, `User.link(with:)` and `User.reauthenticate(with:)`.
///
/// Make one with `OAuthProvider.appleCredential(withIDToken:rawNonce:fullName:)`,
/// `OAuthProvider.credential(providerID:idToken:rawNonce:accessToken:)` or
/// `FacebookAuthProvider.credential(withAccessToken:)`. The server also hands one out: in
/// `AuthDataResult.credential`, and under `AuthErrorUserInfoUpdatedCredentialKey` of an
/// `accountExistsWithDifferentCredential` or `credentialAlreadyInUse` error.
public final class OAuthCredential: AuthCredential, @unchecked Sendable {
    // @unchecked Sendable: immutable, as `AuthCredential` requires.
    /// The provider's OpenID Connect ID token.
    public let idToken: String?
    /// The provider's OAuth access token.
    public let accessToken: String?
    /// The OAuth 1.0 token secret.
    public let secret: String?
    /// The unhashed nonce whose SHA-256 the ID token carries (Sign in with Apple, Facebook Limited Login).
    public let rawNonce: String?
    /// A server-issued stand-in for the provider's tokens, from a conflict.
    let pendingToken: String?
    /// Apple's `user` JSON with the name the app got on first sign-in, sent once with the ID token.
    let appleUserJSON: String?
    /// The redirect flow: the flow's session ID, whose SHA-256 the server's page was given, and the page's link (the
    /// URL of the provider's answer).
    let sessionID: String?
    let requestURI: String?

    init(provider: String, idToken: String?, accessToken: String?, secret: String? = nil, rawNonce: String? = nil,
         pendingToken: String? = nil, appleUserJSON: String? = nil, sessionID: String? = nil, requestURI: String? = nil) {
        self.idToken = idToken
        self.accessToken = accessToken
        self.secret = secret
        self.rawNonce = rawNonce
        self.pendingToken = pendingToken
        self.appleUserJSON = appleUserJSON
        self.sessionID = sessionID
        self.requestURI = requestURI
        super.init(provider: provider)
    }

    /// The credential the server returned in `response`, if it returned any provider token.
    static func returned(by response: SignInWithIdpResponse, provider: String) -> OAuthCredential? {
        let idToken = response.oauthIdToken.flatMap { $0.isEmpty ? nil : $0 }
        let accessToken = response.oauthAccessToken.flatMap { $0.isEmpty ? nil : $0 }
        let pendingToken = response.pendingToken.flatMap { $0.isEmpty ? nil : $0 }
        guard idToken != nil || accessToken != nil || pendingToken != nil else { return nil }
        return OAuthCredential(provider: response.providerId ?? provider, idToken: idToken, accessToken: accessToken,
                               pendingToken: pendingToken)
    }

    /// The form-encoded `postBody` of `accounts:signInWithIdp`.
    var postBody: String {
        var fields: [(String, String)] = []
        if let idToken { fields.append(("id_token", idToken)) }
        if let accessToken { fields.append(("access_token", accessToken)) }
        if let secret { fields.append(("oauth_token_secret", secret)) }
        fields.append(("providerId", provider))
        if let rawNonce { fields.append(("nonce", rawNonce)) }
        if let appleUserJSON { fields.append(("user", appleUserJSON)) }
        return fields.map { "\($0.0)=\(Self.formEncoded($0.1))" }.joined(separator: "&")
    }

    private static func formEncoded(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    override func signInResponse(for operation: CredentialOperation, backend: AuthBackend) async throws -> SignInResponse {
        try await exchange(for: operation, backend: backend).response
    }

    /// `accounts:signInWithIdp`; a conflict the server reports in the answer becomes the error
    /// FirebaseAuth throws for it, carrying the updated credential.
    override func exchange(for operation: CredentialOperation, backend: AuthBackend) async throws -> CredentialExchange {
        var request = SignInWithIdpRequest()
        if let pendingToken {
            request.pendingToken = pendingToken
        } else {
            request.postBody = postBody
        }
        if let sessionID, let requestURI {
            // The redirect flow, as FirebaseAuth sends it: the callback's link, the session, `postBody` naming the provider.
            request.sessionId = sessionID
            request.requestUri = requestURI
        }
        switch operation {
        case .signIn: request.autoCreate = true
        case .link(let idToken):
            request.idToken = idToken
            request.autoCreate = true
        case .reauthenticate: request.autoCreate = false
        }
        let response = try await backend.signInWithIdp(request)
        let returned = Self.returned(by: response, provider: provider)

        if response.needConfirmation == true {
            var info: [String: Any] = [:]
            info[AuthErrorUserInfoEmailKey] = response.email
            info[AuthErrorUserInfoUpdatedCredentialKey] = returned
            throw AuthErrorUtils.error(.accountExistsWithDifferentCredential, userInfo: info)
        }
        if let message = response.errorMessage, !message.isEmpty {
            var info: [String: Any] = [:]
            info[AuthErrorUserInfoEmailKey] = response.email
            info[AuthErrorUserInfoUpdatedCredentialKey] = returned
            let code = AuthErrorUtils.serverCodes[String(message.prefix { $0 != ":" })
                .trimmingCharacters(in: .whitespaces)] ?? .internalError
            throw AuthErrorUtils.error(code, userInfo: info)
        }
        guard let token = response.idToken, !token.isEmpty else {
            throw AuthErrorUtils.internalError(response: "accounts:signInWithIdp answered without an ID token")
        }
        guard let localID = response.localId, !localID.isEmpty else {
            throw AuthErrorUtils.internalError(response: "accounts:signInWithIdp answered without a localId")
        }
        let profile = response.rawUserInfo.flatMap { raw -> [String: JSONValue]? in
            guard case .object(let object)? = try? JSONDecoder().decode(JSONValue.self, from: Data(raw.utf8)) else {
                return nil
            }
            return object
        }
        var username: String?
        for key in ["login", "screen_name"] {
            if case .string(let name)? = profile?[key] {
                username = name
                break
            }
        }
        let info = AdditionalUserInfo(providerID: response.providerId ?? provider, isNewUser: response.isNewUser ?? false,
                                      profile: profile, username: username)
        let tokens = SignInResponse(localId: localID, email: response.email, displayName: response.displayName,
                                    idToken: token, refreshToken: response.refreshToken, expiresIn: response.expiresIn,
                                    isNewUser: response.isNewUser)
        return CredentialExchange(response: tokens, additionalUserInfo: info, credential: returned)
    }
}
