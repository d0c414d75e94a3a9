@testable import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
import Testing

/// Emulator mode against what the official Auth emulator's own spec says, grouped by the spec file each
/// behaviour comes from (firebase-tools `src/emulator/auth/*.spec.ts`). Our own tests, on our own server.
enum EmulatorSpec {
    /// `misc.spec.ts`: the emulator's utility endpoints.
    @Suite struct Misc {
        /// After a reset, the code listings hold only what was sent since: a client that takes the newest
        /// code from a listing never gets a stale one.
        @Test(arguments: TestDatabase.allCases)
        func resetClearsAccountsAndEveryPendingCode(database: TestDatabase) async throws {
            try await withServer(database: database) { (server: TestServer, client: TestClient) async throws in
                _ = try await client.signUp(email: "before@example.com", password: "secret123")
                _ = try await client.sendSignInLink("before@example.com")
                #expect(try await client.post("/v1/accounts:sendVerificationCode", ["phoneNumber": "+15555550100"]).status == 200)
                #expect(try await client.oobCodes(server).count == 1)
                #expect(try await client.verificationCodes(server).count == 1)

                let reset = try await client.send("DELETE", "/emulator/v1/projects/\(server.projectID)/accounts", includeKey: false)
                #expect(reset.status == 200)
                #expect(try await client.oobCodes(server).isEmpty)
                #expect(try await client.verificationCodes(server).isEmpty)
                #expect(try await client.admin("/v1/accounts:lookup", ["email": ["before@example.com"]]).firstUser == nil)

                _ = try await client.sendSignInLink("after@example.com")
                let codes = try await client.oobCodes(server)
                #expect(codes.count == 1)
                #expect(codes.first?["email"] == "after@example.com")
            }
        }
    }

    /// `oob.spec.ts`: `accounts:sendOobCode` in emulator mode.
    @Suite struct Oob {
        /// A sign-in link needs no continue URL, and one on any domain is accepted: the official JS SDK's
        /// `sendSignInLinkToEmail` with the app's own URL works without configuring authorized domains.
        @Test func signInLinksNeedNoContinueURLAndAnyDomainWorks() async throws {
            try await withServer { (server: TestServer, client: TestClient) async throws in
                let bare = try await client.post("/v1/accounts:sendOobCode", ["requestType": "EMAIL_SIGNIN", "email": "a@example.com"])
                #expect(bare.status == 200, "\(bare.body)")
                let elsewhere = try await client.post("/v1/accounts:sendOobCode", [
                    "requestType": "EMAIL_SIGNIN", "email": "b@example.com", "continueUrl": "https://my-app.example.org/finish",
                ])
                #expect(elsewhere.status == 200, "\(elsewhere.body)")
                let entry = try await client.oobCodes(server).first { $0["email"] == "b@example.com" }
                let link = try #require(entry?["oobLink"]?.stringValue.flatMap(URLComponents.init(string:)))
                #expect(link.queryItems?.first { $0.name == "continueUrl" }?.value == "https://my-app.example.org/finish")
                let invalid = try await client.post("/v1/accounts:sendOobCode", [
                    "requestType": "EMAIL_SIGNIN", "email": "c@example.com", "continueUrl": "not a url",
                ])
                #expect(invalid.errorCode == "INVALID_CONTINUE_URI")
            }
        }

        /// Production keeps both rules.
        @Test func productionStillRequiresAnAuthorizedContinueURL() async throws {
            try await withServer(emulator: false) { (server: TestServer, client: TestClient) async throws in
                _ = try await server.server.updateProjectConfig(
                    server.projectID, ProjectConfig(signIn: .init(email: .init(enabled: true, passwordRequired: false))),
                    updateMask: "signIn.email")
                let bare = try await client.post("/v1/accounts:sendOobCode", ["requestType": "EMAIL_SIGNIN", "email": "a@example.com"])
                #expect(bare.errorCode == "MISSING_CONTINUE_URI")
                let elsewhere = try await client.post("/v1/accounts:sendOobCode", [
                    "requestType": "EMAIL_SIGNIN", "email": "b@example.com", "continueUrl": "https://my-app.example.org/finish",
                ])
                #expect(elsewhere.errorCode == "UNAUTHORIZED_DOMAIN")
            }
        }

        @Test func verifyEmailErrors() async throws {
            try await withServer { (_: TestServer, client: TestClient) async throws in
                // An admin link for an address nobody has.
                let unknown = try await client.admin("/v1/accounts:sendOobCode", [
                    "requestType": "VERIFY_EMAIL", "email": "nobody@example.com", "returnOobLink": true,
                ])
                #expect(unknown.errorCode == "USER_NOT_FOUND", "\(unknown.body)")
                // A signed-in account without an address.
                let anonymous = try await client.signUp()
                let missing = try await client.post("/v1/accounts:sendOobCode", [
                    "requestType": "VERIFY_EMAIL", "idToken": try #require(anonymous["idToken"]),
                ])
                #expect(missing.errorCode == "MISSING_EMAIL", "\(missing.body)")
            }
        }
    }
}

extension EmulatorSpec {
    /// `batch.spec.ts`: imports and bulk deletes as a whole (the same rules hold in production).
    @Suite struct Batch {
        @Test func importsAreCheckedAsAWhole() async throws {
            try await withServer { (_: TestServer, client: TestClient) async throws in
                let batchCreate = "/v1/projects/demo-flint/accounts:batchCreate"
                #expect(try await client.admin(batchCreate, [:]).errorCode == "MISSING_USER_ACCOUNT")
                #expect(try await client.admin(batchCreate, ["users": []]).errorCode == "MISSING_USER_ACCOUNT")
                let twice: JSONValue = [["localId": "same"], ["localId": "same"]]
                #expect(try await client.admin(batchCreate, ["users": twice]).errorMessage == "DUPLICATE_LOCAL_ID : same")
                #expect(try await client.admin(batchCreate, ["users": twice, "allowOverwrite": true]).status == 200)

                let sameEmail: JSONValue = [["localId": "a", "email": "x@example.com"], ["localId": "b", "email": "X@example.com"]]
                #expect(try await client.admin(batchCreate, ["users": sameEmail, "sanityCheck": true]).errorMessage
                    == "DUPLICATE_EMAIL : x@example.com")
                let sameAccount: JSONValue = [
                    ["localId": "c", "providerUserInfo": [["providerId": "google.com", "rawId": "g-1"]]],
                    ["localId": "d", "providerUserInfo": [["providerId": "google.com", "rawId": "g-1"]]],
                ]
                #expect(try await client.admin(batchCreate, ["users": sameAccount, "sanityCheck": true]).errorMessage
                    == "DUPLICATE_RAW_ID : Provider id(google.com), Raw id(g-1)")
                // A refused request imports nothing.
                #expect(try await client.admin("/v1/accounts:lookup", ["localId": ["a", "c"]]).firstUser == nil)
            }
        }

        @Test func bulkDeletesNameOneToAThousandUsers() async throws {
            try await withServer { (_: TestServer, client: TestClient) async throws in
                let none = try await client.admin("/v1/projects/demo-flint/accounts:batchDelete", ["localIds": []])
                #expect(none.errorCode == "LOCAL_ID_LIST_EXCEEDS_LIMIT")
                let many = try await client.admin("/v1/projects/demo-flint/accounts:batchDelete", [
                    "localIds": .array((0...1000).map { .string("u\($0)") }),
                ])
                #expect(many.errorCode == "LOCAL_ID_LIST_EXCEEDS_LIMIT")
            }
        }
    }
}

extension EmulatorSpec {
    /// Expired versus invalid, as Firebase tells them apart (both modes): an expired phone session is
    /// `SESSION_EXPIRED` and an expired email code `EXPIRED_OOB_CODE`, also after the janitor's sweep, for a
    /// day; only then are they gone (`INVALID_SESSION_INFO`, `INVALID_OOB_CODE`).
    @Suite struct Expiry {
        @Test(arguments: TestDatabase.allCases)
        func expiredCodesAreToldApartFromInvalidOnes(database: TestDatabase) async throws {
            try await withServer(database: database) { (server: TestServer, client: TestClient) async throws in
                let number = "+15555550142"
                let sessionInfo = try await client.sendCode(number)
                let code = try #require(server.log.smsCodes(to: number).last)
                _ = try await client.sendSignInLink("late@example.com")
                let oobCode = try #require(try await client.oobCodes(server).last?["oobCode"])

                server.clock.advance(seconds: 7 * 3600)
                try await server.server.janitor.sweep()
                for _ in 0..<2 {
                    #expect(try await client.verify(sessionInfo, code).errorCode == "SESSION_EXPIRED")
                    let late = try await client.post("/v1/accounts:signInWithEmailLink", ["email": "late@example.com", "oobCode": oobCode])
                    #expect(late.errorCode == "EXPIRED_OOB_CODE")
                }

                server.clock.advance(seconds: Double(Janitor.expiredCodeRetentionMilliseconds / 1000))
                try await server.server.janitor.sweep()
                #expect(try await client.verify(sessionInfo, code).errorCode == "INVALID_SESSION_INFO")
                let gone = try await client.post("/v1/accounts:signInWithEmailLink", ["email": "late@example.com", "oobCode": oobCode])
                #expect(gone.errorCode == "INVALID_OOB_CODE")
            }
        }
    }
}

extension TestClient {
    /// The emulator's phone-code listing.
    func verificationCodes(_ server: TestServer) async throws -> [JSONValue] {
        try await send("GET", "/emulator/v1/projects/\(server.projectID)/verificationCodes", includeKey: false)["verificationCodes"]?
            .arrayValue ?? []
    }
}

extension EmulatorSpec {
    /// `mfa.spec.ts`: phone second factors in emulator mode (the same rules hold in production).
    @Suite struct Mfa {
        @Test func enrollmentNeedsAnEligibleFirstFactorAndAVerifiedEmail() async throws {
            try await withServer { (server: TestServer, client: TestClient) async throws in
                let unverified = try await client.signUp(email: "unverified@example.com", password: "testing")
                let start: (JSONValue, String) async throws -> TestClient.Reply = { idToken, number in
                    try await client.post("/v2/accounts/mfaEnrollment:start", [
                        "idToken": idToken, "phoneEnrollmentInfo": ["phoneNumber": .string(number)],
                    ])
                }
                #expect(try await start(try #require(unverified["idToken"]), "+15555550100").errorMessage
                    == "UNVERIFIED_EMAIL : Need to verify email first before enrolling second factors.")

                // A phone sign-in cannot take a phone second factor, even with a verified address.
                let phoneUser = try await client.signInWithPhone("+15555550100", server: server)
                let localID = try #require(phoneUser["localId"])
                #expect(try await client.admin("/v1/accounts:update", [
                    "localId": localID, "email": "bob@example.com", "emailVerified": true,
                ]).status == 200)
                #expect(try await start(try #require(phoneUser["idToken"]), "+15555550101").errorMessage
                    == "UNSUPPORTED_FIRST_FACTOR : MFA is not available for the given first factor.")
                let anonymous = try await client.signUp()
                #expect(try await start(try #require(anonymous["idToken"]), "+15555550101").errorCode == "UNSUPPORTED_FIRST_FACTOR")
            }
        }

        @Test func aNumberIsEnrolledOnce() async throws {
            try await withServer { (server: TestServer, client: TestClient) async throws in
                let signedIn = try await client.signInWithLink("foo@example.com", server: server)
                let idToken = try #require(signedIn.string("idToken"))
                let enrolled = try await MultiFactorAPITests.enrollPhone(client, server, idToken: idToken, number: "+15555550100")
                #expect(enrolled.status == 200, "\(enrolled.body)")
                let again = try await client.post("/v2/accounts/mfaEnrollment:start", [
                    "idToken": .string(idToken), "phoneEnrollmentInfo": ["phoneNumber": "+15555550100"],
                ])
                #expect(again.errorMessage == "SECOND_FACTOR_EXISTS : Phone number already enrolled as second factor for this account.")
            }
        }
    }

    /// `phone.spec.ts`: phone sign-in in emulator mode.
    @Suite struct Phone {
        @Test func placeholderRecaptchaParams() async throws {
            try await withServer { (_: TestServer, client: TestClient) async throws in
                for path in ["/identitytoolkit.googleapis.com/v1/recaptchaParams", "/www.googleapis.com/identitytoolkit/v3/relyingparty/getRecaptchaParam"] {
                    let params = try await client.send("GET", path)
                    #expect(params.status == 200)
                    #expect(params.string("recaptchaStoken")?.isEmpty == false)
                    #expect(params.string("recaptchaSiteKey")?.isEmpty == false)
                }
            }
            try await withServer(emulator: false) { (_: TestServer, client: TestClient) async throws in
                #expect(try await client.send("GET", "/v1/recaptchaParams").status == 404)
            }
        }

        @Test func aMissingNumberIsAnInvalidOne() async throws {
            try await withServer { (_: TestServer, client: TestClient) async throws in
                let missing = try await client.post("/v1/accounts:sendVerificationCode", ["recaptchaToken": "ignored"])
                #expect(missing.errorMessage == "INVALID_PHONE_NUMBER : Invalid format.")
            }
        }

        /// A phone number is no first factor for an account with second factors: no code is sent to it,
        /// and it cannot be linked to one.
        @Test func accountsWithSecondFactorsTakeNoPhoneFirstFactor() async throws {
            try await withServer { (server: TestServer, client: TestClient) async throws in
                let signedIn = try await MultiFactorAPITests.verifiedUser(client, email: "alice@example.com")
                let localID = try #require(signedIn["localId"])
                let idToken = try #require(signedIn.string("idToken"))
                #expect(try await client.admin("/v1/accounts:update", ["localId": localID, "phoneNumber": "+15555550100"]).status == 200)
                #expect(try await MultiFactorAPITests.enrollPhone(client, server, idToken: idToken, number: "+15555550101").status == 200)

                let refused = try await client.post("/v1/accounts:sendVerificationCode", ["phoneNumber": "+15555550100"])
                #expect(refused.errorMessage
                    == "UNSUPPORTED_FIRST_FACTOR : A phone number cannot be set as a first factor on an SMS based MFA user.")
                #expect(try await client.verificationCodes(server).isEmpty)

                // Linking another number onto the account with factors.
                let sessionInfo = try await client.sendCode("+15555550103")
                let code = try #require(server.log.smsCodes(to: "+15555550103").last)
                let linked = try await client.post("/v1/accounts:signInWithPhoneNumber", [
                    "sessionInfo": .string(sessionInfo), "code": .string(code), "idToken": .string(idToken),
                ])
                #expect(linked.errorCode == "UNSUPPORTED_FIRST_FACTOR", "\(linked.body)")
            }
        }
    }

    /// `password.spec.ts`: password sign-in's errors.
    @Suite struct Password {
        @Test func anAbsentEmailIsMissingAnEmptyOneInvalid() async throws {
            try await withServer { (_: TestServer, client: TestClient) async throws in
                #expect(try await client.post("/v1/accounts:signInWithPassword", ["password": "notasecret"]).errorCode == "MISSING_EMAIL")
                #expect(try await client.post("/v1/accounts:signInWithPassword", ["email": "", "password": "x1"]).errorCode == "INVALID_EMAIL")
                #expect(try await client.post("/v1/accounts:signInWithPassword", ["email": "a@example.com"]).errorCode == "MISSING_PASSWORD")
            }
        }
    }
}

extension TestClient {
    /// Emulator-mode `signInWithIdp` with unsigned claims, as the official emulator's tests sign in.
    func signInWithFakeClaims(_ providerID: String, _ claims: [String: JSONValue], idToken: JSONValue? = nil,
                              returnIdpCredential: Bool = true) async throws -> Reply {
        let json = String(decoding: try JSONEncoder().encode(JSONValue.object(claims)), as: UTF8.self)
        var body: [String: JSONValue] = [
            "postBody": .string(FormURLEncoding.encode([("providerId", providerID), ("id_token", json)])),
            "requestUri": "http://localhost", "returnIdpCredential": .bool(returnIdpCredential), "returnSecureToken": true,
        ]
        if let idToken { body["idToken"] = idToken }
        return try await post("/v1/accounts:signInWithIdp", body)
    }

    /// `createAuthUri`'s `signinMethods` for an address.
    func signInMethods(_ email: String) async throws -> [String]? {
        try await post("/v1/accounts:createAuthUri", ["continueUri": "http://example.com/", "identifier": .string(email)])["signinMethods"]?
            .arrayValue?.compactMap(\.stringValue)
    }

    /// Turns the project's one-account-per-email rule off (emulator config endpoint).
    func allowDuplicateEmails(_ server: TestServer) async throws {
        let reply = try await send("PATCH", "/emulator/v1/projects/\(server.projectID)/config",
                                   body: Data(#"{"signIn":{"allowDuplicateEmails":true}}"#.utf8), includeKey: false)
        #expect(reply.status == 200, "\(reply.body)")
    }
}

extension EmulatorSpec {
    /// `signUp.spec.ts`.
    @Suite struct SignUp {
        static let factor: JSONValue = ["displayName": "Cell Phone", "phoneInfo": "+15555550100"]

        @Test func secondFactorsAtSignUpAreKeptOncePerNumberWithNewIDs() async throws {
            try await withServer { (_: TestServer, client: TestClient) async throws in
                let second: JSONValue = ["phoneInfo": "+15555550101"]
                let withID: JSONValue = ["displayName": "Cell Phone", "phoneInfo": "+15555550100", "mfaEnrollmentId": "ignored"]
                let signedUp = try await client.post("/v1/accounts:signUp", [
                    "email": "alice@example.com", "password": "notasecret", "mfaInfo": [withID, Self.factor, Self.factor, second],
                ])
                #expect(signedUp.status == 200, "\(signedUp.body)")
                let user = try await client.admin("/v1/accounts:lookup", ["localId": [try #require(signedUp["localId"])]]).firstUser
                let factors = try #require(user?["mfaInfo"]?.arrayValue)
                #expect(factors.map { $0["phoneInfo"] } == ["+15555550100", "+15555550101"])
                #expect(factors.first?["displayName"] == "Cell Phone" && factors.last?["displayName"] == nil)
                #expect(factors.allSatisfy { ($0["mfaEnrollmentId"]?.stringValue ?? "ignored") != "ignored" })

                let invalid = try await client.admin("/v1/accounts:signUp", [
                    "email": "bob@example.com", "password": "notasecret", "mfaInfo": [["phoneInfo": "5555550100"]],
                ])
                #expect(invalid.errorMessage == "INVALID_MFA_PHONE_NUMBER : Invalid format.")
            }
            // Production takes second factors from admins and verified enrollments only.
            try await withServer(emulator: false) { (_: TestServer, client: TestClient) async throws in
                let refused = try await client.post("/v1/accounts:signUp", [
                    "email": "alice@example.com", "password": "notasecret", "mfaInfo": [Self.factor],
                ])
                #expect(refused.status == 403)
            }
        }

        @Test func requestChecks() async throws {
            try await withServer { (_: TestServer, client: TestClient) async throws in
                #expect(try await client.post("/v1/accounts:signUp", ["email": "", "password": ""]).errorCode == "INVALID_EMAIL")
                #expect(try await client.post("/v1/accounts:signUp", ["localId": "anything"]).errorMessage == "UNEXPECTED_PARAMETER : User ID")
                let anonymous = try await client.post("/v1/accounts:signUp", ["displayName": "Me", "photoUrl": "http://localhost/me.png"])
                #expect(anonymous["displayName"] == nil)
                #expect(try await client.lookup(idToken: anonymous.string("idToken")).firstUser?["displayName"] == nil)
                #expect(try await client.admin("/v1/accounts:signUp", ["idToken": anonymous["idToken"] ?? .null, "localId": "x"])
                    .errorMessage == "UNEXPECTED_PARAMETER : User ID")

                let created = try await client.admin("/v1/accounts:signUp", ["phoneNumber": "+15555550100", "displayName": "Alice"])
                #expect(created.string("displayName") == "Alice" && created["idToken"] == nil)
            }
        }

        @Test func aLinkedSignUpReplacesEmailAndPassword() async throws {
            try await withServer { (_: TestServer, client: TestClient) async throws in
                let alice = try await client.signUp(email: "alice@example.com", password: "notasecret")
                let replaced = try await client.post("/v1/accounts:signUp", [
                    "idToken": alice["idToken"] ?? .null, "email": "bob@example.com", "password": "notasecret2",
                ])
                #expect(replaced.string("localId") == alice.string("localId"), "\(replaced.body)")
                #expect(replaced.string("email") == "bob@example.com")
                #expect(try await client.signInMethods("alice@example.com") == [])
            }
        }
    }

    /// `setAccountInfo.spec.ts`.
    @Suite struct SetAccountInfo {
        @Test func userUpdatesAnswerWithTokensAndOwnRevocation() async throws {
            try await withServer { (_: TestServer, client: TestClient) async throws in
                let first = try await client.signUp(email: "alice@example.com", password: "notasecret")
                let changed = try await client.post("/v1/accounts:update", ["idToken": first["idToken"] ?? .null, "password": "notasecreteither"])
                let second = try #require(changed["idToken"], "\(changed.body)")
                #expect(changed["refreshToken"] != nil)
                #expect(claims(of: second.stringValue)["firebase"]?["sign_in_provider"] == "password")
                #expect(try await client.lookup(idToken: first.string("idToken")).errorCode == "TOKEN_EXPIRED")

                let revoked = try await client.post("/v1/accounts:update", ["idToken": second, "validSince": "0"])
                #expect(revoked.status == 200, "\(revoked.body)")
                #expect(try await client.lookup(idToken: second.stringValue).errorCode == "TOKEN_EXPIRED")
                #expect(try await client.lookup(idToken: revoked.string("idToken")).status == 200)
            }
            try await withServer(emulator: false) { (_: TestServer, client: TestClient) async throws in
                let user = try await client.signUp(email: "alice@example.com", password: "notasecret")
                let revoked = try await client.post("/v1/accounts:update", ["idToken": user["idToken"] ?? .null, "validSince": "0"])
                #expect(revoked.status == 403)
            }
        }

        /// A user who replaces an address is told at the old one, with a link that puts it back.
        @Test func anEmailChangeSendsARecoveryCode() async throws {
            try await withServer { (server: TestServer, client: TestClient) async throws in
                let alice = try await client.signUp(email: "alice@example.com", password: "notasecret")
                let changed = try await client.post("/v1/accounts:update", ["idToken": alice["idToken"] ?? .null, "email": "bob@example.com"])
                #expect(changed.string("email") == "bob@example.com", "\(changed.body)")
                let codes = try await client.oobCodes(server)
                #expect(codes.count == 1)
                #expect(codes.first?["email"] == "alice@example.com" && codes.first?["requestType"] == "RECOVER_EMAIL")
                let recovered = try await client.post("/v1/accounts:update", ["oobCode": codes.first?["oobCode"] ?? .null])
                #expect(recovered.string("email") == "alice@example.com")
                #expect(recovered["emailVerified"] == true)

                // An anonymous user adding an address has none to recover.
                let anonymous = try await client.signUp()
                _ = try await client.post("/v1/accounts:update", ["idToken": anonymous["idToken"] ?? .null, "email": "carol@example.com"])
                #expect(try await client.oobCodes(server).filter { $0["email"] == "carol@example.com" }.isEmpty)
            }
        }

        @Test func adminSecondFactorUpdates() async throws {
            try await withServer { (_: TestServer, client: TestClient) async throws in
                let bob = try await client.post("/v1/accounts:signUp", [
                    "email": "bob@example.com", "password": "notasecret", "mfaInfo": [EmulatorSpec.SignUp.factor],
                ])
                let localID = try #require(bob["localId"])
                func update(_ enrollments: JSONValue) async throws -> TestClient.Reply {
                    try await client.admin("/v1/accounts:update", ["localId": localID, "mfa": ["enrollments": enrollments]])
                }
                #expect(try await update([["phoneInfo": "+15555550101"]]).errorMessage == "INVALID_MFA_ENROLLMENT_ID : mfaEnrollmentId must be defined.")
                #expect(try await update([["mfaEnrollmentId": "x"]]).errorMessage == "INVALID_MFA_PHONE_NUMBER : Invalid format.")
                #expect(try await update([["mfaEnrollmentId": "x", "phoneInfo": "+15555550101"], ["mfaEnrollmentId": "x", "phoneInfo": "+15555550102"]])
                    .errorMessage == "DUPLICATE_MFA_ENROLLMENT_ID")
                #expect(try await update([["mfaEnrollmentId": "id2", "phoneInfo": "+15555550101", "displayName": "Second"]]).status == 200)
                let after = try await client.post("/v1/accounts:lookup", ["idToken": bob["idToken"] ?? .null]).firstUser
                #expect(after?["mfaInfo"]?.arrayValue?.map { $0["mfaEnrollmentId"] } == ["id2"])
                #expect(try await update([]).status == 200)
                #expect(try await client.post("/v1/accounts:lookup", ["idToken": bob["idToken"] ?? .null]).firstUser?["mfaInfo"] == nil)

                let malformed = try await client.admin("/v1/accounts:update", ["localId": "anything", "mfa": ["enrollments": .null]])
                #expect(malformed.errorMessage == "Invalid JSON payload received. /mfa/enrollments must be array")
            }
        }

        @Test func usersLinkProviderAccountsInEmulatorMode() async throws {
            try await withServer { (_: TestServer, client: TestClient) async throws in
                let user = try await client.signUp(email: "test@example.com", password: "password")
                let idToken = try #require(user["idToken"])
                let info: JSONValue = [
                    "providerId": "google.com", "rawId": "google_user_id", "email": "linked@example.com", "displayName": "Linked User",
                ]
                let linked = try await client.post("/v1/accounts:update", ["idToken": idToken, "linkProviderUserInfo": info])
                #expect(linked["providerUserInfo"]?.arrayValue?.count == 2, "\(linked.body)")
                #expect(try await client.post("/v1/accounts:update", [
                    "idToken": idToken, "linkProviderUserInfo": ["providerId": "github.com", "email": "x@example.com"],
                ]).errorCode == "MISSING_RAW_ID")
                #expect(try await client.post("/v1/accounts:update", [
                    "idToken": idToken, "linkProviderUserInfo": ["providerId": "", "rawId": "r"],
                ]).errorCode == "MISSING_PROVIDER_ID")
            }
        }
    }

    /// `deleteAccount.spec.ts`.
    @Suite struct DeleteAccount {
        @Test func adminsNameTheAccount() async throws {
            try await withServer { (_: TestServer, client: TestClient) async throws in
                let alice = try await client.signUp(email: "alice@example.com", password: "notasecret")
                #expect(try await client.admin("/v1/accounts:delete", ["idToken": alice["idToken"] ?? .null]).errorCode == "MISSING_LOCAL_ID")
                #expect(try await client.lookup(idToken: alice.string("idToken")).status == 200)
            }
        }
    }
}

extension EmulatorSpec {
    /// `createAuthUri.spec.ts`.
    @Suite struct CreateAuthUri {
        @Test func requestChecksAndSessionID() async throws {
            try await withServer { (_: TestServer, client: TestClient) async throws in
                let path = "/v1/accounts:createAuthUri"
                #expect(try await client.post(path, ["continueUri": "http://example.com/"]).errorMessage == "MISSING_IDENTIFIER")
                #expect(try await client.post(path, ["identifier": "me@example.com"]).errorMessage == "MISSING_CONTINUE_URI")
                #expect(try await client.post(path, ["identifier": "me@example.com", "continueUri": "invalid"]).errorMessage
                    == "INVALID_CONTINUE_URI")
                let echoed = try await client.post(path, [
                    "identifier": "nobody@example.com", "continueUri": "http://example.com/", "sessionId": "my-session-1",
                ])
                #expect(echoed["sessionId"] == "my-session-1" && echoed["registered"] == false)
            }
        }

        @Test func providerEmailsLeadToTheirAccounts() async throws {
            try await withServer { (server: TestServer, client: TestClient) async throws in
                let google = try await client.signInWithFakeClaims("google.com", ["sub": "12345", "email": "alice@example.com"])
                let oobCode = try await client.admin("/v1/accounts:sendOobCode", [
                    "email": "bob@example.com", "requestType": "EMAIL_SIGNIN", "returnOobLink": true,
                ])["oobCode"]
                let linked = try await client.post("/v1/accounts:signInWithEmailLink", [
                    "email": "bob@example.com", "oobCode": oobCode ?? .null, "idToken": google["idToken"] ?? .null,
                ])
                #expect(linked.status == 200, "\(linked.body)")
                for email in ["bob@example.com", "alice@example.com"] {
                    let answer = try await client.post("/v1/accounts:createAuthUri", ["continueUri": "http://example.com/", "identifier": .string(email)])
                    #expect(answer["registered"] == true)
                    #expect(Set(answer["allProviders"]?.arrayValue?.compactMap(\.stringValue) ?? []) == ["password", "google.com"])
                    #expect(Set(answer["signinMethods"]?.arrayValue?.compactMap(\.stringValue) ?? []) == ["emailLink", "google.com"])
                }
                // With several accounts per email, provider accounts are their own: only the email-link method of
                // the account found shows, whether by its address or by its provider's.
                try await client.allowDuplicateEmails(server)
                for email in ["bob@example.com", "alice@example.com"] {
                    let answer = try await client.post("/v1/accounts:createAuthUri", ["continueUri": "http://example.com/", "identifier": .string(email)])
                    #expect(answer["registered"] == true && answer["allProviders"] == ["password"], "\(answer.body)")
                    #expect(answer["signinMethods"] == ["emailLink"])
                }
            }
        }
    }

    /// `customToken.spec.ts`.
    @Suite struct CustomToken {
        @Test func aTokenWithoutUIDIsMissingItsIdentifier() async throws {
            try await withServer { (_: TestServer, client: TestClient) async throws in
                let reply = try await client.post("/v1/accounts:signInWithCustomToken", ["token": #"{"look": "I do not have uid"}"#])
                #expect(reply.errorCode == "MISSING_IDENTIFIER")
            }
        }
    }

    /// `idp.spec.ts`.
    @Suite struct Idp {
        @Test func duplicateEmailsKeepProviderAccountsApart() async throws {
            try await withServer { (server: TestServer, client: TestClient) async throws in
                try await client.allowDuplicateEmails(server)
                let password = try await client.signUp(email: "alice@example.com", password: "notasecret")
                let google = try await client.signInWithFakeClaims("google.com", ["sub": "g-1", "email": "alice@example.com"])
                let facebook = try await client.signInWithFakeClaims("facebook.com", ["sub": "f-1", "email": "alice@example.com"])
                let ids = [password, google, facebook].compactMap { $0.string("localId") }
                #expect(Set(ids).count == 3, "\(google.body)")
                #expect(try await client.lookup(idToken: google.string("idToken")).firstUser?["email"] == nil)

                let anonymous = try await client.signUp()
                let linked = try await client.signInWithFakeClaims(
                    "google.com", ["sub": "g-2", "email": "alice@example.com"], idToken: anonymous["idToken"], returnIdpCredential: false)
                #expect(linked.string("localId") == anonymous.string("localId"), "\(linked.body)")
            }
        }

        @Test func aDisabledAccountIsAnErrorNotAConflict() async throws {
            try await withServer { (_: TestServer, client: TestClient) async throws in
                let user = try await client.signInWithFakeClaims("google.com", ["sub": "g-1"])
                #expect(try await client.admin("/v1/accounts:update", ["localId": user["localId"] ?? .null, "disableUser": true]).status == 200)
                let again = try await client.signInWithFakeClaims("google.com", ["sub": "g-1", "name": "Foo"], idToken: user["idToken"])
                #expect(again.status == 400 && again.errorMessage == "USER_DISABLED", "\(again.body)")
                let signIn = try await client.signInWithFakeClaims("google.com", ["sub": "g-1"])
                #expect(signIn.status == 400 && signIn.errorMessage == "USER_DISABLED", "\(signIn.body)")
            }
        }

        @Test func profilesAndVerificationFromTheProvider() async throws {
            try await withServer { (server: TestServer, client: TestClient) async throws in
                // Linking an account of the same, now vouched-for, address verifies it.
                let alice = try await client.signUp(email: "alice@example.com", password: "notasecret")
                let linked = try await client.signInWithFakeClaims(
                    "google.com", ["sub": "12345", "email": "alice@example.com", "email_verified": true], idToken: alice["idToken"],
                    returnIdpCredential: false)
                #expect(try await client.lookup(idToken: linked.string("idToken")).firstUser?["emailVerified"] == true)

                // Sign-up copies the profile, screen name included; Google's federated ids are URLs.
                let turing = try await client.signInWithFakeClaims("google.com", [
                    "sub": "turing", "screen_name": "turingcomplete", "name": "Alan Turing", "picture": "http://localhost/turing.png",
                ])
                #expect(turing["federatedId"] == "https://accounts.google.com/turing")
                let record = try await client.lookup(idToken: turing.string("idToken")).firstUser
                #expect(record?["screenName"] == "turingcomplete" && record?["displayName"] == "Alan Turing")

                // The emulator's takeover of a verified address takes the provider's profile.
                let signedIn = try await client.signInWithLink("foo@example.com", server: server)
                _ = try await client.admin("/v1/accounts:update", ["localId": signedIn["localId"] ?? .null, "displayName": "Foo"])
                let takeover = try await client.signInWithFakeClaims("google.com", [
                    "sub": "foo", "email": "foo@example.com", "email_verified": true, "picture": "http://localhost/foo.png",
                ])
                #expect(takeover.string("localId") == signedIn.string("localId"))
                let foo = try await client.lookup(idToken: takeover.string("idToken")).firstUser
                #expect(foo?["displayName"] == nil && foo?["photoUrl"] == "http://localhost/foo.png")
            }
        }
    }

    /// `oob.spec.ts`, continued: who a verification code is for.
    @Suite struct OobRecipients {
        @Test func verificationRequestsNameTheirUser() async throws {
            try await withServer { (server: TestServer, client: TestClient) async throws in
                _ = try await client.signUp(email: "alice@example.com", password: "notasecret")
                let path = "/v1/accounts:sendOobCode"
                #expect(try await client.admin(path, ["requestType": "VERIFY_EMAIL", "returnOobLink": true]).errorCode == "MISSING_EMAIL")
                #expect(try await client.post(path, ["requestType": "VERIFY_EMAIL", "email": "alice@example.com"]).errorCode == "INVALID_ID_TOKEN")
                #expect(try await client.post(path, ["requestType": "VERIFY_AND_CHANGE_EMAIL", "email": "alice@example.com"]).errorCode
                    == "MISSING_NEW_EMAIL")
                #expect(try await client.admin(path, ["requestType": "VERIFY_AND_CHANGE_EMAIL", "newEmail": "bob@example.com", "returnOobLink": true])
                    .errorCode == "MISSING_EMAIL")
                #expect(try await client.post(path, ["requestType": "VERIFY_AND_CHANGE_EMAIL", "newEmail": "bob@example.com"]).errorCode
                    == "MISSING_ID_TOKEN")
                #expect(try await client.oobCodes(server).isEmpty)
            }
        }
    }

    /// `emailLink.spec.ts`.
    @Suite struct EmailLink {
        @Test func aLinkOntoAnAccountWithSecondFactorsAsksForOne() async throws {
            try await withServer { (_: TestServer, client: TestClient) async throws in
                let alice = try await client.post("/v1/accounts:signUp", [
                    "email": "alice@example.com", "password": "notasecret", "mfaInfo": [EmulatorSpec.SignUp.factor],
                ])
                let oobCode = try await client.admin("/v1/accounts:sendOobCode", [
                    "email": "alice@example.com", "requestType": "EMAIL_SIGNIN", "returnOobLink": true,
                ])["oobCode"]
                let reply = try await client.post("/v1/accounts:signInWithEmailLink", [
                    "email": "alice@example.com", "oobCode": oobCode ?? .null, "idToken": alice["idToken"] ?? .null,
                ])
                #expect(reply["idToken"] == nil && reply["mfaPendingCredential"] != nil, "\(reply.body)")
                #expect(reply["mfaInfo"]?.arrayValue?.count == 1)
            }
        }
    }
}

extension EmulatorSpec.Idp {
    /// A production Google ID token (its signature zeroed, as tests paste them) parses: only the payload is read.
    @Test func productionShapedTokensParse() async throws {
        try await withServer { (_: TestServer, client: TestClient) async throws in
            func segment(_ json: String) -> String { Base64URL.encode(Array(json.utf8)) }
            let token = segment(#"{"alg":"RS256","kid":"6a8ba5652a7044121d4fedac8f14d14c54e4895b","typ":"JWT"}"#) + "."
                + segment(#"{"iss":"https://accounts.google.com","sub":"115113236566683398301","email":"someone@gmail.com","email_verified":true}"#)
                + "." + String(repeating: "0", count: 342)
            let reply = try await client.post("/v1/accounts:signInWithIdp", [
                "postBody": .string(FormURLEncoding.encode([("providerId", "google.com"), ("id_token", token)])),
                "requestUri": "http://localhost", "returnIdpCredential": true, "returnSecureToken": true,
            ])
            #expect(reply.status == 200, "\(reply.body)")
            #expect(reply["federatedId"] == "https://accounts.google.com/115113236566683398301")
            #expect(reply["email"] == "someone@gmail.com" && reply["emailVerified"] == true)
        }
    }

    /// SAML responses in emulator mode: the assertion's subject is required; a `saml.*` provider's name id
    /// is the email, vouched for, and its attribute statements are the raw user info.
    @Test func samlResponses() async throws {
        try await withServer { (_: TestServer, client: TestClient) async throws in
            func saml(_ response: String, provider: String = "saml.saml") async throws -> TestClient.Reply {
                try await client.post("/v1/accounts:signInWithIdp", [
                    "postBody": .string(FormURLEncoding.encode([
                        ("providerId", provider), ("id_token", #"{"sub":"s-1","email":"example@gmail.com"}"#), ("SAMLResponse", response),
                    ])),
                    "requestUri": "http://localhost", "returnIdpCredential": true, "returnSecureToken": true,
                ])
            }
            for broken in ["{}", #"{"assertion":{}}"#, #"{"assertion":{"subject":{}}}"#] {
                let reply = try await saml(broken)
                #expect(reply.status == 400 && reply.errorCode == "INVALID_IDP_RESPONSE", "\(reply.body)")
            }
            let attributes = #"{"name":"Jane Doe","mail":"other@gmail.com"}"#
            let reply = try await saml(#"{"assertion":{"subject":{"nameId":"nameid@gmail.com"},"attributeStatements":\#(attributes)}}"#)
            #expect(reply["email"] == "nameid@gmail.com" && reply["emailVerified"] == true, "\(reply.body)")
            let raw = try JSONDecoder().decode(JSONValue.self, from: Data((reply.string("rawUserInfo") ?? "").utf8))
            #expect(raw == (try JSONDecoder().decode(JSONValue.self, from: Data(attributes.utf8))))
        }
    }
}
