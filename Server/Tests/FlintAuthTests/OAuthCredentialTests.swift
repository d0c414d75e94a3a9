@testable import FlintAuth
import Foundation
import Testing

/// Sign in with Apple and Facebook Login credentials against a scripted backend.
@Suite struct OAuthCredentialTests {
    /// A backend that answers `signInWithIdp` with `idp` (or as user `uid-apple`), `lookup` as that
    /// user, `signUp` as anonymous user `uid-anon`, and `revokeToken` with `{}`.
    static func client(idp: (@Sendable (FakeHTTPClient.Sent) -> FakeHTTPClient.Reply)? = nil) -> FakeHTTPClient {
        FakeHTTPClient { sent in
            switch sent.rpc {
            case "accounts:signInWithIdp":
                if let idp { return idp(sent) }
                return .ok(["localId": "uid-apple", "idToken": "id-token", "refreshToken": "refresh-token",
                            "expiresIn": "3600", "providerId": "apple.com", "isNewUser": true,
                            "federatedId": "apple-sub", "email": "a@privaterelay.appleid.com",
                            "rawUserInfo": #"{"sub":"apple-sub","email":"a@privaterelay.appleid.com","login":"octo"}"#,
                            "oauthIdToken": "apple-id-token"])
            case "accounts:signUp":
                return .ok(["localId": "uid-anon", "idToken": "anon-id-token", "refreshToken": "anon-refresh",
                            "expiresIn": "3600"])
            case "accounts:lookup":
                let anonymous = sent.string("idToken") == "anon-id-token"
                return .ok(["users": [["localId": anonymous ? "uid-anon" : "uid-apple",
                                       "providerUserInfo": anonymous ? [] : [["providerId": "apple.com", "rawId": "apple-sub"]]]]])
            case "accounts:revokeToken":
                return .ok([:])
            default:
                return .error("UNEXPECTED_RPC : \(sent.rpc)", status: 404)
            }
        }
    }

    /// The `postBody` of the one `signInWithIdp` request, as form fields.
    static func postBody(_ client: FakeHTTPClient, index: Int = 0) throws -> [String: String] {
        let body = try #require(client.requests("accounts:signInWithIdp")[index].string("postBody"))
        var fields: [String: String] = [:]
        for item in URLComponents(string: "?" + body)?.queryItems ?? [] {
            fields[item.name] = item.value
        }
        return fields
    }

    /// Every tenant-scoped request names the `Auth`'s tenant (set in one place, the backend's `post`).
    @Test func requestsCarryTheTenant() async throws {
        let client = Self.client()
        try await withFakeAuth(client: client) { auth in
            auth.tenantID = "tenant-1"
            let result = try await auth.signIn(with: OAuthProvider.appleCredential(withIDToken: "jwt", rawNonce: "n", fullName: nil))
            #expect(result.user.uid == "uid-apple")
            #expect(client.requests.allSatisfy { $0.rpc == "recaptchaConfig" || $0.string("tenantId") == "tenant-1" },
                    "\(client.requests.map { ($0.rpc, $0.string("tenantId") ?? "-") })")
            #expect(client.requests("accounts:signInWithIdp").count == 1)
        }
    }

    @Test func appleSignInSendsTokenNonceAndName() async throws {
        let client = Self.client()
        try await withFakeAuth(client: client) { auth in
            var name = PersonNameComponents()
            name.givenName = "Ada"
            name.familyName = "Lovelace"
            let credential = OAuthProvider.appleCredential(withIDToken: "apple.jwt+/=", rawNonce: "raw-nonce", fullName: name)
            #expect(credential.provider == "apple.com")
            #expect(credential.idToken == "apple.jwt+/=")
            #expect(credential.rawNonce == "raw-nonce")

            let result = try await auth.signIn(with: credential)
            #expect(result.user.uid == "uid-apple")
            #expect(auth.currentUser === result.user)
            #expect(result.additionalUserInfo?.providerID == "apple.com")
            #expect(result.additionalUserInfo?.isNewUser == true)
            #expect(result.additionalUserInfo?.profile?["sub"] as? String == "apple-sub")
            #expect(result.additionalUserInfo?.username == "octo")
            #expect(result.credential?.idToken == "apple-id-token")
            #expect(result.credential?.provider == "apple.com")

            let sent = try #require(client.requests("accounts:signInWithIdp").first)
            #expect(sent.url.path.hasSuffix("/v1/accounts:signInWithIdp"))
            #expect(sent.string("requestUri") == "http://localhost")
            #expect(sent.body["returnSecureToken"] as? Bool == true)
            #expect(sent.body["returnIdpCredential"] as? Bool == true)
            #expect(sent.body["idToken"] == nil)
            #expect(sent.body["autoCreate"] as? Bool == true)
            let fields = try Self.postBody(client)
            #expect(fields["id_token"] == "apple.jwt+/=")
            #expect(fields["providerId"] == "apple.com")
            #expect(fields["nonce"] == "raw-nonce")
            #expect(fields["access_token"] == nil)
            let user = try #require(fields["user"])
            let json = try #require(try JSONSerialization.jsonObject(with: Data(user.utf8)) as? [String: [String: String]])
            #expect(json["name"] == ["firstName": "Ada", "lastName": "Lovelace"])
        }
    }

    @Test func appleWithoutNameSendsNoUser() async throws {
        let client = Self.client()
        try await withFakeAuth(client: client) { auth in
            try await auth.signIn(with: OAuthProvider.appleCredential(withIDToken: "t", rawNonce: "n", fullName: nil))
            try await auth.signIn(with: OAuthProvider.appleCredential(withIDToken: "t", rawNonce: "n",
                                                                    fullName: PersonNameComponents()))
            #expect(try Self.postBody(client, index: 0)["user"] == nil)
            #expect(try Self.postBody(client, index: 1)["user"] == nil)
        }
    }

    @Test func facebookClassicAndLimitedLogin() async throws {
        let client = Self.client(idp: { _ in
            .ok(["localId": "uid-apple", "idToken": "id-token", "refreshToken": "r", "expiresIn": "3600",
                 "providerId": "facebook.com", "isNewUser": false])
        })
        try await withFakeAuth(client: client) { auth in
            let classic = FacebookAuthProvider.credential(withAccessToken: "fb-access")
            #expect(classic.provider == FacebookAuthProviderID)
            let result = try await auth.signIn(with: classic)
            #expect(result.additionalUserInfo?.providerID == "facebook.com")
            #expect(result.additionalUserInfo?.isNewUser == false)
            #expect(result.credential == nil)
            let first = try Self.postBody(client, index: 0)
            #expect(first == ["access_token": "fb-access", "providerId": "facebook.com"])

            let limited = OAuthProvider.credential(providerID: .facebook, idToken: "fb-oidc", rawNonce: "fb-nonce")
            try await auth.signIn(with: limited)
            let second = try Self.postBody(client, index: 1)
            #expect(second == ["id_token": "fb-oidc", "providerId": "facebook.com", "nonce": "fb-nonce"])

            try await auth.signIn(with: OAuthProvider.credential(providerID: .facebook, accessToken: "fb-2"))
            #expect(try Self.postBody(client, index: 2) == ["access_token": "fb-2", "providerId": "facebook.com"])
        }
    }

    @Test func linkSendsTheUsersIDToken() async throws {
        let client = Self.client()
        try await withFakeAuth(client: client) { auth in
            let user = try await auth.signInAnonymously().user
            let result = try await user.link(with: OAuthProvider.appleCredential(withIDToken: "t", rawNonce: "n", fullName: nil))
            let sent = try #require(client.requests("accounts:signInWithIdp").first)
            #expect(sent.string("idToken") == "anon-id-token")
            #expect(result.additionalUserInfo?.providerID == "apple.com")
            #expect(result.credential?.idToken == "apple-id-token")
            #expect(!user.isAnonymous)
        }
    }

    @Test func reauthenticateSendsAutoCreateFalseAndChecksTheUID() async throws {
        let client = Self.client()
        try await withFakeAuth(client: client) { auth in
            let credential = OAuthProvider.appleCredential(withIDToken: "t", rawNonce: "n", fullName: nil)
            let user = try await auth.signIn(with: credential).user
            let again = try await user.reauthenticate(with: credential)
            #expect(again.user === user)
            let sent = try #require(client.requests("accounts:signInWithIdp").last)
            #expect(sent.body["autoCreate"] as? Bool == false)
            #expect(sent.body["idToken"] == nil)

        }
        // Another user's credential.
        let other = Self.client()
        try await withFakeAuth(client: other) { auth in
            let user = try await auth.signInAnonymously().user
            await expectAuthError(.userMismatch) {
                try await user.reauthenticate(with: OAuthProvider.appleCredential(withIDToken: "t", rawNonce: "n", fullName: nil))
            }
            #expect(auth.currentUser === user)
        }
    }

    @Test func needConfirmationIsAccountExistsWithDifferentCredential() async throws {
        let client = Self.client(idp: { _ in
            .ok(["needConfirmation": true, "email": "ada@example.com", "providerId": "facebook.com",
                 "oauthAccessToken": "fb-returned", "localId": "uid-other"])
        })
        try await withFakeAuth(client: client) { auth in
            let error = await expectAuthError(.accountExistsWithDifferentCredential) {
                try await auth.signIn(with: FacebookAuthProvider.credential(withAccessToken: "fb"))
            }
            #expect(error?.userInfo[AuthErrorUserInfoEmailKey] as? String == "ada@example.com")
            let updated = try #require(error?.userInfo[AuthErrorUserInfoUpdatedCredentialKey] as? OAuthCredential)
            #expect(updated.provider == "facebook.com")
            #expect(updated.accessToken == "fb-returned")
            #expect(auth.currentUser == nil)
        }
    }

    @Test func alreadyLinkedIsCredentialAlreadyInUseWithAPendingToken() async throws {
        let client = Self.client(idp: { sent in
            if sent.string("pendingToken") == "pending-1" {
                return .ok(["localId": "uid-apple", "idToken": "id-token", "refreshToken": "r", "expiresIn": "3600",
                            "providerId": "apple.com"])
            }
            return .ok(["errorMessage": "FEDERATED_USER_ID_ALREADY_LINKED", "providerId": "apple.com",
                        "oauthIdToken": "apple-returned", "pendingToken": "pending-1", "email": "a@example.com"])
        })
        try await withFakeAuth(client: client) { auth in
            let user = try await auth.signInAnonymously().user
            let error = await expectAuthError(.credentialAlreadyInUse) {
                try await user.link(with: OAuthProvider.appleCredential(withIDToken: "t", rawNonce: "n", fullName: nil))
            }
            #expect(error?.userInfo[AuthErrorUserInfoEmailKey] as? String == "a@example.com")
            let updated = try #require(error?.userInfo[AuthErrorUserInfoUpdatedCredentialKey] as? OAuthCredential)
            #expect(updated.provider == "apple.com")
            #expect(updated.idToken == "apple-returned")
            #expect(user.isAnonymous)

            // The updated credential signs in as the account that holds the identity.
            let result = try await auth.signIn(with: updated)
            #expect(result.user.uid == "uid-apple")
            let sent = try #require(client.requests("accounts:signInWithIdp").last)
            #expect(sent.string("pendingToken") == "pending-1")
            #expect(sent.body["postBody"] == nil)
        }
    }

    @Test func serverErrorsOfFederatedSignIn() async throws {
        for (message, code) in [("MISSING_OR_INVALID_NONCE", AuthErrorCode.missingOrInvalidNonce),
                                ("INVALID_IDP_RESPONSE : bad token", .invalidCredential),
                                ("FEDERATED_USER_ID_ALREADY_LINKED", .credentialAlreadyInUse),
                                ("EMAIL_EXISTS", .emailAlreadyInUse)] {
            let client = Self.client(idp: { _ in .error(message) })
            try await withFakeAuth(client: client) { auth in
                await expectAuthError(code) {
                    try await auth.signIn(with: OAuthProvider.appleCredential(withIDToken: "t", rawNonce: nil, fullName: nil))
                }
            }
        }
        let client = Self.client(idp: { _ in .ok(["errorMessage": "EMAIL_EXISTS", "email": "e@example.com"]) })
        try await withFakeAuth(client: client) { auth in
            let error = await expectAuthError(.emailAlreadyInUse) {
                try await auth.signIn(with: FacebookAuthProvider.credential(withAccessToken: "fb"))
            }
            #expect(error?.userInfo[AuthErrorUserInfoEmailKey] as? String == "e@example.com")
        }
    }

    @Test func revokeTokenSendsTheCodeAndIDToken() async throws {
        let client = Self.client()
        try await withFakeAuth(client: client) { auth in
            // Without a user nothing is sent.
            try await auth.revokeToken(withAuthorizationCode: "code-0")
            #expect(client.requests("accounts:revokeToken").isEmpty)

            try await auth.signIn(with: OAuthProvider.appleCredential(withIDToken: "t", rawNonce: "n", fullName: nil))
            try await auth.revokeToken(withAuthorizationCode: "code-1")
            let sent = try #require(client.requests("accounts:revokeToken").first)
            #expect(sent.url.path.hasSuffix("/v2/accounts:revokeToken"))
            #expect(sent.string("providerId") == "apple.com")
            #expect(sent.string("tokenType") == "CODE")
            #expect(sent.string("token") == "code-1")
            #expect(sent.string("idToken") == "id-token")
        }
    }

    @Test func completionForms() async throws {
        let client = Self.client()
        try await withFakeAuth(client: client) { auth in
            let credential = OAuthProvider.appleCredential(withIDToken: "t", rawNonce: "n", fullName: nil)
            let uid: String? = await withCheckedContinuation { continuation in
                auth.signIn(with: credential) { result, error in
                    continuation.resume(returning: error == nil ? result?.user.uid : nil)
                }
            }
            #expect(uid == "uid-apple")
            let revokeError: String? = await withCheckedContinuation { continuation in
                auth.revokeToken(withAuthorizationCode: "code") { error in
                    continuation.resume(returning: error.map { "\($0)" })
                }
            }
            #expect(revokeError == nil)
            let user = try #require(auth.currentUser)
            let reauthUID: String? = await withCheckedContinuation { continuation in
                user.reauthenticate(with: credential) { result, _ in continuation.resume(returning: result?.user.uid) }
            }
            #expect(reauthUID == "uid-apple")
        }
    }

    @Test func googleSignInSendsBothTokens() async throws {
        let client = Self.client { _ in
            .ok(["localId": "uid-google", "idToken": "id-token", "refreshToken": "refresh-token", "expiresIn": "3600",
                 "providerId": "google.com", "isNewUser": true, "email": "ada@gmail.example",
                 "rawUserInfo": #"{"sub":"google-sub","email":"ada@gmail.example"}"#])
        }
        try await withFakeAuth(client: client) { auth in
            let credential = GoogleAuthProvider.credential(withIDToken: "google-id-token", accessToken: "google-access-token")
            #expect(credential.provider == GoogleAuthProviderID)
            let result = try await auth.signIn(with: credential)
            #expect(result.additionalUserInfo?.providerID == "google.com")
            #expect(result.additionalUserInfo?.profile?["sub"] as? String == "google-sub")
            #expect(try Self.postBody(client) == ["id_token": "google-id-token", "access_token": "google-access-token",
                                                  "providerId": "google.com"])
            let sent = try #require(client.requests("accounts:signInWithIdp").first)
            #expect(sent.body["returnSecureToken"] as? Bool == true)
            #expect(sent.body["autoCreate"] as? Bool == true)
        }
    }

    @Test func nonceHelper() {
        let nonce = AuthNonce.random()
        #expect(nonce.count == 32)
        #expect(nonce.allSatisfy { AuthNonce.charset.contains($0) })
        #expect(AuthNonce.random(length: 64).count == 64)
        #expect(AuthNonce.random() != AuthNonce.random())
        #expect(AuthNonce.sha256("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(AuthNonce.sha256("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(AuthNonce.sha256("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")
            == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(AuthNonce.sha256(String(repeating: "a", count: 1000)).count == 64)
    }

    @Test func providerIDs() {
        #expect(AuthProviderID.apple.rawValue == "apple.com")
        #expect(AuthProviderID.facebook.rawValue == "facebook.com")
        #expect(FacebookAuthProvider.id == "facebook.com")
        #expect(OAuthProvider(providerID: .apple).providerID == "apple.com")
        #expect(AuthProviderID.custom("oidc.example").rawValue == "oidc.example")
        #expect(OAuthProvider.id == "OAuth")
        #expect(GoogleAuthProvider.id == "google.com")
        #expect(GoogleAuthProviderID == "google.com")
        #expect(GoogleAuthSignInMethod == "google.com")
    }
}
