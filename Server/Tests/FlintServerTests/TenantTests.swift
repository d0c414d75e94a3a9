import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
import Testing

/// Identity Platform's multi-tenancy: tenant management as the official emulator's `tenant.spec.ts` specifies it, and
/// accounts that live in one tenant and never meet those of another (or of the project).
@Suite struct TenantTests {
    private static let owner = ["Authorization": "Bearer owner"]

    private func tenants(_ server: TestServer) -> String { "/identitytoolkit.googleapis.com/v2/projects/\(server.projectID)/tenants" }

    /// Creates a tenant with `fields` and returns its ID.
    private func register(_ client: TestClient, _ server: TestServer, _ fields: [String: JSONValue] = [:]) async throws -> String {
        let reply = try await client.post(tenants(server), fields, headers: Self.owner)
        #expect(reply.status == 200, "\(reply.body)")
        return try #require(reply.string("tenantId"))
    }

    private func send(_ client: TestClient, _ method: String, _ path: String, _ body: [String: JSONValue]? = nil) async throws
        -> TestClient.Reply {
        try await client.send(method, path, body: try body.map { try JSONEncoder().encode(JSONValue.object($0)) }, headers: Self.owner)
    }

    // MARK: Tenant management (tenant.spec.ts)

    @Test func createdTenantsShowWhatWasSetAndFirebaseDefaults() async throws {
        try await withServer { server, client in
            let mfa: JSONValue = ["enabledProviders": ["PROVIDER_UNSPECIFIED", "PHONE_SMS"], "state": "ENABLED"]
            let created = try await client.post(tenants(server), [
                "allowPasswordSignup": true, "disableAuth": false, "displayName": "display", "enableAnonymousUser": true,
                "enableEmailLinkSignin": true, "mfaConfig": mfa,
            ], headers: Self.owner)
            #expect(created.status == 200, "\(created.body)")
            let id = try #require(created.string("tenantId"))
            #expect(!id.isEmpty && created.string("name") == "projects/\(server.projectID)/tenants/\(id)")
            #expect(created["displayName"] == "display" && created["allowPasswordSignup"] == true && created["disableAuth"] == false)
            #expect(created["enableAnonymousUser"] == true && created["enableEmailLinkSignin"] == true && created["mfaConfig"] == mfa)
            // Read back whole, exactly as created.
            #expect(try await send(client, "GET", "\(tenants(server))/\(id)").body == created.body)

            let bare = try await client.post(tenants(server), [:], headers: Self.owner)
            #expect(bare["allowPasswordSignup"] == false && bare["disableAuth"] == false && bare["enableAnonymousUser"] == false)
            #expect(bare["enableEmailLinkSignin"] == false && bare["mfaConfig"] == ["state": "DISABLED", "enabledProviders": []])
        }
    }

    @Test func emulatorMakesAnUnknownTenantOnFirstUseWithEverythingOn() async throws {
        try await withServer { server, client in
            #expect(try await send(client, "GET", tenants(server))["tenants"] == [])
            let tenant = try await send(client, "GET", "\(tenants(server))/tenant-id")
            #expect(tenant.body == [
                "tenantId": "tenant-id", "name": .string("projects/\(server.projectID)/tenants/tenant-id"),
                "allowPasswordSignup": true, "disableAuth": false, "enableAnonymousUser": true, "enableEmailLinkSignin": true,
                "mfaConfig": ["enabledProviders": ["PHONE_SMS"], "state": "ENABLED"],
            ])
            #expect(try await send(client, "GET", tenants(server))["tenants"]?.arrayValue?.count == 1)
        }
    }

    @Test func tenantsArePagedInOrderOfTheirIDs() async throws {
        try await withServer { server, client in
            let ids = [try await register(client, server), try await register(client, server)].sorted()
            let all = try await send(client, "GET", tenants(server))
            #expect(all["tenants"]?.arrayValue?.compactMap { $0["tenantId"]?.stringValue }.sorted() == ids && all["nextPageToken"] == nil)
            let first = try await send(client, "GET", "\(tenants(server))?pageSize=1")
            #expect(first["tenants"]?.arrayValue?.map { $0["tenantId"] } == [.string(ids[0])])
            let token = try #require(first.string("nextPageToken"))
            let second = try await send(client, "GET", "\(tenants(server))?pageToken=\(token)")
            #expect(second["tenants"]?.arrayValue?.map { $0["tenantId"] } == [.string(ids[1])] && second["nextPageToken"] == nil)
            // A full page carries a token even when nothing follows.
            let full = try await send(client, "GET", "\(tenants(server))?pageSize=2")
            let after = try await send(client, "GET", "\(tenants(server))?pageToken=\(try #require(full.string("nextPageToken")))")
            #expect((after["tenants"]?.arrayValue ?? []).isEmpty && after["nextPageToken"] == nil)
        }
    }

    @Test func updatesFollowTheMaskOrReplaceEverything() async throws {
        try await withServer { server, client in
            let id = try await register(client, server, ["displayName": "display", "mfaConfig": ["enabledProviders": ["PROVIDER_UNSPECIFIED", "PHONE_SMS"]]])
            let item = "\(tenants(server))/\(id)"
            // Paths into a string or a list change nothing.
            let indexed = try await send(client, "PATCH", "\(item)?updateMask=displayName.0,mfaConfig.enabledProviders.nonexistentField",
                                         ["displayName": "unused", "mfaConfig": ["enabledProviders": ["PROVIDER_UNSPECIFIED"]]])
            #expect(indexed["displayName"] == "display" && indexed["mfaConfig"]?["enabledProviders"] == ["PROVIDER_UNSPECIFIED", "PHONE_SMS"])
            // A masked field the body lacks is cleared.
            let cleared = try await send(client, "PATCH", "\(item)?updateMask=displayName", [:])
            #expect(cleared.status == 200 && cleared["displayName"] == nil)
            let masked = try await send(client, "PATCH", "\(item)?updateMask=allowPasswordSignup,displayName,mfaConfig",
                                        ["allowPasswordSignup": true, "displayName": "renamed", "mfaConfig": ["state": "ENABLED", "enabledProviders": ["PHONE_SMS"]]])
            #expect(masked["allowPasswordSignup"] == true && masked["displayName"] == "renamed" && masked["enableAnonymousUser"] == false)
            // Without a mask: a full update, Firebase's defaults for what the body lacks.
            let full = try await send(client, "PATCH", item, ["enableAnonymousUser": true])
            #expect(full["allowPasswordSignup"] == false && full["enableAnonymousUser"] == true && full["displayName"] == nil)
            #expect(full["mfaConfig"] == ["enabledProviders": [], "state": "DISABLED"])
        }
    }

    @Test func deletedTenantsTakeTheirAccountsWithThem() async throws {
        try await withServer(emulator: false) { server, client in
            let key = try await server.server.serviceAccounts.create(projectID: server.projectID)
            let bearer = try key.signedJWT(audience: "https://identitytoolkit.googleapis.com/", now: server.clock.seconds)
            let admin = ["Authorization": "Bearer \(bearer)"]
            let created = try await client.post(tenants(server), ["displayName": "Acme Corp", "allowPasswordSignup": true], headers: admin)
            let id = try #require(created.string("tenantId"))
            #expect(id.hasPrefix("acme-corp-") && id.count == "acme-corp-".count + 5, "\(id)")
            #expect(try await client.post("/v1/accounts:signUp", ["email": "a@example.com", "password": "secret-1", "tenantId": .string(id)]).status == 200)
            // Production knows only tenants it made.
            let unknown = try await client.post("/v1/accounts:signUp", ["email": "a@example.com", "password": "secret-1", "tenantId": "nope"])
            #expect(unknown.errorCode == "TENANT_NOT_FOUND")
            // The Admin SDKs send `{}` with their DELETE.
            let deleted = try await client.send("DELETE", "\(tenants(server))/\(id)", body: Data("{}".utf8), headers: admin)
            #expect(deleted.status == 200, "\(deleted.body)")
            #expect(try await client.send("GET", "\(tenants(server))/\(id)", headers: admin).errorCode == "TENANT_NOT_FOUND")
            #expect(try await server.server.store.accounts.user(projectID: "\(server.projectID)/tenants/\(id)", email: "a@example.com") == nil)
            // An API key alone manages no tenant.
            #expect([401, 403].contains(try await client.post(tenants(server), [:]).status))
        }
    }

    // MARK: Accounts in tenants

    /// The same email (and the same uid) in two tenants and in the project: three accounts that never meet.
    @Test(arguments: TestDatabase.allCases)
    func accountsOfTwoTenantsNeverMeet(database: TestDatabase) async throws {
        try await withServer(database: database) { server, client in
            let a = try await register(client, server, ["allowPasswordSignup": true])
            let b = try await register(client, server, ["allowPasswordSignup": true])
            func signUp(_ tenant: String?, password: String) async throws -> TestClient.Reply {
                var body: [String: JSONValue] = ["email": "same@example.com", "password": .string(password), "returnSecureToken": true]
                body["tenantId"] = tenant.map(JSONValue.string)
                return try await client.post("/v1/accounts:signUp", body)
            }
            let inA = try await signUp(a, password: "password-a"), inB = try await signUp(b, password: "password-b")
            let inProject = try await signUp(nil, password: "password-p")
            #expect(Set([inA, inB, inProject].compactMap { $0.string("localId") }).count == 3)
            #expect(claims(of: inA.string("idToken"))["firebase"]?["tenant"] == .string(a))
            #expect(claims(of: inA.string("idToken"))["aud"] == .string(server.projectID))
            #expect(claims(of: inProject.string("idToken"))["firebase"]?["tenant"] == nil)

            // Each password signs in to its own tenant's account only.
            func signIn(_ tenant: String?, _ password: String) async throws -> TestClient.Reply {
                var body: [String: JSONValue] = ["email": "same@example.com", "password": .string(password), "returnSecureToken": true]
                body["tenantId"] = tenant.map(JSONValue.string)
                return try await client.post("/v1/accounts:signInWithPassword", body)
            }
            #expect(try await signIn(a, "password-a").string("localId") == inA.string("localId"))
            #expect(try await signIn(a, "password-b").status == 400)
            #expect(try await signIn(nil, "password-a").status == 400)

            // A token names its tenant: lookups without a tenantId follow it, one naming another tenant is refused.
            let lookup = try await client.post("/v1/accounts:lookup", ["idToken": .string(try #require(inA.string("idToken")))])
            #expect(lookup.firstUser?["localId"] == inA["localId"] && lookup.firstUser?["tenantId"] == .string(a))
            let crossed = try await client.post("/v1/accounts:lookup", ["idToken": .string(try #require(inA.string("idToken"))), "tenantId": .string(b)])
            #expect(crossed.errorCode == "TENANT_ID_MISMATCH")
            // Refreshing keeps the tenant; naming another tenant is refused.
            let refreshed = try await client.refresh(inA.string("refreshToken"))
            #expect(claims(of: refreshed.string("id_token"))["firebase"]?["tenant"] == .string(a), "\(refreshed.body)")
            let refreshedElsewhere = try await client.post("/securetoken.googleapis.com/v1/token", [
                "grant_type": "refresh_token", "refresh_token": .string(try #require(inA.string("refreshToken"))), "tenantId": .string(b),
            ])
            #expect(refreshedElsewhere.errorCode == "TENANT_ID_MISMATCH")

            // The Admin SDKs' tenant addresses see their tenant's accounts only.
            let adminLookup = try await client.admin("/v1/projects/\(server.projectID)/tenants/\(b)/accounts:lookup", ["email": ["same@example.com"]])
            #expect(adminLookup["users"]?.arrayValue?.map { $0["localId"] } == [inB["localId"]])
            let listed = try await send(client, "GET", "/v1/projects/\(server.projectID)/tenants/\(a)/accounts:batchGet")
            #expect(listed["users"]?.arrayValue?.map { $0["localId"] } == [inA["localId"]])
            // Path and body must name the same tenant.
            let mismatch = try await client.admin("/v1/projects/\(server.projectID)/tenants/\(a)/accounts:lookup",
                                                  ["email": ["same@example.com"], "tenantId": .string(b)])
            #expect(mismatch.errorCode == "TENANT_ID_MISMATCH")

            // The emulator's reset of one tenant leaves the others.
            #expect(try await send(client, "DELETE", "/emulator/v1/projects/\(server.projectID)/tenants/\(a)/accounts").status == 200)
            #expect(try await client.lookup(idToken: inA.string("idToken")).errorCode == "USER_NOT_FOUND")
            #expect(try await client.lookup(idToken: inB.string("idToken")).status == 200)
            #expect(try await client.lookup(idToken: inProject.string("idToken")).status == 200)
        }
    }

    /// Provider and email-link sign-ins create their accounts in the tenant; an address change mails its recovery link
    /// from there; a token of one tenant is refused under another's path.
    @Test func everySignInKindStaysInItsTenant() async throws {
        try await withServer { server, client in
            let tenant = try await register(client, server, ["allowPasswordSignup": true, "enableEmailLinkSignin": true])
            let idp = try await client.post("/v1/accounts:signInWithIdp", [
                "requestUri": "http://localhost", "returnSecureToken": true, "tenantId": .string(tenant),
                "postBody": .string(FormURLEncoding.encode([("id_token", #"{"sub":"g-1","email":"g@example.com"}"#), ("providerId", "google.com")])),
            ])
            #expect(idp["tenantId"] == .string(tenant), "\(idp.body)")
            #expect(try await client.lookup(idToken: idp.string("idToken")).firstUser?["tenantId"] == .string(tenant))

            let sent = try await client.admin("/v1/accounts:sendOobCode", [
                "email": "link@example.com", "requestType": "EMAIL_SIGNIN", "returnOobLink": true, "tenantId": .string(tenant),
            ])
            let linked = try await client.post("/v1/accounts:signInWithEmailLink", [
                "oobCode": .string(try #require(sent.string("oobCode"))), "email": "link@example.com", "tenantId": .string(tenant),
            ])
            #expect(try await client.lookup(idToken: linked.string("idToken")).firstUser?["tenantId"] == .string(tenant), "\(linked.body)")

            let alice = try await client.post("/v1/accounts:signUp", ["email": "alice@example.com", "password": "notasecret",
                                                                       "tenantId": .string(tenant), "returnSecureToken": true])
            let idToken = JSONValue.string(try #require(alice.string("idToken")))
            #expect(try await client.post("/v1/accounts:update", ["idToken": idToken, "email": "bob@example.com", "tenantId": .string(tenant)]).status == 200)
            let oobs = try await send(client, "GET", "/emulator/v1/projects/\(server.projectID)/tenants/\(tenant)/oobCodes")
            let recovery = try #require(oobs["oobCodes"]?.arrayValue?.last)
            #expect(recovery["requestType"] == "RECOVER_EMAIL" && recovery["email"] == "alice@example.com")
            #expect(recovery["oobLink"]?.stringValue?.contains(tenant) == true)

            let elsewhere = try await client.admin("/v1/projects/\(server.projectID)/tenants/not-matching-tenant-id/accounts:lookup",
                                                   ["idToken": idToken])
            #expect(elsewhere.errorCode == "TENANT_ID_MISMATCH")
        }
    }

    /// A tenant's identity providers and password policy are its own.
    @Test func providersAndPasswordPolicyAreTheTenants() async throws {
        try await withServer { server, client in
            let tenant = try await register(client, server, [
                "allowPasswordSignup": true,
                "passwordPolicyConfig": ["passwordPolicyEnforcementState": "ENFORCE",
                                         "passwordPolicyVersions": [["customStrengthOptions": ["containsNumericCharacter": true]]]],
            ])
            let tenantConfigs = "/v2/projects/\(server.projectID)/tenants/\(tenant)/oauthIdpConfigs"
            let created = try await send(client, "POST", tenantConfigs + "?oauthIdpConfigId=oidc.acme", [
                "clientId": "acme-client", "issuer": "https://login.acme.example", "displayName": "Acme", "enabled": true,
            ])
            #expect(created["name"] == .string("projects/\(server.projectID)/tenants/\(tenant)/oauthIdpConfigs/oidc.acme"), "\(created.body)")
            #expect(try await send(client, "GET", tenantConfigs)["oauthIdpConfigs"]?.arrayValue?.count == 1)
            #expect((try await send(client, "GET", "/v2/projects/\(server.projectID)/oauthIdpConfigs")["oauthIdpConfigs"]?.arrayValue ?? []).isEmpty)

            let policy = try await client.send("GET", "/v2/passwordPolicy?tenantId=\(tenant)")
            #expect(policy["customStrengthOptions"]?["containsNumericCharacter"] == true, "\(policy.body)")
            #expect(try await client.send("GET", "/v2/passwordPolicy")["customStrengthOptions"]?["containsNumericCharacter"] == nil)
            let weak = try await client.post("/v1/accounts:signUp", ["email": "a@example.com", "password": "no-digits", "tenantId": .string(tenant)])
            #expect(weak.errorCode == "PASSWORD_DOES_NOT_MEET_REQUIREMENTS")
            #expect(try await client.post("/v1/accounts:signUp", ["email": "a@example.com", "password": "no-digits"]).status == 200)
        }
    }

    /// Second factors guard sign-ins in a tenant, and a pending sign-in finishes in its own tenant only.
    @Test func secondFactorsGuardSignInsInTheirTenant() async throws {
        try await withServer { server, client in
            let smsFactors: JSONValue = ["state": "ENABLED", "enabledProviders": ["PHONE_SMS"]]
            let tenant = try await register(client, server, ["allowPasswordSignup": true, "mfaConfig": smsFactors])
            let other = try await register(client, server, ["allowPasswordSignup": true, "mfaConfig": smsFactors])
            let user: [String: JSONValue] = ["email": "alice@example.com", "password": "notasecret", "tenantId": .string(tenant)]
            #expect(try await client.post("/v1/accounts:signUp", user.merging(["mfaInfo": [["phoneInfo": "+15555550100"]]]) { $1 }).status == 200)
            let first = try await client.post("/v1/accounts:signInWithPassword", user)
            #expect(first["idToken"] == nil && first["refreshToken"] == nil && first["mfaInfo"]?.arrayValue?.count == 1, "\(first.body)")
            let pending = try #require(first.string("mfaPendingCredential"))
            let enrollment = try #require(first["mfaInfo"]?.arrayValue?.first?["mfaEnrollmentId"])
            func start(in tenantID: String) async throws -> TestClient.Reply {
                try await client.post("/v2/accounts/mfaSignIn:start", [
                    "mfaPendingCredential": .string(pending), "mfaEnrollmentId": enrollment, "tenantId": .string(tenantID),
                ])
            }
            #expect(try await start(in: other).errorCode == "INVALID_MFA_PENDING_CREDENTIAL")
            let started = try await start(in: tenant)
            let sessionInfo = try #require(started["phoneResponseInfo"]?["sessionInfo"]?.stringValue, "\(started.body)")
            let codes = try await send(client, "GET", "/emulator/v1/projects/\(server.projectID)/tenants/\(tenant)/verificationCodes")
            let code = try #require(codes["verificationCodes"]?.arrayValue?.last?["code"])
            let done = try await client.post("/v2/accounts/mfaSignIn:finalize", [
                "mfaPendingCredential": .string(pending), "tenantId": .string(tenant),
                "phoneVerificationInfo": ["sessionInfo": .string(sessionInfo), "code": code],
            ])
            let tokenClaims = claims(of: done.string("idToken"))
            #expect(tokenClaims["firebase"]?["tenant"] == .string(tenant), "\(done.body)")
            #expect(tokenClaims["firebase"]?["sign_in_second_factor"] == "phone")
        }
    }

    /// A tenant's switches refuse as Firebase's do.
    @Test func tenantSwitchesRefuseAsFirebase() async throws {
        try await withServer { server, client in
            let off = try await register(client, server, ["disableAuth": true])
            #expect(try await client.post("/v1/accounts:signUp", ["tenantId": .string(off)]).errorCode == "PROJECT_DISABLED")
            #expect(try await client.post("/v1/accounts:sendVerificationCode", ["tenantId": .string(off)]).errorCode == "PROJECT_DISABLED")
            // Managing a switched-off tenant still works.
            #expect(try await send(client, "GET", "\(tenants(server))/\(off)")["disableAuth"] == true)

            let closed = try await register(client, server)
            func call(_ name: String, _ body: [String: JSONValue]) async throws -> String? {
                try await client.post("/v1/accounts:\(name)", body.merging(["tenantId": .string(closed)]) { $1 }).errorCode
            }
            #expect(try await call("signUp", ["email": "me@example.com", "password": "notasecret"]) == "OPERATION_NOT_ALLOWED")
            #expect(try await call("signUp", ["returnSecureToken": true]) == "ADMIN_ONLY_OPERATION")
            #expect(try await call("signInWithPassword", ["email": "me@example.com", "password": "notasecret"]) == "PASSWORD_LOGIN_DISABLED")
            #expect(try await call("signInWithEmailLink", [:]) == "OPERATION_NOT_ALLOWED")
            let mfa = try await client.post("/v2/accounts/mfaEnrollment:start", ["tenantId": .string(closed)])
            #expect(mfa.errorCode == "OPERATION_NOT_ALLOWED")
            // As the official emulator, no phone sign-in in tenants in emulator mode.
            let open = try await register(client, server, ["disableAuth": false])
            let phone = try await client.post("/v1/accounts:sendVerificationCode", ["tenantId": .string(open)])
            #expect(phone.errorCode == "UNSUPPORTED_TENANT_OPERATION")
        }
    }

    /// Custom tokens name their tenant; imports too; email links carry it to the page that completes them.
    @Test func customTokensImportsAndLinksNameTheirTenant() async throws {
        try await withServer { server, client in
            let tenant = try await register(client, server, ["allowPasswordSignup": true])
            func customToken(_ tenantID: String?) -> String {
                var claims: [String: JSONValue] = ["uid": "someuid", "aud": .string(ServiceAccounts.customTokenAudience)]
                claims["tenant_id"] = tenantID.map(JSONValue.string)
                let payload = Base64URL.encode(try! JSONEncoder().encode(JSONValue.object(claims)))
                return Base64URL.encode(Data(#"{"alg":"none","typ":"JWT"}"#.utf8)) + "." + payload + "."
            }
            let mismatch = try await client.post("/v1/accounts:signInWithCustomToken",
                                                 ["token": .string(customToken("not-matching-tenant-id")), "tenantId": .string(tenant)])
            #expect(mismatch.errorCode == "TENANT_ID_MISMATCH")
            let signedIn = try await client.post("/v1/accounts:signInWithCustomToken",
                                                 ["token": .string(customToken(tenant)), "tenantId": .string(tenant), "returnSecureToken": true])
            #expect(signedIn["isNewUser"] == true && claims(of: signedIn.string("idToken"))["firebase"]?["tenant"] == .string(tenant))

            let imported = try await client.admin("/v1/projects/\(server.projectID)/accounts:batchCreate", [
                "tenantId": .string(tenant), "users": [["localId": "test1", "tenantId": "not-matching-tenant-id"], ["localId": "test2", "tenantId": .string(tenant)]],
            ])
            #expect(imported["error"] == [["index": .number(0), "message": "Tenant id in userInfo does not match the tenant id in request."]])
            let test2 = try await client.admin("/v1/projects/\(server.projectID)/tenants/\(tenant)/accounts:lookup", ["localId": ["test2"]])
            #expect(test2.firstUser?["tenantId"] == .string(tenant))

            let user = try await client.post("/v1/accounts:signUp", ["email": "alice@example.com", "password": "notasecret",
                                                                      "tenantId": .string(tenant), "returnSecureToken": true])
            let changed = try await client.post("/v1/accounts:sendOobCode", [
                "requestType": "VERIFY_AND_CHANGE_EMAIL", "idToken": .string(try #require(user.string("idToken"))),
                "newEmail": "bob@example.com", "tenantId": .string(tenant),
            ])
            #expect(changed.status == 200, "\(changed.body)")
            let oobs = try await send(client, "GET", "/emulator/v1/projects/\(server.projectID)/tenants/\(tenant)/oobCodes")
            let link = try #require(oobs["oobCodes"]?.arrayValue?.first?["oobLink"]?.stringValue)
            #expect(link.contains("tenantId=\(tenant)"), "\(link)")
            // The project's own listing has none of the tenant's codes.
            #expect((try await send(client, "GET", "/emulator/v1/projects/\(server.projectID)/oobCodes")["oobCodes"]?.arrayValue ?? []).isEmpty)
        }
    }
}
