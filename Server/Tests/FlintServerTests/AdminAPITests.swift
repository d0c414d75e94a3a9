import _CryptoExtras
import Crypto
@testable import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
import Testing

/// The admin account API on the wire: import with each hash algorithm the Admin SDKs name, bulk delete, query,
/// lookup by linked account, session cookies, custom tokens, and who may call them.
@Suite struct AdminAPITests {
    static func base64(_ data: some DataProtocol) -> JSONValue { .string(Data(data).base64EncodedString()) }

    @Test(arguments: TestDatabase.allCases)
    func importedHashesOfEveryAlgorithmSignIn(database: TestDatabase) async throws {
        try await withServer(database: database) { server, client in
            let salt = Data("salty".utf8)
            let password = Data("imported password".utf8)
            let hmacKey = Data("hmac-key".utf8)
            let standardScrypt = try KDF.Scrypt.deriveKey(from: password, salt: salt, outputByteCount: 32, rounds: 1024,
                                                          blockSize: 8, parallelism: 1)
            let pbkdf2 = try KDF.Insecure.PBKDF2.deriveKey(from: password, salt: salt, using: .sha256, outputByteCount: 32,
                                                           unsafeUncheckedRounds: 1000)
            let sha256Twice = Data(SHA256.hash(data: Data(SHA256.hash(data: salt + password))))
            let cases: [(String, [String: JSONValue], Data)] = [
                ("STANDARD_SCRYPT", ["cpuMemCost": .number(1024), "blockSize": .number(8), "parallelization": .number(1),
                                     "dkLen": .number(32)], standardScrypt.withUnsafeBytes { Data($0) }),
                ("PBKDF2_SHA256", ["rounds": .number(1000)], pbkdf2.withUnsafeBytes { Data($0) }),
                ("HMAC_SHA512", ["signerKey": Self.base64(hmacKey)],
                 Data(HMAC<SHA512>.authenticationCode(for: salt + password, using: SymmetricKey(data: hmacKey)))),
                ("SHA256", ["rounds": .number(2)], sha256Twice),
                // The older digests, made by Python's hashlib: PBKDF2-HMAC-SHA1 (1000 rounds, 20 bytes), HMAC-SHA1 and
                // HMAC-MD5 keyed with `hmacKey`, SHA-1 three times over, MD5 once; each over salt then password.
                ("PBKDF_SHA1", ["rounds": .number(1000)], Data(base64Encoded: "w5HcjuHEplJlG4lBXQzutWJh5CA=")!),
                ("HMAC_SHA1", ["signerKey": Self.base64(hmacKey)], Data(base64Encoded: "B0hZOjRHaSarBdibKRMvLcMnLiA=")!),
                ("HMAC_MD5", ["signerKey": Self.base64(hmacKey)], Data(base64Encoded: "mswILJqe+MFgxRz7y1j1qg==")!),
                ("SHA1", ["rounds": .number(3)], Data(base64Encoded: "OMeNvONJXPg/x/I3QjkiTf/uHK8=")!),
                ("MD5", ["rounds": .number(1)], Data(base64Encoded: "S+lgvDzRn+KdUNeR55j3tQ==")!),
                // Made by Python's bcrypt (cost 4); the salt is inside the hash, so the users' salt is ignored.
                ("BCRYPT", [:], Data("$2b$04$abcdefghijklmnopqrstuuyORs7TtHQx.W274qDwbW3DAAYboqWFa".utf8)),
            ]
            for (index, (algorithm, parameters, hash)) in cases.enumerated() {
                var body: [String: JSONValue] = [
                    "hashAlgorithm": .string(algorithm),
                    "users": [["localId": .string("imported-\(index)"), "email": .string("user\(index)@example.com"),
                               "passwordHash": Self.base64(hash), "salt": Self.base64(salt)]],
                ]
                for (key, value) in parameters { body[key] = value }
                let imported = try await client.admin("/v1/projects/\(server.projectID)/accounts:batchCreate", body)
                #expect(imported.status == 200 && imported["error"] == nil, "\(algorithm): \(imported.body)")
                for attempt in ["imported password", "imported password"] {
                    let signedIn = try await client.post("/v1/accounts:signInWithPassword", [
                        "email": .string("user\(index)@example.com"), "password": .string(attempt),
                    ])
                    #expect(signedIn["localId"] == .string("imported-\(index)"), "\(algorithm): \(signedIn.body)")
                }
                let wrong = try await client.post("/v1/accounts:signInWithPassword", [
                    "email": .string("user\(index)@example.com"), "password": "something else",
                ])
                #expect(wrong.errorCode == "INVALID_PASSWORD", "\(algorithm)")
            }
            // Unknown algorithms and bad parameters are refused as a whole; bad users one by one.
            let unknown = try await client.admin("/v1/projects/\(server.projectID)/accounts:batchCreate", [
                "hashAlgorithm": "ROT13", "users": [["localId": "x", "passwordHash": "AAAA"]],
            ])
            #expect(unknown.errorCode == "INVALID_ARGUMENT")
            let mixed = try await client.admin("/v1/projects/\(server.projectID)/accounts:batchCreate", [
                "users": [["localId": "fine"], ["localId": "bad-email", "email": "not an email"],
                          ["localId": "bad-phone", "phoneNumber": "12"]],
            ])
            #expect(mixed["error"]?.arrayValue?.compactMap { $0["index"] } == [.number(1), .number(2)])
            // Not without admin credentials.
            #expect(try await client.post("/v1/projects/\(server.projectID)/accounts:batchCreate", ["users": []]).status == 403)
        }
    }

    /// A full call of Firebase-scrypt users (more than one of the store's transactions) with bad entries among them:
    /// each is reported by its index in Firebase's words and leaves nothing behind; every other user is imported.
    @Test(arguments: TestDatabase.allCases)
    func aFullImportReportsItsBadEntriesAndKeepsTheRest(database: TestDatabase) async throws {
        try await withServer(database: database) { server, client in
            let path = "/v1/projects/\(server.projectID)/accounts:batchCreate"
            let held: JSONValue = ["localId": "held", "email": "held@example.com", "phoneNumber": "+15555550100",
                                   "providerUserInfo": [["providerId": "google.com", "rawId": "g-held"]]]
            #expect(try await client.admin(path, ["users": [held]])["error"] == nil)
            var users: [JSONValue] = (0..<AccountService.maximumBatch).map { index in
                ["localId": .string("u\(index)"), "email": .string("u\(index)@example.com"),
                 "passwordHash": Self.base64(Data(repeating: UInt8(index % 256), count: 64)), "salt": Self.base64(Data("salt".utf8))]
            }
            let bad: [Int: (JSONValue, String)] = [
                3: (["localId": "held"], "localId belongs to an existing account - can not overwrite."),
                260: (["localId": "b1", "email": "held@example.com"], "email exists in other account in database"),
                520: (["localId": "b2", "email": "b2@example.com", "providerUserInfo": [["providerId": "google.com", "rawId": "g-held"]]],
                      "raw id exists in other account in database"),
                521: (["localId": "b3", "phoneNumber": "+15555550100"], "PHONE_NUMBER_EXISTS"),
                780: (["localId": "b4", "email": "u10@example.com"], "email exists in other account in database"),
                999: (["localId": "b5", "email": "not an email"], "email is invalid"),
            ]
            for (index, entry) in bad { users[index] = entry.0 }
            let reply = try await client.admin(path, [
                "hashAlgorithm": "SCRYPT", "signerKey": Self.base64(Data(repeating: UInt8(7), count: 64)), "saltSeparator": "Bw==",
                "rounds": .number(8), "memoryCost": .number(14), "users": .array(users),
            ])
            #expect(reply.status == 200, "\(reply.body)")
            let errors = reply["error"]?.arrayValue ?? []
            #expect(errors.map { $0["index"] } == bad.keys.sorted().map { .number(Double($0)) })
            #expect(errors.map { $0["message"]?.stringValue ?? "" } == bad.keys.sorted().map { bad[$0]!.1 })
            let count = try await client.admin("/v1/projects/\(server.projectID)/accounts:query", ["returnUserInfo": false])
            #expect(count["recordsCount"] == .string(String(1 + AccountService.maximumBatch - bad.count)))
            let badOnes = try await client.admin("/v1/accounts:lookup", ["localId": ["b1", "b2", "b3", "b4", "b5"], "email": ["b2@example.com"]])
            #expect(badOnes["users"] == nil, "\(badOnes.body)")
            let last = try await client.admin("/v1/accounts:lookup", ["localId": ["u998"]]).firstUser
            #expect(last?["passwordHash"] == Self.base64(Data(repeating: UInt8(998 % 256), count: 64)))
        }
    }

    @Test(arguments: TestDatabase.allCases)
    func adminsSetSecondFactorsAndLinkProviderAccounts(database: TestDatabase) async throws {
        try await withServer(database: database) { server, client in
            let path = "/v1/projects/\(server.projectID)/accounts:update"
            let first = try #require(try await client.signUp(email: "first@example.com", password: "secret-pass").string("localId"))
            let second = try await client.signUp(email: "second@example.com", password: "secret-pass")
            func enrollment(_ phone: String, id: String? = nil) -> JSONValue {
                ["mfaEnrollmentId": .string(id ?? "id-\(phone)"), "phoneInfo": .string(phone), "displayName": "Phone"]
            }

            let set = try await client.admin(path, ["localId": .string(first), "mfa": ["enrollments": [enrollment("+16505550101")]],
                                                   "linkProviderUserInfo": ["providerId": "facebook.com", "rawId": "fb-1"]])
            #expect(set.status == 200, "\(set.body)")
            let looked = try await client.admin("/v1/projects/\(server.projectID)/accounts:lookup", ["localId": [.string(first)]])
            #expect(looked.firstUser?["mfaInfo"]?.arrayValue?.first?["phoneInfo"] == "+16505550101")
            #expect(looked.firstUser?["providerUserInfo"]?.arrayValue?.contains { $0["providerId"] == "facebook.com" } == true)
            // The linked account now signs the user in through lookup by federated id.
            let byFederatedID = try await client.admin("/v1/projects/\(server.projectID)/accounts:lookup", [
                "federatedUserId": [["providerId": "facebook.com", "rawId": "fb-1"]],
            ])
            #expect(byFederatedID.firstUser?["localId"] == .string(first))

            // A number given twice is kept once; an id twice is refused.
            let secondID = try #require(second.string("localId"))
            #expect(try await client.admin(path, ["localId": .string(secondID), "mfa": ["enrollments": [
                enrollment("+16505550102", id: "a"), enrollment("+16505550102", id: "b"),
            ]]]).status == 200)
            let twice = try await client.admin("/v1/projects/\(server.projectID)/accounts:lookup", ["localId": [.string(secondID)]])
            #expect(twice.firstUser?["mfaInfo"]?.arrayValue?.map { $0["mfaEnrollmentId"] } == ["a"])
            #expect(try await client.admin(path, ["localId": .string(secondID), "mfa": ["enrollments": [
                enrollment("+16505550102", id: "a"), enrollment("+16505550103", id: "a"),
            ]]]).errorCode == "DUPLICATE_MFA_ENROLLMENT_ID")
            // Refusals: another user's linked account, too many factors, TOTP, and non-admin callers.
            #expect(try await client.admin(path, ["localId": .string(secondID),
                                                  "linkProviderUserInfo": ["providerId": "facebook.com", "rawId": "fb-1"]])
                .errorCode == "FEDERATED_USER_ID_ALREADY_LINKED")
            #expect(try await client.admin(path, ["localId": .string(secondID),
                                                  "linkProviderUserInfo": ["providerId": "phone", "rawId": "+16505550199"]])
                .errorCode == "INVALID_ARGUMENT")
            #expect(try await client.admin(path, ["localId": .string(secondID), "mfa": ["enrollments": .array(
                (0..<6).map { enrollment("+1650555020\($0)") })]]).errorCode == "SECOND_FACTOR_LIMIT_EXCEEDED")
            #expect(try await client.admin(path, ["localId": .string(secondID), "mfa": ["enrollments": [["totpInfo": [:]]]]])
                .errorCode == "INVALID_ARGUMENT")
            #expect(try await client.post("/v1/accounts:update", ["idToken": second["idToken"] ?? .null, "mfa": ["enrollments": []]])
                .status == 403)
            // An empty list removes every factor.
            #expect(try await client.admin(path, ["localId": .string(first), "mfa": [:]]).status == 200)
            #expect(try await server.server.store.accounts.user(projectID: server.projectID, localID: first)?.mfaFactors.isEmpty == true)
        }
    }

    @Test func emailTemplatesAreSetThroughTheProjectConfig() async throws {
        try await withServer { server, client in
            let path = "/v2/projects/\(server.projectID)/config"
            func patch(_ mask: String, _ body: [String: JSONValue]) async throws -> TestClient.Reply {
                try await client.send("PATCH", path + "?updateMask=" + mask, body: JSONEncoder().encode(JSONValue.object(body)),
                                      headers: ["Authorization": "Bearer owner"])
            }
            let reset: JSONValue = ["subject": "Reset your %APP_NAME% password", "body": "<a href=\"%LINK%\">Reset</a>",
                                    "bodyFormat": "HTML", "senderDisplayName": "Support"]
            let set = try await patch("notification.sendEmail.resetPasswordTemplate",
                                      ["notification": ["sendEmail": ["resetPasswordTemplate": reset]]])
            #expect(set.status == 200, "\(set.body)")
            let shown = set["notification"]?["sendEmail"]
            #expect(shown?["resetPasswordTemplate"]?["customized"] == true)
            #expect(shown?["resetPasswordTemplate"]?["subject"] == "Reset your %APP_NAME% password")
            #expect(shown?["verifyEmailTemplate"]?["customized"] == false)
            let stored = try #require(try await server.server.projects.project(server.projectID)).settings.emailTemplates
            #expect(stored["PASSWORD_RESET"] == .init(subject: "Reset your %APP_NAME% password", body: "<a href=\"%LINK%\">Reset</a>",
                                                      bodyFormat: "HTML", senderDisplayName: "Support"))
            // A body without the link, or an unknown format, is refused; an empty template is the built-in one again.
            #expect(try await patch("notification.sendEmail.changeEmailTemplate", ["notification": ["sendEmail": [
                "changeEmailTemplate": ["subject": "Changed", "body": "no link"]]]]).errorCode == "INVALID_ARGUMENT")
            #expect(try await patch("notification.sendEmail.verifyEmailTemplate", ["notification": ["sendEmail": [
                "verifyEmailTemplate": ["subject": "Verify", "body": "%LINK%", "bodyFormat": "MARKDOWN"]]]]).errorCode == "INVALID_ARGUMENT")
            let cleared = try await patch("notification.sendEmail.resetPasswordTemplate", [:])
            #expect(cleared["notification"]?["sendEmail"]?["resetPasswordTemplate"]?["customized"] == false)
        }
    }

    @Test func bcryptHashesAreCheckedWithinBounds() {
        // OpenBSD's test vector, as $2a$, $2b$ and PHP's $2y$.
        let vector = "$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW"
        for prefix in ["$2a$", "$2b$", "$2y$"] {
            let hash = Data((prefix + vector.dropFirst(4)).utf8)
            #expect(ImportedPasswords.bcryptMatches("U*U", hash: hash), "\(prefix)")
            #expect(!ImportedPasswords.bcryptMatches("U*V", hash: hash), "\(prefix)")
        }
        // Unknown variants, truncated hashes, costs beyond the bound and NUL bytes are refused, not run.
        #expect(!ImportedPasswords.bcryptMatches("U*U", hash: Data(("$2x$" + vector.dropFirst(4)).utf8)))
        #expect(!ImportedPasswords.bcryptMatches("U*U", hash: Data(vector.dropLast(2).utf8)))
        #expect(!ImportedPasswords.bcryptMatches("U*U", hash: Data(("$2b$31$" + vector.dropFirst(7)).utf8)))
        #expect(!ImportedPasswords.bcryptMatches("U*U\u{0}x", hash: Data(vector.utf8)))
    }

    @Test func bulkDeleteQueryLinkedLookupAndSessionCookies() async throws {
        try await withServer { server, client in
            let path = "/v1/projects/\(server.projectID)"
            for index in 0..<3 {
                #expect(try await client.admin("\(path)/accounts", ["localId": .string("user-\(index)")]).status == 200)
            }
            let count = try await client.admin("\(path)/accounts:query", ["returnUserInfo": false])
            #expect(count["recordsCount"] == "3")
            let page = try await client.admin("\(path)/accounts:query", ["limit": "2", "offset": "1"])
            #expect(page["userInfo"]?.arrayValue?.compactMap { $0["localId"]?.stringValue } == ["user-1", "user-2"])

            let refused = try await client.admin("\(path)/accounts:batchDelete", ["localIds": ["user-0", "user-1"]])
            #expect(refused["errors"]?.arrayValue?.count == 2)
            let forced = try await client.admin("\(path)/accounts:batchDelete", ["localIds": ["user-0", "user-1"], "force": true])
            #expect(forced["errors"] == nil)
            #expect(try await client.admin("\(path)/accounts:query", ["returnUserInfo": false])["recordsCount"] == "1")

            // A user found by its linked Apple account.
            let apple = try await client.post("/v1/accounts:signInWithIdp", [
                "requestUri": "http://localhost", "returnSecureToken": true,
                "postBody": .string("id_token=" + FormURLEncoding.escape(#"{"sub":"apple-42"}"#) + "&providerId=apple.com"),
            ])
            let found = try await client.admin("/v1/accounts:lookup", [
                "federatedUserId": [["providerId": "apple.com", "rawId": "apple-42"]],
            ])
            #expect(found.firstUser?["localId"] == apple["localId"])

            // Session cookies: 5 minutes to 14 days, Flint's keys, the session issuer.
            let idToken = try #require(apple.string("idToken"))
            let tooLong = try await client.admin("\(path):createSessionCookie", ["idToken": .string(idToken), "validDuration": "1209601"])
            #expect(tooLong.errorMessage == "INVALID_DURATION")
            let cookie = try await client.admin("\(path):createSessionCookie", ["idToken": .string(idToken), "validDuration": "3600"])
            let cookieClaims = claims(of: cookie.string("sessionCookie"))
            #expect(cookieClaims["iss"] == .string("https://session.firebase.google.com/\(server.projectID)"))
            #expect(cookieClaims["sub"] == apple["localId"])
            #expect(await server.server.keyring.verify(try #require(cookie.string("sessionCookie"))) != nil)
        }
    }

    @Test func customTokensFromAnotherProjectOrAudienceAreRefused() async throws {
        try await withServer(emulator: false) { server, client in
            let other = try await server.server.serviceAccounts.create(projectID: "another-project")
            let own = try await server.server.serviceAccounts.create(projectID: server.projectID)
            func customToken(_ keyFile: ServiceAccounts.KeyFile, audience: String = ServiceAccounts.customTokenAudience) throws -> String {
                try keyFile.signedJWT(audience: audience, now: Int64(server.clock.now().timeIntervalSince1970),
                                      claims: ["uid": "custom-1"])
            }
            func exchange(_ token: String) async throws -> TestClient.Reply {
                try await client.post("/v1/accounts:signInWithCustomToken", ["token": .string(token), "returnSecureToken": true])
            }
            #expect(try await exchange(try customToken(own)).status == 200)
            #expect(try await exchange(try customToken(other)).errorCode == "CREDENTIAL_MISMATCH")
            #expect(try await exchange(try customToken(own, audience: "https://example.com")).errorCode == "INVALID_CUSTOM_TOKEN")
            #expect(try await exchange("not-a-token").errorCode == "INVALID_CUSTOM_TOKEN")
            // A revoked key signs nothing any more, and authenticates no admin call.
            try await server.server.store.serviceAccounts.revokeServiceAccount(keyID: own.private_key_id, at: Int64(server.clock.now().timeIntervalSince1970))
            #expect(try await exchange(try customToken(own)).errorCode == "INVALID_CUSTOM_TOKEN")
        }
    }
}
