import Crypto
import FlintAdmin
import FlintTestSupport
import FlintWire
import Foundation
import Testing

/// FlintAdmin against live Flint servers: production mode with a `flint service-accounts create` key (its JWT-bearer
/// grant at the server's `/token`, its JWKS), on SQLite and PostgreSQL; and emulator mode with `Bearer owner`, as
/// `FIREBASE_AUTH_EMULATOR_HOST` sets it up. The same calls, the same results.
@Suite struct LiveFlintTests {
    /// A production server, and an admin client of its project signed in with a fresh service-account key.
    static func withProduction(_ database: TestDatabase,
                               _ body: (AdminAuth, TestServer, TestClient) async throws -> Void) async throws {
        try await withServer(emulator: false, database: database) { server, client in
            let keyFile = try await server.server.serviceAccounts.create(projectID: server.projectID)
            let account = try ServiceAccount(json: JSONEncoder().encode(keyFile))
            let auth = try AdminAuth(credential: .serviceAccount(account), endpoints: .flint(server.baseURL),
                                     now: { server.clock.now() })
            try await body(auth, server, client)
        }
    }

    /// An emulator-mode server and the client every Admin SDK makes when `FIREBASE_AUTH_EMULATOR_HOST` names it.
    static func withEmulator(_ database: TestDatabase,
                             _ body: (AdminAuth, TestServer, TestClient) async throws -> Void) async throws {
        try await withServer(emulator: true, database: database) { server, client in
            let keyFile = try await server.server.serviceAccounts.create(projectID: server.projectID)
            let host = "127.0.0.1:\(server.port)"
            let fromEnvironment = try AdminAuth(serviceAccount: ServiceAccount(json: JSONEncoder().encode(keyFile)),
                                                environment: ["FIREBASE_AUTH_EMULATOR_HOST": host])
            #expect(fromEnvironment.endpoints.api == AdminEndpoints.emulator(host: host).api && fromEnvironment.endpoints.isEmulator)
            // The same client on the server's clock, which the tests move.
            let auth = try AdminAuth(projectID: fromEnvironment.projectID, credential: .emulatorOwner,
                                     endpoints: fromEnvironment.endpoints, now: { server.clock.now() })
            try await body(auth, server, client)
        }
    }

    static func withEither(_ mode: String, _ database: TestDatabase,
                           _ body: (AdminAuth, TestServer, TestClient) async throws -> Void) async throws {
        if mode == "production" {
            try await withProduction(database, body)
        } else {
            try await withEmulator(database, body)
        }
    }

    static let modes = ["production", "emulator"]

    static func signIn(_ client: TestClient, email: String, password: String) async throws -> String {
        let reply = try await client.post("/v1/accounts:signInWithPassword", [
            "email": .string(email), "password": .string(password), "returnSecureToken": true,
        ])
        return try #require(reply.string("idToken"), "\(reply.body)")
    }

    /// The user's life through the Admin SDK: created, signed in by a client, verified with `checkRevoked`, given
    /// claims, put in a session cookie, revoked, disabled, changed with removals, and deleted.
    @Test(arguments: modes, TestDatabase.allCases)
    func aUsersLifeThroughTheAdminSDK(mode: String, database: TestDatabase) async throws {
        try await Self.withEither(mode, database) { auth, server, client in
            let created = try await auth.createUser(NewUser(
                email: "ada@example.com", emailVerified: true, phoneNumber: "+15555550100", password: "correct horse",
                displayName: "Ada", photoURL: "https://example.com/ada.png"))
            #expect(created.email == "ada@example.com" && created.emailVerified && created.displayName == "Ada")
            #expect(created.phoneNumber == "+15555550100" && !created.disabled && created.metadata.creationTime != nil)
            #expect(Set(created.providerData.map(\.providerID)) == ["password", "phone"])
            #expect(try await auth.user(email: "ADA@example.com").uid == created.uid)
            #expect(try await auth.user(phoneNumber: "+15555550100").uid == created.uid)

            let idToken = try await Self.signIn(client, email: "ada@example.com", password: "correct horse")
            let verified = try await auth.verifyIDToken(idToken, checkRevoked: true)
            #expect(verified.uid == created.uid && verified.email == "ada@example.com" && verified.signInProvider == "password")

            // Claims reach the next token a client gets.
            try await auth.setCustomUserClaims(uid: created.uid, ["role": "admin", "level": 3])
            #expect(try await auth.user(uid: created.uid).customClaims == ["role": "admin", "level": 3])
            let claimed = try await auth.verifyIDToken(try await Self.signIn(client, email: "ada@example.com", password: "correct horse"))
            #expect(claimed["role"] == "admin" && claimed["level"] == 3)
            await expectAdminError(.forbiddenClaim) { try await auth.setCustomUserClaims(uid: created.uid, ["sub": "x"]) }

            let cookie = try await auth.createSessionCookie(idToken: idToken, expiresIn: 3600)
            #expect(try await auth.verifySessionCookie(cookie, checkRevoked: true).uid == created.uid)
            await expectAdminError(.invalidSessionCookie) { try await auth.verifySessionCookie(idToken) }
            await expectAdminError(.invalidIDToken) { try await auth.verifyIDToken(cookie) }
            await expectAdminError(.invalidSessionCookieDuration) { try await auth.createSessionCookie(idToken: idToken, expiresIn: 60) }

            // Revoked: the tokens issued before are refused when checked, and still decode when not.
            server.clock.advance(seconds: 2)
            try await auth.revokeRefreshTokens(uid: created.uid)
            await expectAdminError(.idTokenRevoked) { try await auth.verifyIDToken(idToken, checkRevoked: true) }
            await expectAdminError(.sessionCookieRevoked) { try await auth.verifySessionCookie(cookie, checkRevoked: true) }
            #expect(try await auth.verifyIDToken(idToken).uid == created.uid)

            // Disabled: refused when checked, before any revocation.
            let fresh = try await Self.signIn(client, email: "ada@example.com", password: "correct horse")
            #expect(try await auth.verifyIDToken(fresh, checkRevoked: true).uid == created.uid)
            try await auth.updateUser(uid: created.uid, UserUpdate(disabled: true))
            await expectAdminError(.userDisabled) { try await auth.verifyIDToken(fresh, checkRevoked: true) }
            await expectAdminError(.userDisabled) { try await auth.verifyIDToken(idToken, checkRevoked: true) }

            // Removals: the name, the photo and the phone go, the rest stays.
            let changed = try await auth.updateUser(uid: created.uid, UserUpdate(
                phoneNumber: .remove, displayName: .remove, photoURL: .remove, disabled: false, customClaims: .remove))
            #expect(changed.displayName == nil && changed.photoURL == nil && changed.phoneNumber == nil)
            #expect(changed.email == "ada@example.com" && !changed.disabled && changed.customClaims == nil)
            #expect(changed.providerData.map(\.providerID) == ["password"])

            await expectAdminError(.emailAlreadyExists) { try await auth.createUser(NewUser(email: "ada@example.com")) }
            await expectAdminError(.uidAlreadyExists) { try await auth.createUser(NewUser(uid: created.uid)) }
            try await auth.deleteUser(uid: created.uid)
            await expectAdminError(.userNotFound) { try await auth.user(uid: created.uid) }
        }
    }

    /// Batch reads and deletes, and every page of `listUsers`.
    @Test(arguments: modes, TestDatabase.allCases)
    func batchesAndPages(mode: String, database: TestDatabase) async throws {
        try await Self.withEither(mode, database) { auth, _, _ in
            var uids: [String] = []
            for index in 0..<5 {
                uids.append(try await auth.createUser(NewUser(uid: "user-\(index)", email: "u\(index)@example.com")).uid)
            }
            let found = try await auth.users([.uid("user-0"), .email("u1@example.com"), .uid("nobody"), .phoneNumber("+15555550199")])
            #expect(Set(found.users.map(\.uid)) == ["user-0", "user-1"])
            #expect(found.notFound == [.uid("nobody"), .phoneNumber("+15555550199")])

            var pages: [[String]] = []
            for try await page in auth.listUsers(pageSize: 2) { pages.append(page.map(\.uid)) }
            #expect(pages == [["user-0", "user-1"], ["user-2", "user-3"], ["user-4"]])

            let deleted = try await auth.deleteUsers(uids: ["user-0", "user-1", "nobody"])
            #expect(deleted.failureCount == 0 && deleted.successCount == 3)
            var remaining: [String] = []
            for try await page in auth.listUsers() { remaining += page.map(\.uid) }
            #expect(remaining == ["user-2", "user-3", "user-4"])
        }
    }

    /// A custom token FlintAdmin signs (unsigned against the emulator) signs a client in, its claims in the session.
    @Test(arguments: modes)
    func customTokensSignClientsIn(mode: String) async throws {
        try await Self.withEither(mode, .sqlite) { auth, _, client in
            let token = try auth.createCustomToken(uid: "carol", claims: ["premium": true])
            let reply = try await client.post("/v1/accounts:signInWithCustomToken", ["token": .string(token), "returnSecureToken": true])
            let idToken = try #require(reply.string("idToken"), "\(reply.body)")
            let verified = try await auth.verifyIDToken(idToken, checkRevoked: true)
            #expect(verified.uid == "carol" && verified["premium"] == true && verified.signInProvider == "custom")
            await expectAdminError(.invalidIDToken) { try await auth.verifyIDToken(token) }
        }
    }

    /// Imported password hashes sign their users in; action links come back to be sent by the app.
    @Test(arguments: modes)
    func importedUsersSignInAndLinksAreMade(mode: String) async throws {
        try await Self.withEither(mode, .sqlite) { auth, _, client in
            let key = Data("hmac key".utf8)
            let salt = Data("pepper".utf8)
            let hash = Data(HMAC<SHA256>.authenticationCode(for: salt + Data("imported pass".utf8), using: SymmetricKey(data: key)))
            let result = try await auth.importUsers([
                UserImportRecord(uid: "imported-1", email: "imp@example.com", passwordHash: hash, passwordSalt: salt),
                UserImportRecord(uid: "imported-2", email: "not an email"),
            ], hash: .hmacSHA256(key: key))
            #expect(result.successCount == 1 && result.errors.map(\.index) == [1])
            #expect(try await Self.signIn(client, email: "imp@example.com", password: "imported pass").isEmpty == false)
            await expectAdminError(.invalidArgument) {
                try await auth.importUsers([UserImportRecord(uid: "x", passwordHash: hash)])
            }

            let reset = try await auth.generatePasswordResetLink(email: "imp@example.com")
            #expect(reset.contains("mode=resetPassword") && reset.contains("oobCode="), "\(reset)")
            let verify = try await auth.generateEmailVerificationLink(email: "imp@example.com")
            #expect(verify.contains("mode=verifyEmail"), "\(verify)")
            await expectAdminError(.emailNotFound) { try await auth.generatePasswordResetLink(email: "nobody@example.com") }
        }
    }
}

extension LiveFlintTests {
    /// Tenants with their own users and providers, and the project's config, through FlintAdmin.
    @Test(arguments: modes)
    func tenantsProvidersAndTheProjectConfig(mode: String) async throws {
        try await Self.withEither(mode, .sqlite) { auth, _, client in
            let created = try await auth.createTenant(Tenant(displayName: "Acme", allowPasswordSignup: true))
            let id = try #require(created.tenantId)
            #expect(try await auth.tenant(id: id).displayName == "Acme")
            let renamed = try await auth.updateTenant(id: id, Tenant(displayName: "Acme Two"))
            #expect(renamed.displayName == "Acme Two" && renamed.allowPasswordSignup == true)
            // Its own session policy, set by the field it names and kept by a change of another.
            let strict = try await auth.updateTenant(id: id, Tenant(sessionPolicy: .init(idleTimeoutSeconds: 7200)))
            #expect(strict.sessionPolicy == .init(idleTimeoutSeconds: 7200) && strict.displayName == "Acme Two")
            #expect(try await auth.updateTenant(id: id, Tenant(displayName: "Acme")).sessionPolicy == strict.sessionPolicy)
            let second = try #require(try await auth.createTenant(Tenant(displayName: "Other", allowPasswordSignup: true)).tenantId)
            var listed: [String] = []
            for try await page in auth.listTenants(pageSize: 1) { listed += page.compactMap(\.tenantId) }
            #expect(Set(listed) == [id, second])

            // A tenant's users, and its tokens: verified by its client and the project's, not by another tenant's.
            let acme = auth.tenant(id)
            let user = try await acme.createUser(NewUser(email: "t@example.com", password: "tenant pass"))
            #expect(user.tenantID == id)
            await expectAdminError(.userNotFound) { try await auth.user(uid: user.uid) }
            let reply = try await client.post("/v1/accounts:signInWithPassword", [
                "email": "t@example.com", "password": "tenant pass", "tenantId": .string(id), "returnSecureToken": true,
            ])
            let idToken = try #require(reply.string("idToken"), "\(reply.body)")
            #expect(try await acme.verifyIDToken(idToken, checkRevoked: true).tenantID == id)
            #expect(try await auth.verifyIDToken(idToken, checkRevoked: true).uid == user.uid)
            await expectAdminError(.tenantIDMismatch) { try await auth.tenant(second).verifyIDToken(idToken) }
            // A tenant's custom token signs its user in to that tenant.
            let custom = try acme.createCustomToken(uid: "acme-custom")
            let exchanged = try await client.post("/v1/accounts:signInWithCustomToken", [
                "token": .string(custom), "tenantId": .string(id), "returnSecureToken": true,
            ])
            let customIDToken = try #require(exchanged.string("idToken"), "\(exchanged.body)")
            #expect(try await acme.verifyIDToken(customIDToken, checkRevoked: true).uid == "acme-custom")

            // Its OpenID Connect providers.
            _ = try await acme.createOIDCProviderConfig(id: "oidc.acme", OIDCProviderConfig(
                clientId: "acme-client", issuer: "https://issuer.acme.example", displayName: "Acme SSO", enabled: true))
            let changed = try await acme.updateOIDCProviderConfig(id: "oidc.acme", OIDCProviderConfig(displayName: "Acme Login"))
            #expect(changed.displayName == "Acme Login" && changed.clientId == "acme-client")
            var providers: [String] = []
            for try await page in acme.listOIDCProviderConfigs() { providers += page.compactMap(\.name) }
            #expect(providers.count == 1 && providers[0].hasSuffix("/oauthIdpConfigs/oidc.acme"), "\(providers)")
            try await acme.deleteOIDCProviderConfig(id: "oidc.acme")
            await expectAdminError(.configurationNotFound) { try await acme.oidcProviderConfig(id: "oidc.acme") }

            // The project's config: a change of one field leaves the others.
            let before = try await auth.projectConfig()
            let after = try await auth.updateProjectConfig(ProjectConfig(emailPrivacyConfig: .init(enableImprovedEmailPrivacy: true)))
            #expect(after.emailPrivacyConfig?.enableImprovedEmailPrivacy == true && after.signIn == before.signIn)
            await expectAdminError(.invalidArgument) { try await acme.projectConfig() }

            try await auth.deleteTenant(id: second)
            var remaining: [String] = []
            for try await page in auth.listTenants() { remaining += page.compactMap(\.tenantId) }
            #expect(remaining == [id])
            // An emulator makes any tenant asked for, as the official one does; production knows it is gone.
            if mode == "production" {
                await expectAdminError(.tenantNotFound) { try await auth.tenant(id: second) }
            }
        }
    }
}
