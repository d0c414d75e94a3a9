@testable import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
import Testing

/// The official emulator's spec cases Flint last failed (issue 32), by spec file: each either passes here as the spec
/// has it, or checks the deliberate difference the table in `docs/emulator.md` gives a reason for.
extension EmulatorSpec {
    @Suite struct LastMile {
        private static let owner = ["Authorization": "Bearer owner"]

        /// Creates a tenant of the served project with `fields` (as the spec's `registerTenant`) and returns its ID.
        private static func registerTenant(_ client: TestClient, _ server: TestServer, _ fields: [String: JSONValue]) async throws
            -> String {
            let reply = try await client.post(
                "/identitytoolkit.googleapis.com/v2/projects/\(server.projectID)/tenants", fields, headers: owner)
            return try #require(reply.string("tenantId"), "\(reply.body)")
        }

        // MARK: idp.spec.ts

        /// Google's `rawUserInfo` is Google's own profile: its `id`, `verified_email`, a locale and the granted scopes,
        /// whether the claims come as an unsigned JWT or as plain JSON; a name or photo the token lacks stays absent.
        @Test(arguments: [true, false])
        func googleRawUserInfoHasTheProvidersOwnID(asJWT: Bool) async throws {
            try await withServer { (_: TestServer, client: TestClient) async throws in
                let payload = #"{"sub":"123456789012345678901","email":"example@gmail.com","email_verified":true}"#
                let header = Base64URL.encode(Array(#"{"alg":"none","typ":"JWT"}"#.utf8))
                let token = asJWT ? "\(header).\(Base64URL.encode(Array(payload.utf8)))." : payload
                let reply = try await client.post("/v1/accounts:signInWithIdp", [
                    "postBody": .string(FormURLEncoding.encode([("providerId", "google.com"), ("id_token", token)])),
                    "requestUri": "http://localhost", "returnIdpCredential": true, "returnSecureToken": true,
                ])
                #expect(reply.status == 200 && reply["isNewUser"] == true, "\(reply.body)")
                #expect(reply["federatedId"] == "https://accounts.google.com/123456789012345678901")
                #expect(reply["displayName"] == nil && reply["photoUrl"] == nil)
                let raw = try JSONDecoder().decode(JSONValue.self, from: Data((reply.string("rawUserInfo") ?? "").utf8))
                #expect(raw["id"] == "123456789012345678901" && raw["email"] == "example@gmail.com")
                #expect(raw["verified_email"] == true && raw["locale"] == "en" && raw["name"] == nil)
                let scopes = Set(raw["granted_scopes"]?.stringValue?.split(separator: " ").map(String.init) ?? [])
                #expect(scopes == ["openid", "https://www.googleapis.com/auth/userinfo.profile",
                                   "https://www.googleapis.com/auth/userinfo.email"])
                let firebase = claims(of: reply.string("idToken"))["firebase"]
                #expect(firebase?["identities"] == ["google.com": ["123456789012345678901"], "email": ["example@gmail.com"]])
            }
        }

        /// Deliberate: a SAML name id is an address like any other, stored in lower case (the emulator keeps its case).
        @Test func aSAMLNameIDIsStoredInLowerCase() async throws {
            try await withServer { (_: TestServer, client: TestClient) async throws in
                let response = #"{"assertion":{"subject":{"nameId":"otherEmail@gmail.com"},"attributeStatements":{"name":"Jane Doe"}}}"#
                let reply = try await client.post("/v1/accounts:signInWithIdp", [
                    "postBody": .string(FormURLEncoding.encode([
                        ("providerId", "saml.saml"), ("id_token", #"{"sub":"s-1"}"#), ("SAMLResponse", response),
                    ])),
                    "requestUri": "http://localhost", "returnIdpCredential": true, "returnSecureToken": true,
                ])
                #expect(reply["email"] == "otheremail@gmail.com", "\(reply.body)")
                // The rest of the case, as the spec has it: the attributes as rawUserInfo and in the ID token.
                #expect(reply.string("rawUserInfo") == #"{"name":"Jane Doe"}"#)
                #expect(claims(of: reply.string("idToken"))["firebase"]?["sign_in_attributes"] == ["name": "Jane Doe"])
            }
        }

        // MARK: mfa.spec.ts

        /// `mfaSignIn:start` and `:finalize` refuse first when the realm has no SMS second factor, before looking at
        /// what the request carries (here nothing).
        @Test(arguments: [
            ["state": "DISABLED"] as JSONValue,
            ["state": "ENABLED", "enabledProviders": ["PROVIDER_UNSPECIFIED"]],
        ])
        func secondFactorSignInNeedsSMSSecondFactorsOn(mfaConfig: JSONValue) async throws {
            try await withServer { (server: TestServer, client: TestClient) async throws in
                let tenantID = try await Self.registerTenant(client, server, ["disableAuth": false, "mfaConfig": mfaConfig])
                for step in ["start", "finalize"] {
                    let reply = try await client.post("/v2/accounts/mfaSignIn:\(step)", ["tenantId": .string(tenantID)])
                    #expect(reply.status == 400 && reply.errorMessage?.contains("OPERATION_NOT_ALLOWED") == true, "\(reply.body)")
                }
            }
        }

        /// Withdrawing the last factor answers new tokens without second-factor claims. Deliberate: the record then
        /// has no `mfaInfo` at all (the emulator shows `[]`).
        @Test func withdrawingMFAForAUser() async throws {
            try await withServer { (server: TestServer, client: TestClient) async throws in
                let signedIn = try await client.signInWithLink("foo@example.com", server: server)
                let enrolled = try await MultiFactorAPITests.enrollPhone(
                    client, server, idToken: try #require(signedIn.string("idToken")), number: "+15555550100")
                let idToken = try #require(enrolled.string("idToken"), "\(enrolled.body)")
                let factors = try #require(try await client.lookup(idToken: idToken).firstUser?["mfaInfo"]?.arrayValue)
                #expect(factors.count == 1)
                let withdrawn = try await client.post("/v2/accounts/mfaEnrollment:withdraw", [
                    "idToken": .string(idToken), "mfaEnrollmentId": factors[0]["mfaEnrollmentId"] ?? .null,
                ])
                #expect(withdrawn.status == 200 && withdrawn.string("refreshToken") != nil, "\(withdrawn.body)")
                let firebase = claims(of: withdrawn.string("idToken"))["firebase"]
                #expect(firebase?["sign_in_second_factor"] == nil && firebase?["second_factor_identifier"] == nil)
                let after = try await client.lookup(idToken: withdrawn.string("idToken"))
                #expect(after.status == 200 && after.firstUser?["mfaInfo"] == nil, "\(after.body)")
            }
        }

        /// With multi-factor switched off, a user's enrolled factors are not asked: the first factor signs in (the
        /// emulator's rule; `mfaSignIn:*` would refuse to finish a challenge).
        @Test func factorsAreNotAskedWhileMultiFactorIsOff() async throws {
            try await withServer { (server: TestServer, client: TestClient) async throws in
                let user = try await MultiFactorAPITests.verifiedUser(client)
                let enrolled = try await MultiFactorAPITests.enrollPhone(
                    client, server, idToken: try #require(user.string("idToken")), number: "+15555550111")
                #expect(enrolled.status == 200, "\(enrolled.body)")
                let signIn: () async throws -> TestClient.Reply = {
                    try await client.post("/v1/accounts:signInWithPassword", [
                        "email": "ada@example.com", "password": .string(MultiFactorAPITests.password), "returnSecureToken": true,
                    ])
                }
                #expect(try await signIn()["mfaPendingCredential"] != nil)
                let off = try await client.send(
                    "PATCH", "/v2/projects/\(server.projectID)/config?updateMask=mfa",
                    body: Data(#"{"mfa":{"state":"DISABLED"}}"#.utf8), headers: Self.owner, includeKey: false)
                #expect(off.status == 200, "\(off.body)")
                let first = try await signIn()
                #expect(first["idToken"] != nil && first["mfaPendingCredential"] == nil, "\(first.body)")
            }
        }

        // MARK: firebase-admin's user_metadata

        /// Every sign-in is also the account's last refresh (`lastRefreshAt`), in both modes, as Firebase records it.
        @Test(arguments: [true, false])
        func aSignInIsTheLastRefresh(emulator: Bool) async throws {
            let clock = TestClock()
            try await withServer(emulator: emulator, clock: clock) { (_: TestServer, client: TestClient) async throws in
                _ = try await client.signUp(email: "ada@example.com", password: "secret123")
                clock.advance(seconds: 3600)
                let signedIn = try await client.post("/v1/accounts:signInWithPassword", [
                    "email": "ada@example.com", "password": "secret123", "returnSecureToken": true,
                ])
                let record = try #require(try await client.lookup(idToken: signedIn.string("idToken")).firstUser)
                let lastLogin = try #require(record["lastLoginAt"]?.stringValue.flatMap { Int64($0) })
                #expect(record["lastRefreshAt"]?.stringValue.flatMap(UserRecord.milliseconds(iso8601:)) == lastLogin, "\(record)")
                #expect(lastLogin == clock.milliseconds)
            }
        }

        // MARK: oob.spec.ts

        @Test func resetPasswordIsRefusedWherePasswordsAreOff() async throws {
            try await withServer { (server: TestServer, client: TestClient) async throws in
                let tenantID = try await Self.registerTenant(client, server, ["disableAuth": false, "allowPasswordSignup": false])
                let reply = try await client.post("/v1/accounts:resetPassword", ["tenantId": .string(tenantID)])
                #expect(reply.status == 400 && reply.errorMessage == "PASSWORD_LOGIN_DISABLED", "\(reply.body)")
            }
        }

        /// With enumeration protection, even an admin's reset link for an unknown address answers the address alone.
        @Test func anUnknownAddressGetsNoResetLinkUnderEmailPrivacy() async throws {
            try await withServer { (server: TestServer, client: TestClient) async throws in
                let patched = try await client.send(
                    "PATCH", "/emulator/v1/projects/\(server.projectID)/config",
                    body: Data(#"{"emailPrivacyConfig":{"enableImprovedEmailPrivacy":true}}"#.utf8), includeKey: false)
                #expect(patched.status == 200, "\(patched.body)")
                let reply = try await client.admin("/v1/accounts:sendOobCode", [
                    "email": "alice@example.com", "requestType": "PASSWORD_RESET", "returnOobLink": true,
                ])
                #expect(reply.status == 200, "\(reply.body)")
                #expect(reply["kind"] == "identitytoolkit#GetOobConfirmationCodeResponse" && reply["email"] == "alice@example.com")
                #expect(reply["oobLink"] == nil && reply["oobCode"] == nil)
            }
        }

        // MARK: setAccountInfo.spec.ts

        /// An admin's factor update reads the number from `phoneInfo` only: a record's `unobfuscatedPhoneInfo` is not
        /// taken in its place.
        @Test func aSecondFactorUpdateNeedsAValidPhoneInfo() async throws {
            try await withServer { (_: TestServer, client: TestClient) async throws in
                let bob = try await client.post("/v1/accounts:signUp", [
                    "email": "bob@example.com", "password": "notasecret", "mfaInfo": [EmulatorSpec.SignUp.factor],
                ])
                let localID = try #require(bob["localId"])
                let record = try #require(try await client.lookup(idToken: bob.string("idToken")).firstUser)
                guard case .object(var factor)? = record["mfaInfo"]?.arrayValue?.first else {
                    Issue.record("no factor in \(record)")
                    return
                }
                #expect(factor["unobfuscatedPhoneInfo"] == "+15555550100")
                for phoneInfo in [nil, "+1234"] as [JSONValue?] {
                    factor["phoneInfo"] = phoneInfo
                    let reply = try await client.admin("/v1/accounts:update", [
                        "localId": localID, "mfa": ["enrollments": [.object(factor)]],
                    ])
                    #expect(reply.status == 400 && reply.errorMessage == "INVALID_MFA_PHONE_NUMBER : Invalid format.", "\(reply.body)")
                }
            }
        }

        /// A linked provider account is answered and stored as sent. Deliberate: with `federatedId` (= `rawId`) added,
        /// as production's answers carry it.
        @Test func aLinkedProviderAccountIsShownAsSentWithItsFederatedID() async throws {
            try await withServer { (_: TestServer, client: TestClient) async throws in
                let user = try await client.signUp(email: "test@example.com", password: "password")
                let sent: [String: JSONValue] = [
                    "providerId": "google.com", "rawId": "google_user_id", "email": "linked@example.com",
                    "displayName": "Linked User", "photoUrl": "https://example.com/photo.jpg",
                ]
                var expected = sent
                expected["federatedId"] = "google_user_id"
                let linked = try await client.post("/v1/accounts:update", [
                    "idToken": user["idToken"] ?? .null, "linkProviderUserInfo": .object(sent),
                ])
                let answered = linked["providerUserInfo"]?.arrayValue ?? []
                #expect(answered.count == 2, "\(linked.body)")
                #expect(answered.first { $0["providerId"] == "google.com" } == .object(expected))
                let stored = try await client.lookup(idToken: user.string("idToken")).firstUser?["providerUserInfo"]?.arrayValue ?? []
                #expect(stored.first { $0["providerId"] == "google.com" } == .object(expected))
            }
        }
    }
}
