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
