@testable import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
import Testing

extension EmulatorSpec {
    /// `batch.spec.ts`: imports (`accounts:batchCreate`, legacy `uploadAccount`) and the legacy download.
    @Suite struct BatchImport {
        static let batchCreate = "/v1/projects/demo-flint/accounts:batchCreate"

        /// `rawPassword` is hashed like a new password; `allowOverwrite` replaces the whole account.
        @Test func rawPasswordsAreHashedAndOverwritesReplaceAccounts() async throws {
            try await withServer { (server: TestServer, client: TestClient) async throws in
                let imported = try await client.admin(Self.batchCreate, ["users": [
                    ["localId": "foo", "email": "foo@example.com", "rawPassword": "notasecret"],
                    ["localId": "bar", "phoneNumber": "+15555550100", "customAttributes": #"{"hello": "world"}"#],
                ]])
                #expect(imported.status == 200 && imported["error"] == nil, "\(imported.body)")
                let methods = try await client.post("/v1/accounts:createAuthUri", [
                    "continueUri": "http://example.com/", "identifier": "foo@example.com",
                ])
                #expect(methods["signinMethods"] == ["password"])
                let signedIn = try await client.post("/v1/accounts:signInWithPassword", [
                    "email": "foo@example.com", "password": "notasecret",
                ])
                #expect(signedIn["localId"] == "foo", "\(signedIn.body)")
                let phone = try await client.signInWithPhone("+15555550100", server: server)
                #expect(phone["localId"] == "bar")
                #expect(claims(of: phone.string("idToken"))["hello"] == "world")

                let google = try await client.post("/v1/accounts:signInWithIdp", [
                    "postBody": .string("providerId=google.com&id_token=" + FormURLEncoding.escape(#"{"sub":"doh"}"#)),
                    "requestUri": "http://localhost", "returnSecureToken": true,
                ])
                let googleID = try #require(google["localId"])
                let overwritten = try await client.admin(Self.batchCreate, ["allowOverwrite": true, "users": [
                    ["localId": googleID, "email": "foo2@example.com", "rawPassword": "notasecret"],
                ]])
                #expect(overwritten.status == 200 && overwritten["error"] == nil, "\(overwritten.body)")
                let user = try await client.admin("/v1/accounts:lookup", ["localId": [googleID]]).firstUser
                #expect(user?["providerUserInfo"] == [[
                    "providerId": "password", "rawId": "foo2@example.com", "email": "foo2@example.com",
                    "federatedId": "foo2@example.com",
                ]])
            }
        }

        /// Each faulty entry fails alone, in Firebase's words, in the order Firebase checks.
        @Test func faultyEntriesFailOneByOneInFirebaseWords() async throws {
            try await withServer { (_: TestServer, client: TestClient) async throws in
                let reply = try await client.admin(Self.batchCreate, ["users": Self.faultyEntries])
                #expect(reply.status == 200, "\(reply.body)")
                let failures = reply["error"]?.arrayValue ?? []
                #expect(failures.map { $0["index"] } == [0, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11].map { JSONValue.number(Double($0)) })
                #expect(failures.map { $0["message"]?.stringValue ?? "" } == Self.faultMessages(
                    federatedID: "((Parsing federatedId is not implemented in Auth Emulator; please specify providerId AND rawId as a workaround.))"))
                #expect(try await client.admin("/v1/accounts:lookup", ["localId": ["test1"]]).firstUser != nil)
            }
        }

        /// Production does not speak of the emulator: a bare `federatedId` is a missing field.
        @Test func productionNamesMissingProviderFieldsPlainly() async throws {
            try await withServer(emulator: false) { (server: TestServer, _: TestClient) async throws in
                let response = try await Self.importInProcess(server, ["users": Self.faultyEntries])
                #expect(response.error?.map(\.message) == Self.faultMessages(federatedID: "federatedId or (providerId & rawId) is required"))
            }
        }

        /// An import as an admin of the server's project, in process: production has no owner token to send.
        @discardableResult
        static func importInProcess(_ server: TestServer, _ body: [String: JSONValue]) async throws -> BatchCreateResponse {
            let request = try JSONDecoder().decode(BatchCreateRequest.self, from: JSONEncoder().encode(JSONValue.object(body)))
            return try await server.server.accounts.batchCreate(request, caller: try await server.server.adminCaller(projectID: server.projectID))
        }

        static let faultyEntries: JSONValue = [
            ["email": "foo@example.com"],
            ["localId": "test1"],
            ["localId": "test2", "email": "not#an$email"],
            ["localId": "test3", "phoneNumber": "not#a$phone%number"],
            ["localId": "test4", "customAttributes": "not#a$json%object"],
            ["localId": "test5", "customAttributes": #"{"sub": "123"}"#],
            ["localId": "test6", "customAttributes": .string(#"{"a":""# + String(repeating: "x", count: 998) + #""}"#)],
            ["localId": "test7", "providerUserInfo": [["providerId": "google.com"]]],
            ["localId": "test8", "providerUserInfo": [["rawId": "012345"]]],
            ["localId": "test9", "providerUserInfo": [["federatedId": "foo-bar"]]],
            ["localId": "test10", "mfaInfo": [["phoneInfo": "+15555550100"]]],
            ["localId": "test11", "email": "someone@example.com", "mfaInfo": [["phoneInfo": "+15555550100"]]],
        ]

        static func faultMessages(federatedID: String) -> [String] {
            [
                "localId is missing", "email is invalid", "phone number format is invalid",
                "Invalid custom claims provided.", "Custom claims provided include a reserved claim.",
                "Custom claims provided are too large.", "federatedId or (providerId & rawId) is required",
                "federatedId or (providerId & rawId) is required", federatedID,
                "Second factor account requires email to be presented.", "Second factor account requires email to be verified.",
            ]
        }

        /// An email or provider account another user holds, or an existing local id without `allowOverwrite`,
        /// fails that entry.
        @Test func existingAccountsAreNotTakenOver() async throws {
            try await withServer { (server: TestServer, client: TestClient) async throws in
                _ = try await client.signInWithLink("bar@example.com", server: server)
                _ = try await client.post("/v1/accounts:signInWithIdp", [
                    "postBody": .string("providerId=google.com&id_token=" + FormURLEncoding.escape(#"{"sub":"0123456"}"#)),
                    "requestUri": "http://localhost", "returnSecureToken": true,
                ])
                let anonymous = try #require(try await client.signUp()["localId"])
                let reply = try await client.admin(Self.batchCreate, ["sanityCheck": true, "users": [
                    ["localId": "test1", "email": "bar@example.com"],
                    ["localId": "test2", "providerUserInfo": [["providerId": "google.com", "rawId": "0123456"]]],
                    ["localId": anonymous],
                ]])
                #expect(reply["error"] == [
                    ["index": .number(0), "message": "email exists in other account in database"],
                    ["index": .number(1), "message": "raw id exists in other account in database"],
                    ["index": .number(2), "message": "localId belongs to an existing account - can not overwrite."],
                ])
            }
        }

        /// The emulator's own fake hashes come back verbatim and sign in.
        @Test func emulatorFakeHashesAreKeptAndChecked() async throws {
            let body: [String: JSONValue] = ["users": [[
                "localId": "foo", "email": "FOO@EXAMPLE.COM", "salt": "beach", "passwordHash": "fakeHash:salt=beach:password=hawaii",
            ]]]
            try await withServer { (_: TestServer, client: TestClient) async throws in
                let imported = try await client.admin(Self.batchCreate, body)
                #expect(imported.status == 200 && imported["error"] == nil, "\(imported.body)")
                let user = try await client.admin("/v1/accounts:lookup", ["localId": ["foo"]]).firstUser
                #expect(user?["passwordHash"] == "fakeHash:salt=beach:password=hawaii")
                #expect(user?["salt"] == "beach")
                let wrong = try await client.post("/v1/accounts:signInWithPassword", ["email": "FOO@EXAMPLE.COM", "password": "maui"])
                #expect(wrong.errorCode == "INVALID_PASSWORD")
                let signedIn = try await client.post("/v1/accounts:signInWithPassword", ["email": "FOO@EXAMPLE.COM", "password": "hawaii"])
                #expect(signedIn["localId"] == "foo", "\(signedIn.body)")
            }
            try await withServer(emulator: false) { (server: TestServer, _: TestClient) async throws in
                await #expect(throws: FlintError(.invalidArgument, "Unsupported hashAlgorithm (none)")) {
                    try await Self.importInProcess(server, body)
                }
            }
        }

        /// User records give a second factor's number in full twice, as `phoneInfo` and `unobfuscatedPhoneInfo`.
        @Test func recordsCarryUnobfuscatedPhoneInfo() async throws {
            try await withServer { (_: TestServer, client: TestClient) async throws in
                let imported = try await client.admin(Self.batchCreate, ["users": [[
                    "localId": "foo", "email": "foo@example.com", "emailVerified": true,
                    "mfaInfo": [["enrolledAt": "2123-04-05T06:07:28.990Z", "phoneInfo": "+15555550100"]],
                ]]])
                #expect(imported.status == 200 && imported["error"] == nil, "\(imported.body)")
                let factor = try await client.admin("/v1/accounts:lookup", ["localId": ["foo"]]).firstUser?["mfaInfo"]?.arrayValue?.first
                #expect(factor?["enrolledAt"] == "2123-04-05T06:07:28.990Z")
                #expect(factor?["phoneInfo"] == "+15555550100")
                #expect(factor?["unobfuscatedPhoneInfo"] == "+15555550100")
                #expect(factor?["mfaEnrollmentId"]?.stringValue?.isEmpty == false)
            }
        }

        /// The legacy v3 `uploadAccount` and `downloadAccount` name their project by `targetProjectId`, which
        /// they require before looking at credentials.
        @Test func legacyUploadAndDownloadNameTheirProject() async throws {
            try await withServer { (server: TestServer, client: TestClient) async throws in
                let legacy = "/www.googleapis.com/identitytoolkit/v3/relyingparty/"
                let uploaded = try await client.admin(legacy + "uploadAccount", [
                    "targetProjectId": .string(server.projectID),
                    "users": [["localId": "foo", "email": "foo@example.com", "rawPassword": "notasecret"], ["localId": "bar"]],
                ])
                #expect(uploaded.status == 200 && uploaded["error"] == nil, "\(uploaded.body)")
                let signedIn = try await client.post("/v1/accounts:signInWithPassword", ["email": "foo@example.com", "password": "notasecret"])
                #expect(signedIn["localId"] == "foo")

                let all = try await client.admin(legacy + "downloadAccount", ["targetProjectId": .string(server.projectID)])
                #expect(all["users"]?.arrayValue?.compactMap { $0["localId"] } == ["bar", "foo"])
                #expect(all["nextPageToken"] == nil)
                let first = try await client.admin(legacy + "downloadAccount", ["targetProjectId": .string(server.projectID), "maxResults": .number(1)])
                #expect(first["users"]?.arrayValue?.compactMap { $0["localId"] } == ["bar"])
                let token = try #require(first["nextPageToken"])
                let rest = try await client.admin(legacy + "downloadAccount", ["targetProjectId": .string(server.projectID), "nextPageToken": token])
                #expect(rest["users"]?.arrayValue?.compactMap { $0["localId"] } == ["foo"])
                #expect(rest["nextPageToken"] == nil)

                for name in ["uploadAccount", "downloadAccount"] {
                    let unnamed = try await client.post(legacy + name, ["users": [["localId": "x"]]])
                    #expect(unnamed.status == 400 && unnamed.errorMessage == "INSUFFICIENT_PERMISSION", "\(name)")
                    let keyOnly = try await client.post(legacy + name, ["targetProjectId": .string(server.projectID)])
                    #expect(keyOnly.status == 403, "\(name)")
                }
            }
        }
    }

    /// `rest.spec.ts`: the REST surface (CORS, enum values, credentials, `targetProjectId`), and the emulator's
    /// missing limits.
    @Suite struct Rest {
        /// Any `OPTIONS` request is a preflight, even without `Access-Control-Request-Method` (both modes).
        @Test(arguments: [true, false])
        func everyOptionsRequestIsAPreflight(emulator: Bool) async throws {
            try await withServer(emulator: emulator) { (_: TestServer, client: TestClient) async throws in
                let preflight = try await client.send("OPTIONS", "/", headers: [
                    "Origin": "example.com", "Access-Control-Request-Headers": "Authorization,X-Client-Version,X-Whatever-Header",
                    "Access-Control-Request-Private-Network": "true",
                ], includeKey: false)
                #expect(preflight.status == 204)
                #expect(preflight.headers["access-control-allow-origin"] == "example.com")
                #expect(Set(preflight.headers["access-control-allow-headers"]?.split(separator: ",").map(String.init) ?? [])
                    == ["Authorization", "X-Client-Version", "X-Whatever-Header"])
                #expect(preflight.headers["access-control-allow-private-network"] == "true")
            }
        }

        /// `requestType` may be the enum's protobuf number (Google's JSON mapping), on v1 and v3 paths.
        @Test func requestTypeMayBeAProtobufNumber() async throws {
            try await withServer { (_: TestServer, client: TestClient) async throws in
                for path in ["/v1/accounts:sendOobCode", "/www.googleapis.com/identitytoolkit/v3/relyingparty/getOobConfirmationCode"] {
                    let reply = try await client.admin(path, ["email": "bob@example.com", "requestType": .number(6), "returnOobLink": true])
                    #expect(reply.string("oobLink")?.contains("mode=signIn") == true, "\(path): \(reply.body)")
                }
                let unspecified = try await client.admin("/v1/accounts:sendOobCode", [
                    "email": "bob@example.com", "requestType": .number(0), "returnOobLink": true,
                ])
                #expect(unspecified.status == 400)
            }
        }

        /// The emulator ignores an `Authorization` header of another scheme (the request then needs a key);
        /// production refuses it.
        @Test func nonBearerAuthorizationIsIgnoredByTheEmulatorOnly() async throws {
            let basic = ["Authorization": "Basic YWxhZGRpbjpvcGVuc2VzYW1l"]
            try await withServer { (_: TestServer, client: TestClient) async throws in
                let reply = try await client.send("POST", "/v1/accounts:signUp", body: Data(#"{"returnSecureToken":true}"#.utf8),
                                                  headers: basic, includeKey: false)
                #expect(reply.status == 403)
                #expect(reply["error"]?["status"] == "PERMISSION_DENIED")
                let withKey = try await client.send("POST", "/v1/accounts:signUp", body: Data("{}".utf8), headers: basic)
                #expect(withKey.status == 200)
            }
            try await withServer(emulator: false) { (_: TestServer, client: TestClient) async throws in
                let reply = try await client.send("POST", "/v1/accounts:signUp", body: Data("{}".utf8), headers: basic)
                #expect(reply.status == 401)
            }
        }

        /// Only admin callers may name a project in the body (both modes).
        @Test(arguments: [true, false])
        func targetProjectIdNeedsAdmin(emulator: Bool) async throws {
            try await withServer(emulator: emulator) { (_: TestServer, client: TestClient) async throws in
                let reply = try await client.post("/v1/accounts:signUp", ["targetProjectId": "example2"])
                #expect(reply.status == 400)
                #expect(reply.errorMessage == "INSUFFICIENT_PERMISSION : Only authenticated requests can specify target_project_id.")
                #expect(try await client.post("/v1/accounts:signUp", ["targetProjectId": ""]).status == 200)
            }
        }

        /// The emulator limits no action emails and locks no account after wrong passwords.
        @Test func theEmulatorHasNoSendLimitsOrLockout() async throws {
            try await withServer { (_: TestServer, client: TestClient) async throws in
                for _ in 0...EmailLimits().perAddressPerHour {
                    #expect(try await client.sendSignInLink("alice@example.com").status == 200)
                }
                _ = try await client.signUp(email: "bob@example.com", password: "secret123")
                for _ in 0...Budget.passwordTries.fixedLimit! {
                    let wrong = try await client.post("/v1/accounts:signInWithPassword", ["email": "bob@example.com", "password": "guess-it"])
                    #expect(wrong.errorCode == "INVALID_PASSWORD")
                }
                let right = try await client.post("/v1/accounts:signInWithPassword", ["email": "bob@example.com", "password": "secret123"])
                #expect(right.status == 200)
            }
        }
    }

    /// `misc.spec.ts` and `customToken.spec.ts`: Secure Token refresh, session cookies and the claims tokens carry.
    @Suite struct TokenRefresh {
        /// The emulator's refresh answer names the project by its placeholder number; production by its id.
        @Test(arguments: [true, false])
        func refreshNamesTheProject(emulator: Bool) async throws {
            try await withServer(emulator: emulator) { (server: TestServer, client: TestClient) async throws in
                let signedUp = try await client.signUp()
                let form = "refresh_token=" + (signedUp.string("refreshToken") ?? "") + "&grantType=refresh_token"
                let refreshed = try await client.send("POST", "/securetoken.googleapis.com/v1/token", body: Data(form.utf8),
                                                      headers: ["Content-Type": "application/x-www-form-urlencoded"])
                #expect(refreshed.status == 200, "\(refreshed.body)")
                #expect(refreshed["project_id"] == .string(emulator ? "12345" : server.projectID))
                #expect(refreshed["user_id"] == signedUp["localId"])
                #expect(refreshed["access_token"] == refreshed["id_token"])
            }
        }

        /// A deleted user's refresh token: the emulator says INVALID_REFRESH_TOKEN, production USER_NOT_FOUND.
        @Test(arguments: [true, false])
        func deletedUsersTokensNoLongerRefresh(emulator: Bool) async throws {
            try await withServer(emulator: emulator) { (_: TestServer, client: TestClient) async throws in
                let signedUp = try await client.signUp(email: "gone@example.com", password: "secret123")
                #expect(try await client.post("/v1/accounts:delete", ["idToken": try #require(signedUp["idToken"])]).status == 200)
                let refreshed = try await client.refresh(signedUp.string("refreshToken"))
                #expect(refreshed.errorMessage == (emulator ? "INVALID_REFRESH_TOKEN" : "USER_NOT_FOUND"))
            }
        }

        /// A session cookie's duration must be 5 minutes to 14 days: else INVALID_DURATION, the server's code.
        @Test func sessionCookieDurationsOutOfRangeAreInvalid() async throws {
            try await withServer { (server: TestServer, client: TestClient) async throws in
                let idToken = try #require(try await client.signUp()["idToken"])
                for duration in ["1", "999999999999"] {
                    let reply = try await client.admin("/v1/projects/\(server.projectID):createSessionCookie", [
                        "idToken": idToken, "validDuration": .string(duration),
                    ])
                    #expect(reply.status == 400 && reply.errorMessage == "INVALID_DURATION", "\(duration)")
                }
            }
        }

        /// A custom token's own claims win over the account's custom claims, at sign-in and on refresh.
        @Test func customTokenClaimsBeatTheAccountsClaims() async throws {
            try await withServer { (_: TestServer, client: TestClient) async throws in
                let localID = try #require(try await client.signUp(email: "alice@example.com", password: "secret123").string("localId"))
                #expect(try await client.admin("/v1/accounts:update", [
                    "localId": .string(localID), "customAttributes": #"{"abc":"abc","foo":"bar"}"#,
                ]).status == 200)
                let token = #"{"uid":"\#(localID)","claims":{"abc":"def","ultimate":{"answer":42}}}"#
                let signedIn = try await client.post("/v1/accounts:signInWithCustomToken", ["token": .string(token), "returnSecureToken": true])
                #expect(signedIn.status == 200, "\(signedIn.body)")
                let refreshed = try await client.refresh(signedIn.string("refreshToken"))
                for idToken in [signedIn.string("idToken"), refreshed.string("id_token")] {
                    let payload = claims(of: idToken)
                    #expect(payload["abc"] == "def")
                    #expect(payload["foo"] == "bar")
                    #expect(payload["ultimate"] == ["answer": .number(42)])
                }
            }
        }
    }
}
