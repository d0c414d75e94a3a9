@testable import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
import Testing

/// Second factors on the wire (`v2/accounts/mfaEnrollment:*`, `v2/accounts/mfaSignIn:*`), the
/// recent-login rule, and the account lifecycle (revocation, disabling, deletion).
@Suite struct MultiFactorAPITests {
    static let password = "correct horse battery"

    /// A password user whose email an admin has verified (enrollment needs it); returns its tokens.
    static func verifiedUser(_ client: TestClient, email: String = "ada@example.com") async throws -> TestClient.Reply {
        let signedUp = try await client.signUp(email: email, password: password)
        let localID = try #require(signedUp.string("localId"))
        let verified = try await client.admin("/v1/accounts:update", ["localId": .string(localID), "emailVerified": true])
        #expect(verified.status == 200, "\(verified.body)")
        return try await client.post("/v1/accounts:signInWithPassword", [
            "email": .string(email), "password": .string(password), "returnSecureToken": true,
        ])
    }

    static func enrollPhone(_ client: TestClient, _ server: TestServer, idToken: String, number: String,
                            displayName: String = "Work phone") async throws -> TestClient.Reply {
        let started = try await client.post("/v2/accounts/mfaEnrollment:start", [
            "idToken": .string(idToken), "phoneEnrollmentInfo": ["phoneNumber": .string(number)],
        ])
        let sessionInfo = try #require(started["phoneSessionInfo"]?["sessionInfo"]?.stringValue, "\(started.body)")
        let code = try #require(server.log.smsCodes(to: number).last)
        return try await client.post("/v2/accounts/mfaEnrollment:finalize", [
            "idToken": .string(idToken), "displayName": .string(displayName),
            "phoneVerificationInfo": ["sessionInfo": .string(sessionInfo), "code": .string(code)],
        ])
    }

    @Test(arguments: TestDatabase.allCases)
    func phoneSecondFactorEnrollsAndSignsIn(database: TestDatabase) async throws {
        try await withServer(database: database) { server, client in
            let user = try await Self.verifiedUser(client)
            let enrolled = try await Self.enrollPhone(client, server, idToken: try #require(user.string("idToken")),
                                                      number: "+15555550111")
            #expect(enrolled.status == 200, "\(enrolled.body)")
            #expect(claims(of: enrolled.string("idToken"))["firebase"]?["sign_in_second_factor"] == "phone")
            let record = try #require(try await client.lookup(idToken: enrolled.string("idToken")).firstUser)
            let factor = try #require(record["mfaInfo"]?.arrayValue?.first)
            #expect(factor["phoneInfo"] == "+15555550111")
            #expect(factor["displayName"] == "Work phone")
            let enrollmentID = try #require(factor["mfaEnrollmentId"]?.stringValue)

            // The password alone no longer signs in: a pending credential and the masked factor instead.
            let first = try await client.post("/v1/accounts:signInWithPassword", [
                "email": "ada@example.com", "password": .string(Self.password), "returnSecureToken": true,
            ])
            #expect(first.status == 200, "\(first.body)")
            #expect(first["idToken"] == nil)
            let pending = try #require(first.string("mfaPendingCredential"))
            #expect(first["mfaInfo"]?.arrayValue?.first?["phoneInfo"] == "+*******0111")

            let start = try await client.post("/v2/accounts/mfaSignIn:start", [
                "mfaPendingCredential": .string(pending), "mfaEnrollmentId": .string(enrollmentID),
                "phoneSignInInfo": ["phoneNumber": "+*******0111"],
            ])
            let sessionInfo = try #require(start["phoneResponseInfo"]?["sessionInfo"]?.stringValue, "\(start.body)")
            let code = try #require(server.log.smsCodes(to: "+15555550111").last)
            let wrong = try await client.post("/v2/accounts/mfaSignIn:finalize", [
                "mfaPendingCredential": .string(pending),
                "phoneVerificationInfo": ["sessionInfo": .string(sessionInfo), "code": "000000"],
            ])
            #expect(wrong.errorCode == (code == "000000" ? nil : "INVALID_CODE"))
            let done = try await client.post("/v2/accounts/mfaSignIn:finalize", [
                "mfaPendingCredential": .string(pending),
                "phoneVerificationInfo": ["sessionInfo": .string(sessionInfo), "code": .string(code)],
            ])
            #expect(done.status == 200, "\(done.body)")
            let firebase = claims(of: done.string("idToken"))["firebase"]
            #expect(firebase?["sign_in_provider"] == "password")
            #expect(firebase?["sign_in_second_factor"] == "phone")
            #expect(firebase?["second_factor_identifier"] == .string(enrollmentID))
            // Refreshed tokens keep the second-factor claims.
            let refreshed = try await client.refresh(done.string("refreshToken"))
            #expect(claims(of: refreshed.string("id_token"))["firebase"]?["sign_in_second_factor"] == "phone")

            // The pending credential is spent: it starts nothing and finishes nothing again; forged ones are refused.
            let again = try await client.post("/v2/accounts/mfaSignIn:start", [
                "mfaPendingCredential": .string(pending), "mfaEnrollmentId": .string(enrollmentID),
            ])
            #expect(again.errorCode == "INVALID_MFA_PENDING_CREDENTIAL")
            let replay = try await client.post("/v2/accounts/mfaSignIn:finalize", [
                "mfaPendingCredential": .string(pending),
                "phoneVerificationInfo": ["sessionInfo": .string(sessionInfo), "code": .string(code)],
            ])
            #expect(replay.errorCode == "INVALID_MFA_PENDING_CREDENTIAL")
            #expect(try await client.post("/v2/accounts/mfaSignIn:start", ["mfaPendingCredential": "forged", "mfaEnrollmentId": "x"])
                .errorCode == "INVALID_MFA_PENDING_CREDENTIAL")

            // Withdrawing the factor (recently signed in) restores password-only sign-in.
            let withdrawn = try await client.post("/v2/accounts/mfaEnrollment:withdraw", [
                "idToken": .string(try #require(done.string("idToken"))), "mfaEnrollmentId": .string(enrollmentID),
            ])
            #expect(withdrawn.status == 200, "\(withdrawn.body)")
            let plain = try await client.post("/v1/accounts:signInWithPassword", [
                "email": "ada@example.com", "password": .string(Self.password), "returnSecureToken": true,
            ])
            #expect(plain["idToken"] != nil)
        }
    }

    /// Second-factor codes follow phone sign-in's rules in production: an app credential for real numbers,
    /// none for fictional ones; pending credentials expire.
    @Test func productionRulesForSecondFactorCodes() async throws {
        try await withServer(emulator: false) { server, client in
            _ = try await server.server.updateProjectConfig(server.projectID, ProjectConfig(
                signIn: .init(phoneNumber: .init(testPhoneNumbers: ["+15555550144": "123456"])),
                mfa: .init(state: "ENABLED", enabledProviders: ["PHONE_SMS"])),
                updateMask: "signIn.phoneNumber.testPhoneNumbers,mfa")
            let signedUp = try await client.signUp(email: "dora@example.com", password: Self.password)
            let localID = try #require(signedUp.string("localId"))
            _ = try await server.server.store.accounts.modifyUser(projectID: server.projectID, localID: localID) { _ in
                AccountChange([.emailVerified(true)])
            }
            let idToken = try #require(signedUp.string("idToken"))
            let real = try await client.post("/v2/accounts/mfaEnrollment:start", [
                "idToken": .string(idToken), "phoneEnrollmentInfo": ["phoneNumber": "+14155550199"],
            ])
            #expect(real.errorCode == "MISSING_APP_CREDENTIAL")
            let started = try await client.post("/v2/accounts/mfaEnrollment:start", [
                "idToken": .string(idToken), "phoneEnrollmentInfo": ["phoneNumber": "+15555550144"],
            ])
            let enrolled = try await client.post("/v2/accounts/mfaEnrollment:finalize", [
                "idToken": .string(idToken),
                "phoneVerificationInfo": ["sessionInfo": started["phoneSessionInfo"]?["sessionInfo"] ?? .null, "code": "123456"],
            ])
            #expect(enrolled.status == 200, "\(enrolled.body)")
            #expect(server.log.smsCodes(to: "+15555550144").isEmpty)

            let first = try await client.post("/v1/accounts:signInWithPassword", [
                "email": "dora@example.com", "password": .string(Self.password), "returnSecureToken": true,
            ])
            let pending = try #require(first.string("mfaPendingCredential"))
            server.clock.advance(seconds: 601)
            let expired = try await client.post("/v2/accounts/mfaSignIn:start", [
                "mfaPendingCredential": .string(pending),
                "mfaEnrollmentId": first["mfaInfo"]?.arrayValue?.first?["mfaEnrollmentId"] ?? .null,
            ])
            #expect(expired.errorCode == "INVALID_MFA_PENDING_CREDENTIAL")
        }
    }

    @Test func enrollmentNeedsAVerifiedEmailARecentSignInAndAnEnabledProject() async throws {
        try await withServer { server, client in
            let unverified = try await client.signUp(email: "bob@example.com", password: Self.password)
            let start: (String) async throws -> TestClient.Reply = { idToken in
                try await client.post("/v2/accounts/mfaEnrollment:start", [
                    "idToken": .string(idToken), "phoneEnrollmentInfo": ["phoneNumber": "+15555550122"],
                ])
            }
            #expect(try await start(try #require(unverified.string("idToken"))).errorCode == "UNVERIFIED_EMAIL")
            let user = try await Self.verifiedUser(client, email: "carol@example.com")
            let idToken = try #require(user.string("idToken"))
            server.clock.advance(seconds: 301)
            #expect(try await start(idToken).errorCode == "CREDENTIAL_TOO_OLD_LOGIN_AGAIN")
            _ = try await server.server.updateProjectConfig(
                server.projectID, ProjectConfig(mfa: .init(state: "DISABLED")), updateMask: "mfa.state")
            let fresh = try await client.post("/v1/accounts:signInWithPassword", [
                "email": "carol@example.com", "password": .string(Self.password), "returnSecureToken": true,
            ])
            #expect(try await start(try #require(fresh.string("idToken"))).errorCode == "OPERATION_NOT_ALLOWED")
        }
    }

    @Test(arguments: TestDatabase.allCases)
    func totpSecondFactor(database: TestDatabase) async throws {
        try await withServer(database: database) { server, client in
            _ = try await server.server.updateProjectConfig(server.projectID, ProjectConfig(mfa: .init(
                state: "ENABLED", enabledProviders: ["PHONE_SMS"],
                providerConfigs: [.init(state: "ENABLED", totpProviderConfig: .init(adjacentIntervals: 1))])),
                updateMask: "mfa")
            let user = try await Self.verifiedUser(client)
            let idToken = try #require(user.string("idToken"))
            let started = try await client.post("/v2/accounts/mfaEnrollment:start", [
                "idToken": .string(idToken), "totpEnrollmentInfo": [:],
            ])
            let session = try #require(started["totpSessionInfo"], "\(started.body)")
            #expect(session["verificationCodeLength"] == .number(6))
            #expect(session["hashingAlgorithm"] == "SHA1")
            let sharedSecret = try #require(session["sharedSecretKey"]?.stringValue)
            let secret = try #require(Self.base32Decode(sharedSecret))
            #expect(secret.count == 20)
            func code(offsetSteps: Int64 = 0) -> String {
                TOTP.code(secret: secret, step: TOTP.step(at: server.clock.seconds) + offsetSteps)
            }
            let enrolled = try await client.post("/v2/accounts/mfaEnrollment:finalize", [
                "idToken": .string(idToken), "displayName": "Authenticator",
                "totpVerificationInfo": ["sessionInfo": session["sessionInfo"] ?? .null, "verificationCode": .string(code())],
            ])
            #expect(enrolled.status == 200, "\(enrolled.body)")
            let record = try #require(try await client.lookup(idToken: enrolled.string("idToken")).firstUser)
            let factor = try #require(record["mfaInfo"]?.arrayValue?.first)
            #expect(factor["totpInfo"] == .object([:]))
            let enrollmentID = try #require(factor["mfaEnrollmentId"]?.stringValue)
            // The secret is sealed at rest.
            let rows = try await server.server.store.database.query("SELECT mfa_factors FROM users", [])
            #expect(rows.allSatisfy { !($0.string("mfa_factors") ?? "").contains(session["sharedSecretKey"]?.stringValue ?? "-") })

            func signIn() async throws -> String {
                let first = try await client.post("/v1/accounts:signInWithPassword", [
                    "email": "ada@example.com", "password": .string(Self.password), "returnSecureToken": true,
                ])
                return try #require(first.string("mfaPendingCredential"), "\(first.body)")
            }
            func finalize(_ pending: String, _ code: String) async throws -> TestClient.Reply {
                try await client.post("/v2/accounts/mfaSignIn:finalize", [
                    "mfaPendingCredential": .string(pending), "mfaEnrollmentId": .string(enrollmentID),
                    "totpVerificationInfo": ["verificationCode": .string(code)],
                ])
            }
            let pending = try await signIn()
            // The code used to enroll cannot be replayed; wrong and out-of-window codes are refused.
            #expect(try await finalize(pending, code()).errorCode == "INVALID_CODE")
            #expect(try await finalize(pending, code(offsetSteps: 3)).errorCode == "INVALID_CODE")
            #expect(try await finalize(pending, code() == "123456" ? "654321" : "123456").errorCode == "INVALID_CODE")
            server.clock.advance(seconds: 30)
            let done = try await finalize(pending, code())
            #expect(done.status == 200, "\(done.body)")
            #expect(claims(of: done.string("idToken"))["firebase"]?["sign_in_second_factor"] == "totp")
            // The same code again, with a new pending credential: a replay.
            #expect(try await finalize(try await signIn(), code()).errorCode == "INVALID_CODE")
            // The next step's code works.
            server.clock.advance(seconds: 30)
            #expect(try await finalize(try await signIn(), code()).status == 200)
        }
    }

    @Test func wrongTOTPCodesAreLimited() async throws {
        try await withServer { server, client in
            _ = try await server.server.updateProjectConfig(server.projectID, ProjectConfig(mfa: .init(
                providerConfigs: [.init(state: "ENABLED", totpProviderConfig: .init())])), updateMask: "mfa.providerConfigs")
            let user = try await Self.verifiedUser(client)
            let started = try await client.post("/v2/accounts/mfaEnrollment:start", [
                "idToken": .string(try #require(user.string("idToken"))), "totpEnrollmentInfo": [:],
            ])
            let session = try #require(started["totpSessionInfo"], "\(started.body)")
            let sharedSecret = try #require(session["sharedSecretKey"]?.stringValue)
            let secret = try #require(Self.base32Decode(sharedSecret))
            func finalize(_ code: String) async throws -> TestClient.Reply {
                try await client.post("/v2/accounts/mfaEnrollment:finalize", [
                    "idToken": .string(try #require(user.string("idToken"))),
                    "totpVerificationInfo": ["sessionInfo": session["sessionInfo"] ?? .null, "verificationCode": .string(code)],
                ])
            }
            let right = TOTP.code(secret: secret, step: TOTP.step(at: server.clock.seconds))
            let wrong = right == "111111" ? "222222" : "111111"
            for _ in 0..<Budget.totpTries.fixedLimit! { #expect(try await finalize(wrong).errorCode == "INVALID_CODE") }
            // The budget's wrong codes (five) close the factor for five minutes, even to the right code.
            #expect(try await finalize(right).errorCode == "TOO_MANY_ATTEMPTS_TRY_LATER")
        }
    }

    // MARK: Lifecycle

    @Test(arguments: TestDatabase.allCases)
    func recentLoginRevocationDisablingAndDeletion(database: TestDatabase) async throws {
        try await withServer(database: database) { server, client in
            let user = try await Self.verifiedUser(client)
            let localID = try #require(user.string("localId"))
            var idToken = try #require(user.string("idToken"))
            // An MFA factor, a federated identity and a pending action code: all must go with the user.
            idToken = try #require(try await Self.enrollPhone(client, server, idToken: idToken, number: "+15555550133").string("idToken"))
            let linked = try await client.post("/v1/accounts:signInWithIdp", [
                "requestUri": "http://localhost", "idToken": .string(idToken), "returnSecureToken": true,
                "postBody": .string("id_token=" + FormURLEncoding.escape(#"{"sub":"apple-1"}"#) + "&providerId=apple.com"),
            ])
            #expect(linked.status == 200, "\(linked.body)")
            let reset = try await client.post("/v1/accounts:sendOobCode", ["requestType": "PASSWORD_RESET", "email": "ada@example.com"])
            #expect(reset.status == 200, "\(reset.body)")

            // Five minutes later, sensitive changes need a fresh sign-in.
            server.clock.advance(seconds: 301)
            let tooOld = try await client.post("/v1/accounts:update", ["idToken": .string(idToken), "password": "another password 1"])
            #expect(tooOld.errorCode == "CREDENTIAL_TOO_OLD_LOGIN_AGAIN")
            #expect(try await client.post("/v1/accounts:delete", ["idToken": .string(idToken)]).errorCode
                == "CREDENTIAL_TOO_OLD_LOGIN_AGAIN")
            // A profile change is not sensitive.
            #expect(try await client.post("/v1/accounts:update", ["idToken": .string(idToken), "displayName": "Ada"]).status == 200)

            // Revocation: tokens issued before validSince stop working.
            let refreshToken = try #require(user.string("refreshToken"))
            server.clock.advance(seconds: 1)
            #expect(try await client.admin("/v1/accounts:update", [
                "localId": .string(localID), "validSince": .string(String(server.clock.seconds)),
            ]).status == 200)
            #expect(try await client.refresh(refreshToken).errorCode == "TOKEN_EXPIRED")
            #expect(try await client.lookup(idToken: idToken).errorCode == "TOKEN_EXPIRED")

            // Disabled: no sign-in of any kind, no refresh, no use of a token issued before.
            let beforeDisabling = try await client.post("/v1/accounts:signInWithPassword", [
                "email": "ada@example.com", "password": .string(Self.password), "returnSecureToken": true,
            ])
            let pendingBefore = try #require(beforeDisabling.string("mfaPendingCredential"))
            #expect(try await client.admin("/v1/accounts:update", ["localId": .string(localID), "disableUser": true]).status == 200)
            #expect(try await client.post("/v1/accounts:signInWithPassword", [
                "email": "ada@example.com", "password": .string(Self.password),
            ]).errorCode == "USER_DISABLED")
            let startDisabled = try await client.post("/v2/accounts/mfaSignIn:start", [
                "mfaPendingCredential": .string(pendingBefore),
                "mfaEnrollmentId": beforeDisabling["mfaInfo"]?.arrayValue?.first?["mfaEnrollmentId"] ?? .null,
            ])
            #expect(try await client.post("/v2/accounts/mfaSignIn:finalize", [
                "mfaPendingCredential": .string(pendingBefore),
                "phoneVerificationInfo": ["sessionInfo": startDisabled["phoneResponseInfo"]?["sessionInfo"] ?? .null,
                                          "code": .string(try #require(server.log.smsCodes(to: "+15555550133").last))],
            ]).errorCode == "USER_DISABLED")
            #expect(try await client.admin("/v1/accounts:update", ["localId": .string(localID), "disableUser": false]).status == 200)

            // A fresh sign-in (with the second factor) may delete the account; nothing of it remains.
            let first = try await client.post("/v1/accounts:signInWithPassword", [
                "email": "ada@example.com", "password": .string(Self.password), "returnSecureToken": true,
            ])
            let pending = try #require(first.string("mfaPendingCredential"))
            let enrollmentID = try #require(first["mfaInfo"]?.arrayValue?.first?["mfaEnrollmentId"]?.stringValue)
            let start = try await client.post("/v2/accounts/mfaSignIn:start", [
                "mfaPendingCredential": .string(pending), "mfaEnrollmentId": .string(enrollmentID),
            ])
            let done = try await client.post("/v2/accounts/mfaSignIn:finalize", [
                "mfaPendingCredential": .string(pending),
                "phoneVerificationInfo": ["sessionInfo": start["phoneResponseInfo"]?["sessionInfo"] ?? .null,
                                          "code": .string(try #require(server.log.smsCodes(to: "+15555550133").last))],
            ])
            // A code sent but never used, to the factor's number: deleted with the user.
            _ = try await client.post("/v2/accounts/mfaSignIn:start", [
                "mfaPendingCredential": .string(try #require(try await client.post("/v1/accounts:signInWithPassword", [
                    "email": "ada@example.com", "password": .string(Self.password),
                ]).string("mfaPendingCredential"))), "mfaEnrollmentId": .string(enrollmentID),
            ])
            #expect(try await client.post("/v1/accounts:delete", ["idToken": done["idToken"] ?? .null]).status == 200)
            let database = server.server.store.database
            for (table, condition, binds) in [
                ("users", "local_id = ?", [SQLValue.text(localID)]),
                ("user_identities", "local_id = ?", [.text(localID)]),
                ("refresh_tokens", "local_id = ?", [.text(localID)]),
                ("oob_codes", "email = ?", [.text("ada@example.com")]),
                ("verification_codes", "phone_number = ?", [.text("+15555550133")]),
            ] {
                let rows = try await database.query("SELECT COUNT(*) AS n FROM \(table) WHERE \(condition)", binds)
                #expect(rows.first?.int("n") == 0, "\(table) keeps rows of the deleted user")
            }
            // The emulator's answer; production's USER_NOT_FOUND is checked in EmulatorSpec.TokenRefresh.
            #expect(try await client.refresh(done.string("refreshToken")).errorCode == "INVALID_REFRESH_TOKEN")
        }
    }

    /// RFC 4648 base32 without padding.
    static func base32Decode(_ text: String) -> Data? {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
        var buffer = 0
        var bits = 0
        var output = Data()
        for character in text {
            guard let value = alphabet.firstIndex(of: character) else { return nil }
            buffer = (buffer << 5) | value
            bits += 5
            if bits >= 8 {
                output.append(UInt8((buffer >> (bits - 8)) & 0xFF))
                bits -= 8
            }
        }
        return output
    }
}
