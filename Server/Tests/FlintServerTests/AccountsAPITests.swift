@testable import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
import Testing

/// The account operations over HTTP, on both databases.
@Suite struct AccountsAPITests {
    @Test(arguments: TestDatabase.allCases)
    func anonymousSignUpThenUpgradeToPassword(database: TestDatabase) async throws {
        try await withServer(database: database) { _, client in
            let anonymous = try await client.signUp()
            let anonymousClaims = claims(of: anonymous.string("idToken"))
            #expect(anonymousClaims["provider_id"] == .string("anonymous"))
            #expect(anonymousClaims["firebase"]?.objectValue?["sign_in_provider"] == .string("anonymous"))
            #expect(anonymous.string("expiresIn") == "3600")
            let localID = try #require(anonymous.string("localId"))

            let upgraded = try await client.post("/v1/accounts:signUp", [
                "idToken": anonymous["idToken"]!, "email": "New@Example.com", "password": "secret123",
                "returnSecureToken": true,
            ])
            #expect(upgraded.status == 200)
            #expect(upgraded.string("localId") == localID)
            #expect(claims(of: upgraded.string("idToken"))["firebase"]?.objectValue?["sign_in_provider"] == .string("password"))

            let signIn = try await client.post("/v1/accounts:signInWithPassword", [
                "email": "new@example.com", "password": "secret123", "returnSecureToken": true,
            ])
            #expect(signIn.string("localId") == localID)
            #expect(signIn["registered"] == .bool(true))
            let user = try await client.lookup(idToken: signIn.string("idToken")).firstUser
            #expect(user?["email"] == .string("new@example.com"))
            #expect(user?["passwordHash"] == .string("UkVEQUNURUQ="))
            #expect(user?["salt"] == nil)
            #expect(user?["providerUserInfo"]?.arrayValue?.first?.objectValue?["providerId"] == .string("password"))
        }
    }

    @Test(arguments: TestDatabase.allCases)
    func passwordErrors(database: TestDatabase) async throws {
        try await withServer(database: database) { _, client in
            _ = try await client.signUp(email: "taken@example.com", password: "secret123")
            let cases: [(path: String, body: [String: JSONValue], message: String)] = [
                ("/v1/accounts:signUp", ["email": "taken@example.com", "password": "another1"], "EMAIL_EXISTS"),
                ("/v1/accounts:signUp", ["email": "TAKEN@example.com", "password": "another1"], "EMAIL_EXISTS"),
                ("/v1/accounts:signUp", ["email": "x@example.com", "password": "12345"],
                 "WEAK_PASSWORD : Password should be at least 6 characters"),
                ("/v1/accounts:signUp", ["email": "not-an-email", "password": "secret123"], "INVALID_EMAIL"),
                ("/v1/accounts:signUp", ["email": "x@example.com"], "MISSING_PASSWORD"),
                ("/v1/accounts:signInWithPassword", ["email": "taken@example.com", "password": "wrong-one"], "INVALID_PASSWORD"),
                ("/v1/accounts:signInWithPassword", ["email": "nobody@example.com", "password": "secret123"], "EMAIL_NOT_FOUND"),
                ("/v1/accounts:signInWithPassword", ["email": "taken@example.com"], "MISSING_PASSWORD"),
            ]
            for testCase in cases {
                let reply = try await client.post(testCase.path, testCase.body)
                #expect(reply.status == 400, "\(testCase.body)")
                #expect(reply.errorMessage == testCase.message, "\(testCase.body)")
                #expect(reply.body.objectValue?["error"]?.objectValue?["code"] == .number(400))
            }
        }
    }

    @Test func productionHidesWhichEmailsExist() async throws {
        try await withServer(emulator: false) { _, client in
            _ = try await client.signUp(email: "known@example.com", password: "secret123")
            let wrongPassword = try await client.post(
                "/v1/accounts:signInWithPassword", ["email": "known@example.com", "password": "wrong-one"])
            let unknown = try await client.post(
                "/v1/accounts:signInWithPassword", ["email": "unknown@example.com", "password": "wrong-one"])
            #expect(wrongPassword.errorMessage == "INVALID_LOGIN_CREDENTIALS")
            #expect(unknown.errorMessage == "INVALID_LOGIN_CREDENTIALS")
            let methods = try await client.post("/v1/accounts:createAuthUri", ["identifier": "known@example.com", "continueUri": "http://localhost"])
            #expect(methods["registered"] == nil && methods["signinMethods"] == nil && methods.string("sessionId") != nil)
        }
    }

    @Test(arguments: TestDatabase.allCases)
    func profileUpdatesAndPasswordChangeRevokeOldSessions(database: TestDatabase) async throws {
        try await withServer(database: database) { server, client in
            let signUp = try await client.signUp(email: "p@example.com", password: "secret123")
            let oldID = signUp.string("idToken")
            let oldRefresh = signUp.string("refreshToken")

            let profile = try await client.post("/v1/accounts:update", [
                "idToken": .string(oldID!), "displayName": "Pat", "photoUrl": "https://example.com/p.png",
                "returnSecureToken": true,
            ])
            #expect(profile.string("displayName") == "Pat")
            #expect(profile["idToken"] == nil, "a profile change keeps the session")
            let cleared = try await client.post("/v1/accounts:update", [
                "idToken": .string(oldID!), "deleteAttribute": ["PHOTO_URL"],
            ])
            #expect(cleared["photoUrl"] == nil && cleared.string("displayName") == "Pat")

            server.clock.advance(seconds: 1)
            let changed = try await client.post("/v1/accounts:update", [
                "idToken": .string(oldID!), "password": "newsecret", "returnSecureToken": true,
            ])
            let newID = try #require(changed.string("idToken"))
            let newRefresh = try #require(changed.string("refreshToken"))

            #expect(try await client.lookup(idToken: oldID).errorMessage == "TOKEN_EXPIRED")
            #expect(try await client.refresh(oldRefresh).errorMessage == "TOKEN_EXPIRED")
            #expect(try await client.lookup(idToken: newID).firstUser?["displayName"] == .string("Pat"))
            #expect(try await client.refresh(newRefresh).status == 200)
            let oldPassword = try await client.post(
                "/v1/accounts:signInWithPassword", ["email": "p@example.com", "password": "secret123"])
            #expect(oldPassword.errorMessage == "INVALID_PASSWORD")
            let newPassword = try await client.post(
                "/v1/accounts:signInWithPassword", ["email": "p@example.com", "password": "newsecret"])
            #expect(newPassword.status == 200)
        }
    }

    @Test(arguments: TestDatabase.allCases)
    func deleteAccount(database: TestDatabase) async throws {
        try await withServer(database: database) { _, client in
            let signUp = try await client.signUp(email: "d@example.com", password: "secret123")
            let deleted = try await client.post("/v1/accounts:delete", ["idToken": signUp["idToken"]!])
            #expect(deleted.status == 200)
            #expect(try await client.lookup(idToken: signUp.string("idToken")).errorMessage == "USER_NOT_FOUND")
            // The emulator's answer; production's USER_NOT_FOUND is checked in EmulatorSpec.TokenRefresh.
            #expect(try await client.refresh(signUp.string("refreshToken")).errorMessage == "INVALID_REFRESH_TOKEN")
            // The email is free again.
            _ = try await client.signUp(email: "d@example.com", password: "secret123")
        }
    }

    @Test func refreshTokensAndTheirErrors() async throws {
        try await withServer { server, client in
            let signUp = try await client.signUp(email: "r@example.com", password: "secret123")
            let refreshToken = try #require(signUp.string("refreshToken"))
            server.clock.advance(seconds: 60)

            // Form-encoded, as the JS SDK sends it.
            let form = try await client.send(
                "POST", "/securetoken.googleapis.com/v1/token",
                body: Data("grant_type=refresh_token&refresh_token=\(refreshToken)".utf8),
                headers: ["Content-Type": "application/x-www-form-urlencoded"])
            #expect(form.status == 200)
            #expect(form.string("expires_in") == "3600" && form.string("token_type") == "Bearer")
            #expect(form.string("refresh_token") == refreshToken && form.string("user_id") == signUp.string("localId"))
            let refreshed = claims(of: form.string("id_token"))
            #expect(refreshed["auth_time"] == claims(of: signUp.string("idToken"))["auth_time"], "auth_time is the sign-in's")
            #expect(refreshed["iat"] != claims(of: signUp.string("idToken"))["iat"])

            // camelCase JSON, as the iOS SDK's older versions send it.
            let camel = try await client.post(
                "/securetoken.googleapis.com/v1/token", ["grantType": "refresh_token", "refreshToken": .string(refreshToken)])
            #expect(camel.status == 200)

            #expect(try await client.post("/securetoken.googleapis.com/v1/token", [:]).errorMessage == "MISSING_GRANT_TYPE")
            #expect(try await client.post("/securetoken.googleapis.com/v1/token", ["grant_type": "password"]).errorMessage == "INVALID_GRANT_TYPE")
            #expect(try await client.post("/securetoken.googleapis.com/v1/token", ["grant_type": "refresh_token"]).errorMessage == "MISSING_REFRESH_TOKEN")
            #expect(try await client.refresh("garbage").errorMessage == "INVALID_REFRESH_TOKEN")
            #expect(try await client.refresh(refreshToken + "x").errorMessage == "INVALID_REFRESH_TOKEN")

            let disabled = try await client.admin("/v1/accounts:update", ["localId": signUp["localId"]!, "disableUser": true])
            #expect(disabled.status == 200)
            #expect(try await client.refresh(refreshToken).errorMessage == "USER_DISABLED")
            #expect(try await client.lookup(idToken: signUp.string("idToken")).errorMessage == "USER_DISABLED")
            let signIn = try await client.post("/v1/accounts:signInWithPassword", ["email": "r@example.com", "password": "secret123"])
            #expect(signIn.errorMessage == "USER_DISABLED")
        }
    }

    @Test func signInMethodsForAnEmail() async throws {
        try await withServer { _, client in
            _ = try await client.signUp(email: "m@example.com", password: "secret123")
            let known = try await client.post("/v1/accounts:createAuthUri", ["identifier": "m@example.com", "continueUri": "http://localhost"])
            #expect(known["registered"] == .bool(true))
            #expect(known["signinMethods"] == .array(["password"]))
            let unknown = try await client.post("/v1/accounts:createAuthUri", ["identifier": "u@example.com", "continueUri": "http://localhost"])
            #expect(unknown["registered"] == .bool(false))
            #expect(try await client.post("/v1/accounts:createAuthUri", [:]).errorMessage == "MISSING_IDENTIFIER")
        }
    }

    @Test func legacyV3NamesReachTheSameOperations() async throws {
        try await withServer { _, client in
            let v3 = "/www.googleapis.com/identitytoolkit/v3/relyingparty"
            let signUp = try await client.post("\(v3)/signupNewUser", ["email": "v3@example.com", "password": "secret123", "returnSecureToken": true])
            #expect(signUp.status == 200)
            let signIn = try await client.post("\(v3)/verifyPassword", ["email": "v3@example.com", "password": "secret123", "returnSecureToken": true])
            #expect(signIn.string("localId") == signUp.string("localId"))
            let info = try await client.post("\(v3)/getAccountInfo", ["idToken": signIn["idToken"]!])
            #expect(info.firstUser?["email"] == .string("v3@example.com"))
            let set = try await client.post("\(v3)/setAccountInfo", ["idToken": signIn["idToken"]!, "displayName": "Three"])
            #expect(set.string("displayName") == "Three")
            let config = try await client.send("GET", "\(v3)/getProjectConfig")
            #expect(config["authorizedDomains"]?.arrayValue?.contains(.string("localhost")) == true)
            let hostPrefixed = try await client.post("/identitytoolkit.googleapis.com/v1/accounts:lookup", ["idToken": signIn["idToken"]!])
            #expect(hostPrefixed.status == 200)
            #expect(try await client.post("\(v3)/deleteAccount", ["idToken": signIn["idToken"]!]).status == 200)
        }
    }

    @Test func adminOperationsWithEmulatorOwnerToken() async throws {
        try await withServer { server, client in
            let project = "/v1/projects/\(server.projectID)"
            let created = try await client.admin("\(project)/accounts", [
                "localId": "admin-made", "email": "Admin@Example.com", "password": "secret123", "emailVerified": true,
                "displayName": "Made by admin",
            ])
            #expect(created.string("localId") == "admin-made" && created["idToken"] == nil)
            let found = try await client.admin("\(project)/accounts:lookup", ["email": ["admin@example.com"]])
            #expect(found.firstUser?["localId"] == .string("admin-made"))
            #expect(found.firstUser?["salt"] != nil, "admins see the real hash and salt")

            let claimsUpdate = try await client.admin("\(project)/accounts:update", [
                "localId": "admin-made", "customAttributes": #"{"role":"editor","level":3}"#,
            ])
            #expect(claimsUpdate.status == 200)
            let forbidden = try await client.admin("\(project)/accounts:update", [
                "localId": "admin-made", "customAttributes": #"{"sub":"someone-else"}"#,
            ])
            #expect(forbidden.errorMessage == "FORBIDDEN_CLAIM : sub")
            let signIn = try await client.post("/v1/accounts:signInWithPassword", ["email": "admin@example.com", "password": "secret123"])
            let tokenClaims = claims(of: signIn.string("idToken"))
            #expect(tokenClaims["role"] == .string("editor") && tokenClaims["level"] == .number(3))
            #expect(tokenClaims["sub"] == .string("admin-made"))

            for index in 0..<3 { _ = try await client.admin("\(project)/accounts", ["localId": .string("zz\(index)")]) }
            let page = try await client.send("GET", "\(project)/accounts:batchGet?maxResults=2", headers: ["Authorization": "Bearer owner"])
            #expect(page["users"]?.arrayValue?.count == 2)
            let token = try #require(page.string("nextPageToken"))
            let rest = try await client.send("GET", "\(project)/accounts:batchGet?maxResults=10&nextPageToken=\(token)", headers: ["Authorization": "Bearer owner"])
            #expect(rest["users"]?.arrayValue?.count == 2 && rest["nextPageToken"] == nil)

            #expect(try await client.admin("\(project)/accounts:delete", ["localId": "admin-made"]).status == 200)
            #expect(try await client.admin("\(project)/accounts:delete", ["localId": "admin-made"]).errorMessage == "USER_NOT_FOUND")
            // Without the owner token the admin paths are closed.
            let anonymousAdmin = try await client.post("\(project)/accounts:lookup", ["localId": ["zz0"]])
            #expect(anonymousAdmin.status == 403)
            let badBearer = try await client.post("/v1/accounts:lookup", ["localId": ["zz0"]], headers: ["Authorization": "Bearer nope"])
            #expect(badBearer.status == 401)
        }
    }
}

@Suite struct SignInThrottleTests {
    /// Production only: the emulator has no lockout (`EmulatorSpec.Rest.theEmulatorHasNoSendLimitsOrLockout`).
    @Test(arguments: TestDatabase.allCases)
    func tooManyWrongPasswordsLockTheAccountForAWhile(database: TestDatabase) async throws {
        try await withServer(emulator: false, database: database) { server, client in
            _ = try await client.signUp(email: "locked@example.com", password: "secret123")
            for _ in 0..<Budget.passwordTries.fixedLimit! {
                let wrong = try await client.post("/v1/accounts:signInWithPassword", ["email": "locked@example.com", "password": "guess-it"])
                // New production projects protect emails, so a wrong password is INVALID_LOGIN_CREDENTIALS.
                #expect(wrong.errorMessage == "INVALID_LOGIN_CREDENTIALS")
            }
            let locked = try await client.post("/v1/accounts:signInWithPassword", ["email": "locked@example.com", "password": "secret123"])
            #expect(locked.errorCode == "TOO_MANY_ATTEMPTS_TRY_LATER")
            // Other accounts are not affected.
            _ = try await client.signUp(email: "free@example.com", password: "secret123")
            #expect(try await client.post("/v1/accounts:signInWithPassword", ["email": "free@example.com", "password": "secret123"]).status == 200)

            server.clock.advance(seconds: 15 * 60)
            let later = try await client.post("/v1/accounts:signInWithPassword", ["email": "locked@example.com", "password": "secret123"])
            #expect(later.status == 200)
        }
    }
}
