@testable import FlintAuth
import FlintTestSupport
import FlintWire
import Foundation
import Testing

/// Sign in with Apple and Facebook Login through the SDK, against a Flint server in production mode
/// that verifies every token with the fake Apple and Facebook (JWKS, Graph API, client secrets).
@Suite struct FederatedSignInTests {
    /// The fakes, a production server set up for them, and an `Auth` of an app talking to it.
    static func withFederatedHarness(database: TestDatabase = .sqlite,
                                     _ body: (TestServer, FederatedProviders, Auth) async throws -> Void) async throws {
        try await FederatedProviders.withServer(database: database) { server, providers in
            let name = "flint-auth-test-\(UUID().uuidString)"
            let options = FirebaseOptions(apiKey: server.apiKey, projectID: server.projectID, serverURL: server.baseURL)
            options.bundleID = FederatedProviders.bundleID
            FirebaseApp.configure(name: name, options: options)
            let app = try #require(FirebaseApp.app(name: name))
            var failure: (any Error)?
            do {
                try await body(server, providers, Auth(app: app, credentialStore: InMemoryCredentialStore()))
            } catch {
                failure = error
            }
            await app.delete()
            if let failure { throw failure }
        }
    }

    /// What an app does with `ASAuthorizationAppleIDCredential`: a fresh nonce whose SHA-256 went into
    /// the request (here: into the token the fake Apple makes), and the raw nonce into the credential.
    static func appleCredential(_ providers: FederatedProviders, sub: String = "001.ada", email: String? = "ada@example.com",
                                fullName: PersonNameComponents? = nil) throws -> OAuthCredential {
        let rawNonce = AuthNonce.random()
        let idToken = try providers.apple.makeIdentityToken(
            sub: sub, audience: FederatedProviders.bundleID, nonce: AuthNonce.sha256(rawNonce), email: email)
        return OAuthProvider.appleCredential(withIDToken: idToken, rawNonce: rawNonce, fullName: fullName)
    }

    @Test(arguments: TestDatabase.allCases)
    func signInWithAppleUsesTheNonceAndKeepsTheName(database: TestDatabase) async throws {
        try await Self.withFederatedHarness(database: database) { _, providers, auth in
            var name = PersonNameComponents()
            name.givenName = "Ada"
            name.familyName = "Lovelace"
            let result = try await auth.signIn(with: try Self.appleCredential(providers, fullName: name))
            #expect(result.additionalUserInfo?.isNewUser == true)
            #expect(result.additionalUserInfo?.providerID == "apple.com")
            #expect(result.additionalUserInfo?.profile?["sub"] as? String == "001.ada")
            #expect(result.user.displayName == "Ada Lovelace")
            #expect(result.user.email == "ada@example.com")
            #expect(result.user.isEmailVerified)
            #expect(result.user.providerData.map(\.providerID) == ["apple.com"])
            #expect(result.user.photoURL == nil)

            try auth.signOut()
            let again = try await auth.signIn(with: try Self.appleCredential(providers))
            #expect(again.user.uid == result.user.uid)
            #expect(again.additionalUserInfo?.isNewUser == false)
            #expect(again.user.displayName == "Ada Lovelace")
        }
    }

    @Test func forgedAppleCredentialsAreRefused() async throws {
        try await Self.withFederatedHarness { server, providers, auth in
            let apple = providers.apple
            let rawNonce = AuthNonce.random()
            let nonce = AuthNonce.sha256(rawNonce)
            let bundle = FederatedProviders.bundleID
            // A token for another nonce (a replay from another session).
            let replayed = try apple.makeIdentityToken(sub: "001.x", audience: bundle, nonce: AuthNonce.sha256("other"))
            await expectAuthError(.missingOrInvalidNonce) {
                try await auth.signIn(with: OAuthProvider.appleCredential(withIDToken: replayed, rawNonce: rawNonce, fullName: nil))
            }
            let forged: [String] = [
                try apple.makeIdentityToken(sub: "001.x", audience: bundle, nonce: nonce, signWith: .foreignKey),
                try apple.makeIdentityToken(sub: "001.x", audience: bundle, nonce: nonce, signWith: .none),
                try apple.makeIdentityToken(sub: "001.x", audience: bundle, nonce: nonce,
                                            signWith: .hs256(secret: apple.currentPublicKeyDER)),
                try apple.makeIdentityToken(sub: "001.x", audience: "com.attacker.app", nonce: nonce),
                try apple.makeIdentityToken(sub: "001.x", audience: bundle, nonce: nonce, issuer: "https://appleid.attacker.com"),
                try apple.makeIdentityToken(sub: "001.x", audience: bundle, nonce: nonce,
                                            issuedAt: server.clock.now().addingTimeInterval(-3600), expiresIn: 300),
            ]
            for token in forged {
                await expectAuthError(.invalidCredential) {
                    try await auth.signIn(with: OAuthProvider.appleCredential(withIDToken: token, rawNonce: rawNonce, fullName: nil))
                }
            }
            #expect(auth.currentUser == nil)
        }
    }

    @Test func facebookClassicAndLimitedLogin() async throws {
        try await Self.withFederatedHarness { _, providers, auth in
            let facebook = providers.facebook
            let classic = facebook.makeUserAccessToken(userID: "10001", name: "Grace Hopper", email: "grace@example.com",
                                                       pictureURL: "https://example.com/grace.png")
            let result = try await auth.signIn(with: FacebookAuthProvider.credential(withAccessToken: classic))
            #expect(result.additionalUserInfo?.isNewUser == true)
            #expect(result.user.displayName == "Grace Hopper")
            #expect(result.user.photoURL?.absoluteString == "https://example.com/grace.png")
            #expect(result.user.isEmailVerified == false)
            #expect(result.user.providerData.first?.providerID == "facebook.com")
            try auth.signOut()

            // Limited Login: an OpenID token from the Facebook SDK, with the SHA-256 of the raw nonce.
            let rawNonce = AuthNonce.random()
            let limited = try facebook.makeLimitedLoginToken(sub: "10001", nonce: AuthNonce.sha256(rawNonce), name: "Grace Hopper")
            let again = try await auth.signIn(with: OAuthProvider.credential(providerID: .facebook, idToken: limited, rawNonce: rawNonce))
            #expect(again.user.uid == result.user.uid)

            let otherApp = facebook.makeUserAccessToken(userID: "10002", appID: "999")
            await expectAuthError(.invalidCredential) {
                try await auth.signIn(with: FacebookAuthProvider.credential(withAccessToken: otherApp))
            }
        }
    }

    /// The seeds' example: an Apple user links Facebook; the same Facebook account, linked from another
    /// user, is a conflict whose updated credential signs in to the first user.
    @Test(arguments: TestDatabase.allCases)
    func linkingFacebookToAnAppleUserAndTheAlreadyLinkedConflict(database: TestDatabase) async throws {
        try await Self.withFederatedHarness(database: database) { _, providers, auth in
            let facebook = providers.facebook
            let appleUser = try await auth.signIn(with: try Self.appleCredential(providers)).user
            let linked = try await appleUser.link(with: FacebookAuthProvider.credential(
                withAccessToken: facebook.makeUserAccessToken(userID: "10001", name: "Ada L")))
            #expect(linked.user.uid == appleUser.uid)
            #expect(Set(linked.user.providerData.map(\.providerID)) == ["apple.com", "facebook.com"])
            try auth.signOut()

            // Someone else, on another Apple ID, tries to link the same Facebook account.
            let other = try await auth.signIn(with: try Self.appleCredential(providers, sub: "001.bob", email: "bob@example.com")).user
            let error = await expectAuthError(.credentialAlreadyInUse) {
                try await other.link(with: FacebookAuthProvider.credential(
                    withAccessToken: facebook.makeUserAccessToken(userID: "10001", name: "Ada L")))
            }
            let updated = try #require(error?.userInfo[AuthErrorUserInfoUpdatedCredentialKey] as? OAuthCredential)
            let switched = try await auth.signIn(with: updated)
            #expect(switched.user.uid == appleUser.uid)

            // The same for Apple, whose ID token is bound to a nonce: the updated credential still works.
            try auth.signOut()
            let third = try await auth.signIn(with: FacebookAuthProvider.credential(
                withAccessToken: facebook.makeUserAccessToken(userID: "10003", name: "Carol"))).user
            let appleError = await expectAuthError(.credentialAlreadyInUse) {
                try await third.link(with: try Self.appleCredential(providers))
            }
            let appleUpdated = try #require(appleError?.userInfo[AuthErrorUserInfoUpdatedCredentialKey] as? OAuthCredential)
            #expect(try await auth.signIn(with: appleUpdated).user.uid == appleUser.uid)

            // Unlinking Facebook leaves Apple.
            let current = try #require(auth.currentUser)
            let unlinked = try await current.unlink(fromProvider: "facebook.com")
            #expect(unlinked.providerData.map(\.providerID) == ["apple.com"])
        }
    }

    @Test func accountWithTheSameEmailMustBeConfirmed() async throws {
        try await Self.withFederatedHarness { _, providers, auth in
            _ = try await auth.createUser(withEmail: "grace@example.com", password: "correct horse battery")
            try auth.signOut()
            let credential = FacebookAuthProvider.credential(
                withAccessToken: providers.facebook.makeUserAccessToken(userID: "10001", email: "grace@example.com"))
            let error = await expectAuthError(.accountExistsWithDifferentCredential) {
                try await auth.signIn(with: credential)
            }
            #expect(error?.userInfo[AuthErrorUserInfoEmailKey] as? String == "grace@example.com")
            let updated = try #require(error?.userInfo[AuthErrorUserInfoUpdatedCredentialKey] as? OAuthCredential)
            // The documented way out: sign in to the existing account, then link.
            let existing = try await auth.signIn(withEmail: "grace@example.com", password: "correct horse battery").user
            let linked = try await existing.link(with: updated)
            #expect(Set(linked.user.providerData.map(\.providerID)) == ["password", "facebook.com"])
        }
    }

    @Test func reauthenticationChecksTheUser() async throws {
        try await Self.withFederatedHarness { server, providers, auth in
            let user = try await auth.signIn(with: try Self.appleCredential(providers)).user
            let result = try await user.reauthenticate(with: try Self.appleCredential(providers))
            #expect(result.user.uid == user.uid)
            // Another Apple ID is another user; an unknown one is no user at all (the server creates none
            // and answers USER_NOT_FOUND, which FirebaseAuth reports as a mismatch too).
            _ = try await auth.signIn(with: try Self.appleCredential(providers, sub: "001.bob", email: "bob@example.com"))
            await expectAuthError(.userMismatch) {
                try await user.reauthenticate(with: try Self.appleCredential(providers, sub: "001.bob", email: "bob@example.com"))
            }
            await expectAuthError(.userMismatch) {
                try await user.reauthenticate(with: try Self.appleCredential(providers, sub: "001.nobody", email: nil))
            }
            let users = try await server.server.store.accounts.users(projectID: server.projectID, afterLocalID: nil, limit: 10)
            #expect(users.count == 2)
        }
    }

    /// App Store rules: revoke the Apple tokens with a fresh authorization code, then delete the account.
    @Test func appleRevocationThenAccountDeletion() async throws {
        try await Self.withFederatedHarness { server, providers, auth in
            let user = try await auth.signIn(with: try Self.appleCredential(providers)).user
            let code = providers.apple.makeAuthorizationCode(for: "001.ada", clientID: FederatedProviders.bundleID)
            try await auth.revokeToken(withAuthorizationCode: code)
            #expect(providers.apple.revocations.all.map(\.clientID) == [FederatedProviders.bundleID])
            await expectAuthError(.invalidCredential) { try await auth.revokeToken(withAuthorizationCode: code) }

            try await user.delete()
            #expect(auth.currentUser == nil)
            #expect(try await server.server.store.accounts.user(projectID: server.projectID, localID: user.uid) == nil)
        }
    }
}
