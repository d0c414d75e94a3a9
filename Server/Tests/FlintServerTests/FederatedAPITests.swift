import Crypto
@testable import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
import Testing

/// `accounts:signInWithIdp` and `accounts:revokeToken` on the wire, in production mode against the fake
/// Apple and Facebook (real signatures, JWKS over loopback, Graph checks of the app token and
/// `appsecret_proof`), and in emulator mode with the official emulator's unsigned tokens.
@Suite struct FederatedAPITests {
    static let rawNonce = "k3J9-raw-nonce-4f1c"

    /// `postBody` as the SDKs form it.
    static func postBody(_ fields: [(String, String)]) -> String { FormURLEncoding.encode(fields) }

    static func appleBody(_ idToken: String, nonce: String? = rawNonce, user: String? = nil) -> String {
        var fields = [("id_token", idToken), ("providerId", "apple.com")]
        if let nonce { fields.append(("nonce", nonce)) }
        if let user { fields.append(("user", user)) }
        return postBody(fields)
    }

    static func signIn(_ client: TestClient, postBody: String? = nil, _ extra: [String: JSONValue] = [:]) async throws
        -> TestClient.Reply {
        var body: [String: JSONValue] = ["requestUri": "http://localhost", "returnSecureToken": true]
        if let postBody { body["postBody"] = .string(postBody) }
        for (key, value) in extra { body[key] = value }
        return try await client.post("/v1/accounts:signInWithIdp", body)
    }

    static func appleToken(_ providers: FederatedProviders, sub: String = "001234.apple.user", email: String? = nil,
                           audience: String = FederatedProviders.bundleID) throws -> String {
        try providers.apple.makeIdentityToken(sub: sub, audience: audience, nonce: Hex.sha256(rawNonce), email: email)
    }

    // MARK: Apple

    @Test(arguments: TestDatabase.allCases)
    func appleSignInCreatesTheUserThenSignsItIn(database: TestDatabase) async throws {
        try await FederatedProviders.withServer(database: database) { server, providers in
            let client = TestClient(server)
            let token = try Self.appleToken(providers, email: "ada@privaterelay.appleid.com")
            let first = try await Self.signIn(client, postBody: Self.appleBody(
                token, user: #"{"name":{"firstName":"Ada","lastName":"Lovelace"}}"#))
            #expect(first.status == 200, "\(first.body)")
            #expect(first["isNewUser"] == true)
            #expect(first["providerId"] == "apple.com")
            #expect(first["federatedId"] == "001234.apple.user")
            #expect(first["email"] == "ada@privaterelay.appleid.com")
            #expect(first["emailVerified"] == true)
            #expect(first["displayName"] == "Ada Lovelace")
            #expect(first["oauthIdToken"] == .string(token))
            #expect(first["photoUrl"] == nil)
            let rawUserInfo = try JSONDecoder().decode(JSONValue.self, from: Data(try #require(first.string("rawUserInfo")).utf8))
            #expect(rawUserInfo["sub"] == "001234.apple.user")
            #expect(claims(of: first.string("idToken"))["firebase"]?["sign_in_provider"] == "apple.com")

            // Apple sends the name once; the next sign-in has none and keeps the stored one.
            let again = try await Self.signIn(client, postBody: Self.appleBody(try Self.appleToken(providers)))
            #expect(again.status == 200, "\(again.body)")
            #expect(again["localId"] == first["localId"])
            #expect(again["isNewUser"] == nil)
            #expect(again["displayName"] == "Ada Lovelace")
            let user = try #require(try await client.lookup(idToken: again.string("idToken")).firstUser)
            #expect(user["providerUserInfo"]?.arrayValue?.first?["providerId"] == "apple.com")

            // A token for the Services ID (web) is accepted as well.
            let web = try await Self.signIn(client, postBody: Self.appleBody(
                try Self.appleToken(providers, audience: FederatedProviders.servicesID)))
            #expect(web["localId"] == first["localId"])
        }
    }

    /// Every forged or stale Apple token is refused, and none of them creates a user.
    @Test func forgedAppleTokensAreRefused() async throws {
        try await FederatedProviders.withServer { server, providers in
            let client = TestClient(server)
            let apple = providers.apple
            let nonce = Hex.sha256(Self.rawNonce)
            let bundle = FederatedProviders.bundleID
            let cases: [(String, String, String?, String)] = [
                ("foreign key", try apple.makeIdentityToken(sub: "s", audience: bundle, nonce: nonce, signWith: .foreignKey),
                 Self.rawNonce, "INVALID_IDP_RESPONSE"),
                ("alg none", try apple.makeIdentityToken(sub: "s", audience: bundle, nonce: nonce, signWith: .none),
                 Self.rawNonce, "INVALID_IDP_RESPONSE"),
                ("HS256 keyed with the public key", try apple.makeIdentityToken(
                    sub: "s", audience: bundle, nonce: nonce, signWith: .hs256(secret: apple.currentPublicKeyDER)),
                 Self.rawNonce, "INVALID_IDP_RESPONSE"),
                ("wrong issuer", try apple.makeIdentityToken(sub: "s", audience: bundle, nonce: nonce,
                                                             issuer: "https://evil.example.com"),
                 Self.rawNonce, "INVALID_IDP_RESPONSE"),
                ("wrong audience", try apple.makeIdentityToken(sub: "s", audience: "com.other.app", nonce: nonce),
                 Self.rawNonce, "INVALID_IDP_RESPONSE"),
                ("expired", try apple.makeIdentityToken(sub: "s", audience: bundle, nonce: nonce,
                                                        issuedAt: server.clock.now().addingTimeInterval(-7200), expiresIn: 600),
                 Self.rawNonce, "INVALID_IDP_RESPONSE"),
                ("issued in the future", try apple.makeIdentityToken(sub: "s", audience: bundle, nonce: nonce,
                                                                     issuedAt: server.clock.now().addingTimeInterval(3600)),
                 Self.rawNonce, "INVALID_IDP_RESPONSE"),
                ("nonce mismatch", try apple.makeIdentityToken(sub: "s", audience: bundle, nonce: nonce),
                 "another-raw-nonce", "MISSING_OR_INVALID_NONCE"),
                ("raw nonce missing", try apple.makeIdentityToken(sub: "s", audience: bundle, nonce: nonce),
                 nil, "MISSING_OR_INVALID_NONCE"),
                ("token without nonce", try apple.makeIdentityToken(sub: "s", audience: bundle),
                 Self.rawNonce, "MISSING_OR_INVALID_NONCE"),
                ("oversized", String(repeating: "a", count: 20_000), Self.rawNonce, "INVALID_IDP_RESPONSE"),
                ("not a JWT", "not.a.jwt", Self.rawNonce, "INVALID_IDP_RESPONSE"),
            ]
            for (name, token, rawNonce, expected) in cases {
                let reply = try await Self.signIn(client, postBody: Self.appleBody(token, nonce: rawNonce))
                #expect(reply.status == 400, "\(name): \(reply.body)")
                #expect(reply.errorCode == expected, "\(name): \(reply.body)")
            }
            #expect(try await server.server.store.accounts.users(projectID: server.projectID, afterLocalID: nil, limit: 10).isEmpty)
        }
    }

    @Test func requestsWithoutAProviderOrURIAreRefused() async throws {
        try await FederatedProviders.withServer { server, providers in
            let client = TestClient(server)
            let token = try Self.appleToken(providers)
            #expect(try await Self.signIn(client, postBody: Self.appleBody(token), ["requestUri": .null]).errorCode
                == "MISSING_REQUEST_URI")
            #expect(try await Self.signIn(client, postBody: Self.appleBody(token), ["requestUri": "not a uri"]).errorCode
                == "INVALID_REQUEST_URI")
            #expect(try await Self.signIn(client, postBody: Self.postBody([("id_token", token)])).errorCode
                == "INVALID_CREDENTIAL_OR_PROVIDER_ID")
            #expect(try await Self.signIn(client, postBody: Self.postBody([("providerId", "apple.com")])).errorCode
                == "INVALID_IDP_RESPONSE")
            #expect(try await Self.signIn(client, postBody: Self.postBody([("id_token", token), ("providerId", "twitter.com")]))
                .errorCode == "OPERATION_NOT_ALLOWED")
            // The fields may also come in the request URI's fragment.
            let fragment = try await Self.signIn(client, postBody: nil,
                                                 ["requestUri": .string("http://localhost/#" + Self.appleBody(token))])
            #expect(fragment.status == 200, "\(fragment.body)")

            // A disabled provider is refused.
            _ = try await server.server.configureIdentityProvider(
                server.projectID, "apple.com", DefaultSupportedIdpConfig(enabled: false, clientId: FederatedProviders.servicesID))
            #expect(try await Self.signIn(client, postBody: Self.appleBody(try Self.appleToken(providers))).errorCode
                == "OPERATION_NOT_ALLOWED")
        }
    }

    // MARK: Facebook

    @Test(arguments: TestDatabase.allCases)
    func facebookClassicLoginIsCheckedWithTheGraphAPI(database: TestDatabase) async throws {
        try await FederatedProviders.withServer(database: database) { server, providers in
            let client = TestClient(server)
            let facebook = providers.facebook
            let token = facebook.makeUserAccessToken(userID: "10001", name: "Grace Hopper", email: "grace@example.com",
                                                     pictureURL: "https://example.com/grace.png")
            let reply = try await Self.signIn(client, postBody: Self.postBody([("access_token", token), ("providerId", "facebook.com")]))
            #expect(reply.status == 200, "\(reply.body)")
            #expect(reply["isNewUser"] == true)
            #expect(reply["federatedId"] == "10001")
            #expect(reply["displayName"] == "Grace Hopper")
            #expect(reply["photoUrl"] == "https://example.com/grace.png")
            #expect(reply["email"] == "grace@example.com")
            // Facebook does not vouch for emails.
            #expect(reply["emailVerified"] == false)
            #expect(reply["oauthAccessToken"] == .string(token))
            // /me was asked with an appsecret_proof (the fake answers only a right one, and records it redacted).
            let me = try #require(facebook.requests.all.first { $0.path.hasSuffix("/me") })
            #expect(me.query["appsecret_proof"] == FakeFacebook.redacted)

            for bad in [facebook.makeUserAccessToken(userID: "10002", appID: "999"),
                        facebook.makeUserAccessToken(userID: "10003", valid: false), "EAAmadeup"] {
                let refused = try await Self.signIn(client, postBody: Self.postBody([("access_token", bad), ("providerId", "facebook.com")]))
                #expect(refused.errorCode == "INVALID_IDP_RESPONSE", "\(refused.body)")
            }
        }
    }

    @Test func facebookLimitedLoginTokensAreCheckedLikeAppleTokens() async throws {
        try await FederatedProviders.withServer { server, providers in
            let client = TestClient(server)
            let facebook = providers.facebook
            func body(_ token: String, nonce: String? = Self.rawNonce) -> String {
                var fields = [("id_token", token), ("providerId", "facebook.com")]
                if let nonce { fields.append(("nonce", nonce)) }
                return Self.postBody(fields)
            }
            let token = try facebook.makeLimitedLoginToken(sub: "20001", nonce: Hex.sha256(Self.rawNonce), name: "Alan Turing",
                                                           email: "alan@example.com", picture: "https://example.com/alan.png")
            let reply = try await Self.signIn(client, postBody: body(token))
            #expect(reply.status == 200, "\(reply.body)")
            #expect(reply["federatedId"] == "20001")
            #expect(reply["displayName"] == "Alan Turing")
            #expect(reply["photoUrl"] == "https://example.com/alan.png")

            let refused: [(String, String)] = [
                (try facebook.makeLimitedLoginToken(sub: "20002", audience: "999", nonce: Hex.sha256(Self.rawNonce)), "INVALID_IDP_RESPONSE"),
                (try facebook.makeLimitedLoginToken(sub: "20002", nonce: Hex.sha256(Self.rawNonce), signWith: .foreignKey), "INVALID_IDP_RESPONSE"),
                (try facebook.makeLimitedLoginToken(sub: "20002", nonce: Hex.sha256(Self.rawNonce), issuer: "https://evil.example.com"), "INVALID_IDP_RESPONSE"),
                (try facebook.makeLimitedLoginToken(sub: "20002", nonce: Hex.sha256("other")), "MISSING_OR_INVALID_NONCE"),
            ]
            for (token, expected) in refused {
                #expect(try await Self.signIn(client, postBody: body(token)).errorCode == expected)
            }
        }
    }

    // MARK: Google

    @Test(arguments: TestDatabase.allCases)
    func googleIDTokensAreCheckedAgainstGooglesKeysAndTheClientID(database: TestDatabase) async throws {
        try await FederatedProviders.withServer(database: database) { server, providers in
            let client = TestClient(server)
            let google = providers.google
            func body(_ token: String, nonce: String? = nil) -> String {
                var fields = [("id_token", token), ("providerId", "google.com")]
                if let nonce { fields.append(("nonce", nonce)) }
                return Self.postBody(fields)
            }
            let token = try google.makeIDToken(sub: "110169484474386276334", email: "Grace@Example.com", name: "Grace Hopper",
                                               picture: "https://lh3.googleusercontent.com/a/grace")
            let first = try await Self.signIn(client, postBody: body(token))
            #expect(first.status == 200, "\(first.body)")
            #expect(first["isNewUser"] == true)
            #expect(first["providerId"] == "google.com")
            // Firebase names a Google account by issuer and subject.
            #expect(first["federatedId"] == "https://accounts.google.com/110169484474386276334")
            #expect(first["email"] == "grace@example.com")
            // Google vouches for the address.
            #expect(first["emailVerified"] == true)
            #expect(first["displayName"] == "Grace Hopper")
            #expect(first["firstName"] == "Grace")
            #expect(first["photoUrl"] == "https://lh3.googleusercontent.com/a/grace")
            #expect(first["oauthIdToken"] == .string(token))
            #expect(claims(of: first.string("idToken"))["firebase"]?["sign_in_provider"] == "google.com")

            // Either spelling of Google's issuer; a nonce the token carries must come with its raw value.
            let bare = try google.makeIDToken(sub: "110169484474386276334", issuer: "accounts.google.com")
            #expect(try await Self.signIn(client, postBody: body(bare))["localId"] == first["localId"])
            let withNonce = try google.makeIDToken(sub: "110169484474386276334", nonce: Self.rawNonce)
            #expect(try await Self.signIn(client, postBody: body(withNonce, nonce: Self.rawNonce))["localId"] == first["localId"])

            let refused: [(String, String?, String)] = [
                (try google.makeIDToken(sub: "2", audience: "other-client.apps.googleusercontent.com"), nil, "INVALID_IDP_RESPONSE"),
                (try google.makeIDToken(sub: "2", signWith: .foreignKey), nil, "INVALID_IDP_RESPONSE"),
                (try google.makeIDToken(sub: "2", signWith: .none), nil, "INVALID_IDP_RESPONSE"),
                (try google.makeIDToken(sub: "2", issuer: "https://evil.example.com"), nil, "INVALID_IDP_RESPONSE"),
                (try google.makeIDToken(sub: "2", expiresIn: -600), nil, "INVALID_IDP_RESPONSE"),
                (try google.makeIDToken(sub: "2", nonce: Self.rawNonce), nil, "MISSING_OR_INVALID_NONCE"),
                (try google.makeIDToken(sub: "2", nonce: Self.rawNonce), "another nonce", "MISSING_OR_INVALID_NONCE"),
            ]
            for (token, nonce, expected) in refused {
                #expect(try await Self.signIn(client, postBody: body(token, nonce: nonce)).errorCode == expected)
            }
            #expect(try await server.server.store.accounts.user(projectID: server.projectID, providerID: "google.com", rawID: "2") == nil)

            // The app's other clients (its iOS client, say) are accepted once configured, with the web client still.
            let iOSClient = "123456789012-ios.apps.googleusercontent.com"
            let fromIOS = try google.makeIDToken(sub: "3", audience: iOSClient)
            #expect(try await Self.signIn(client, postBody: body(fromIOS)).errorCode == "INVALID_IDP_RESPONSE")
            let updated = try await server.server.configureIdentityProvider(server.projectID, ProviderID.google, DefaultSupportedIdpConfig(
                enabled: true, clientId: google.clientID, additionalClientIds: [iOSClient]))
            #expect(updated.additionalClientIds == [iOSClient] && updated.clientSecret == "REDACTED")
            #expect(try await Self.signIn(client, postBody: body(fromIOS))["federatedId"] == "https://accounts.google.com/3")
            #expect(try await Self.signIn(client, postBody: body(bare))["localId"] == first["localId"])
        }
    }

    @Test func googleAccessTokensAreCheckedWithTokenInfo() async throws {
        try await FederatedProviders.withServer { server, providers in
            let client = TestClient(server)
            let google = providers.google
            func body(_ accessToken: String) -> String { Self.postBody([("access_token", accessToken), ("providerId", "google.com")]) }
            let token = google.makeAccessToken(sub: "2001", email: "linus@example.com", name: "Linus Torvalds")
            let reply = try await Self.signIn(client, postBody: body(token))
            #expect(reply.status == 200, "\(reply.body)")
            #expect(reply["federatedId"] == "https://accounts.google.com/2001")
            #expect(reply["email"] == "linus@example.com")
            #expect(reply["emailVerified"] == true)
            #expect(reply["displayName"] == "Linus Torvalds")
            #expect(reply["oauthAccessToken"] == .string(token))
            // The token went to token info in the query and to user info as a bearer, nowhere else.
            #expect(google.requests.all.map(\.path) == ["/tokeninfo", "/v1/userinfo"])
            #expect(google.requests.all.last?.authorization == FakeGoogle.redacted)

            for bad in [google.makeAccessToken(sub: "2002", clientID: "other-client.apps.googleusercontent.com"),
                        google.makeAccessToken(sub: "2003", valid: false), google.makeAccessToken(sub: "2004", expiresIn: -1),
                        "ya29.made-up"] {
                #expect(try await Self.signIn(client, postBody: body(bad)).errorCode == "INVALID_IDP_RESPONSE")
            }
        }
    }

    // MARK: Linking and conflicts

    @Test(arguments: TestDatabase.allCases)
    func linkingConflictsAndPendingTokens(database: TestDatabase) async throws {
        try await FederatedProviders.withServer(database: database) { server, providers in
            let client = TestClient(server)
            let facebook = providers.facebook
            let appleUser = try await Self.signIn(client, postBody: Self.appleBody(try Self.appleToken(providers, email: "ada@example.com")))
            let appleIDToken = try #require(appleUser.string("idToken"))
            let facebookBody = Self.postBody([
                ("access_token", facebook.makeUserAccessToken(userID: "10001", email: "ada@example.com")), ("providerId", "facebook.com"),
            ])
            let linked = try await Self.signIn(client, postBody: facebookBody, ["idToken": .string(appleIDToken)])
            #expect(linked.status == 200, "\(linked.body)")
            #expect(linked["localId"] == appleUser["localId"])
            let providerIDs = try #require(try await client.lookup(idToken: linked.string("idToken")).firstUser)["providerUserInfo"]?
                .arrayValue?.compactMap { $0["providerId"]?.stringValue }
            #expect(providerIDs == ["apple.com", "facebook.com"])

            // Linking the same Facebook account to another user: a plain 400, or with returnIdpCredential a 200
            // carrying the error and a pending token.
            let other = try await client.signUp(email: "other@example.com", password: "correct horse")
            let otherToken = try #require(other.string("idToken"))
            let facebookAgain = Self.postBody([
                ("access_token", facebook.makeUserAccessToken(userID: "10001", email: "ada@example.com")), ("providerId", "facebook.com"),
            ])
            let plain = try await Self.signIn(client, postBody: facebookAgain,
                                              ["idToken": .string(otherToken), "returnIdpCredential": false])
            #expect(plain.errorCode == "FEDERATED_USER_ID_ALREADY_LINKED")
            let report = try await Self.signIn(client, postBody: facebookAgain,
                                               ["idToken": .string(otherToken), "returnIdpCredential": true])
            #expect(report.status == 200, "\(report.body)")
            #expect(report["errorMessage"] == "FEDERATED_USER_ID_ALREADY_LINKED")
            #expect(report["idToken"] == nil)
            let pending = try #require(report.string("pendingToken"))
            // The pending token signs in as the account that holds the identity, once.
            let switched = try await Self.signIn(client, postBody: nil, ["pendingToken": .string(pending)])
            #expect(switched.status == 200, "\(switched.body)")
            #expect(switched["localId"] == appleUser["localId"])
            #expect(try await Self.signIn(client, postBody: nil, ["pendingToken": .string(pending)]).errorCode
                == "INVALID_PENDING_TOKEN")
            #expect(try await Self.signIn(client, postBody: nil, ["pendingToken": "forged"]).errorCode == "INVALID_PENDING_TOKEN")

            // One account per email: a new Facebook account with the email of an existing password user
            // must be confirmed by signing in to that user first.
            let confirm = try await Self.signIn(client, postBody: Self.postBody([
                ("access_token", facebook.makeUserAccessToken(userID: "10009", email: "other@example.com")), ("providerId", "facebook.com"),
            ]))
            #expect(confirm.status == 200, "\(confirm.body)")
            #expect(confirm["needConfirmation"] == true)
            #expect(confirm["idToken"] == nil)
            #expect(confirm["email"] == "other@example.com")
            // Linking an account whose email a third user holds is EMAIL_EXISTS.
            let anonymous = try await client.signUp()
            let emailTaken = try await Self.signIn(client, postBody: Self.postBody([
                ("access_token", facebook.makeUserAccessToken(userID: "10010", email: "other@example.com")), ("providerId", "facebook.com"),
            ]), ["idToken": .string(try #require(anonymous.string("idToken")))])
            #expect(emailTaken.errorCode == "EMAIL_EXISTS")

            // Re-authentication never creates a user.
            let reauth = try await Self.signIn(client, postBody: Self.appleBody(try Self.appleToken(providers, sub: "001999.new")),
                                               ["autoCreate": false])
            #expect(reauth.errorCode == "USER_NOT_FOUND")

            // Unlinking Facebook leaves Apple.
            let unlinked = try await client.post("/v1/accounts:update", [
                "idToken": .string(try #require(linked.string("idToken"))), "deleteProvider": ["facebook.com"],
            ])
            #expect(unlinked["providerUserInfo"]?.arrayValue?.compactMap { $0["providerId"]?.stringValue } == ["apple.com"])
        }
    }

    // MARK: Revocation

    @Test func appleTokensAreRevokedWithAnAuthorizationCode() async throws {
        try await FederatedProviders.withServer { server, providers in
            let client = TestClient(server)
            let user = try await Self.signIn(client, postBody: Self.appleBody(try Self.appleToken(providers)))
            let idToken = try #require(user.string("idToken"))
            let apple = providers.apple
            func revoke(_ code: String, tokenType: JSONValue = "CODE", providerId: JSONValue = "apple.com") async throws -> TestClient.Reply {
                try await client.post("/v2/accounts:revokeToken", [
                    "providerId": providerId, "tokenType": tokenType, "token": .string(code), "idToken": .string(idToken),
                ])
            }
            // An app's code (issued to the bundle ID), sent the way the iOS SDK does (tokenType 3).
            let appCode = apple.makeAuthorizationCode(for: "001234.apple.user", clientID: FederatedProviders.bundleID)
            let revoked = try await revoke(appCode, tokenType: .number(3))
            #expect(revoked.status == 200, "\(revoked.body)")
            #expect(apple.revocations.all.map(\.clientID) == [FederatedProviders.bundleID])
            // A web code (issued to the Services ID).
            let webCode = apple.makeAuthorizationCode(for: "001234.apple.user", clientID: FederatedProviders.servicesID)
            #expect(try await revoke(webCode).status == 200)
            #expect(apple.revocations.all.count == 2)
            // Spent and made-up codes are refused; so are other providers and token types.
            #expect(try await revoke(appCode).errorCode == "INVALID_IDP_RESPONSE")
            #expect(try await revoke("made-up").errorCode == "INVALID_IDP_RESPONSE")
            #expect(try await revoke("x", providerId: "facebook.com").errorCode == "INVALID_PROVIDER_ID")
            #expect(try await revoke("x", tokenType: "REFRESH_TOKEN").errorCode == "INVALID_ARGUMENT")
            #expect(apple.revocations.all.count == 2)
            // The fake took every client secret (it verifies them with the team's public key and answers
            // invalid_client otherwise): the refusals above are Apple's answers about the codes.
            #expect(apple.requests.all.filter { $0.path == "/auth/revoke" }.count == 2)
        }
    }

    // MARK: Emulator mode

    @Test func emulatorModeReadsUnsignedTokensLikeTheOfficialEmulator() async throws {
        try await withServer(emulator: true) { _, client in
            let json = #"{"sub":"apple-sub-1","email":"e@example.com","email_verified":"true"}"#
            let apple = try await Self.signIn(client, postBody: Self.postBody([("id_token", json), ("providerId", "apple.com")]))
            #expect(apple.status == 200, "\(apple.body)")
            #expect(apple["federatedId"] == "apple-sub-1")
            #expect(apple["emailVerified"] == true)
            let header = Base64URL.encode(Data(#"{"alg":"none"}"#.utf8))
            let payload = Base64URL.encode(Data(#"{"sub":"fb-1","name":"Fake User"}"#.utf8))
            let facebook = try await Self.signIn(client, postBody: Self.postBody([
                ("id_token", "\(header).\(payload)."), ("providerId", "facebook.com"),
            ]))
            #expect(facebook["displayName"] == "Fake User")
            #expect(facebook["oauthAccessToken"] == "FirebaseAuthEmulatorFakeAccessToken_facebook.com")
            let opaque = try await Self.signIn(client, postBody: Self.postBody([("access_token", "EAAopaque"), ("providerId", "facebook.com")]))
            #expect(opaque.status == 501)
            let noSub = try await Self.signIn(client, postBody: Self.postBody([("id_token", #"{"email":"x@example.com"}"#), ("providerId", "apple.com")]))
            #expect(noSub.errorCode == "INVALID_IDP_RESPONSE")
            // Every other provider the same way, with no outside call (none is configured or reachable here).
            for provider in ["google.com", "github.com", "microsoft.com", "oidc.corp"] {
                let claims = #"{"sub":"\#(provider)-1","email":"\#(provider)@example.com","email_verified":true,"name":"Test"}"#
                let reply = try await Self.signIn(client, postBody: Self.postBody([("id_token", claims), ("providerId", provider)]))
                #expect(reply.status == 200 && reply["providerId"] == .string(provider) && reply["emailVerified"] == true, "\(reply.body)")
            }
            let gitHubToken = try await Self.signIn(client, postBody: Self.postBody([("access_token", "gho_opaque"), ("providerId", "github.com")]))
            #expect(gitHubToken.status == 501)
        }
    }
}
