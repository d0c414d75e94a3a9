import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
import Testing

/// The hosted handler, its app-verification page and `createAuthUri` answer only the project's own apps: a request
/// naming an attacker's client ID, an unregistered app ID, a registered client ID with a foreign bundle ID, or an
/// unregistered scheme gets the handler's error page (or an error) and sends nothing to any scheme; the registered app
/// still signs in. For an OpenID Connect provider and for a SAML provider.
@Suite struct RegisteredAppsTests {
    static let attackerClientID = "666-evil.apps.googleusercontent.com"
    static let appScheme = "com.googleusercontent.apps.123-abc"
    static let sessionID = "app-session-1"

    /// The handler in the iOS SDK's shape, the app named by `app`.
    static func handler(_ server: TestServer, provider: String, app: [(String, String)], tenantID: String? = nil) -> URL {
        let query = [("apiKey", server.apiKey), ("authType", "signInWithRedirect"), ("providerId", provider),
                     ("sessionId", CodeFlowProviderTests.sha256Hex(sessionID)), ("v", "Flint/Swift/test"), ("eventId", "evt1")]
            + app + (tenantID.map { [("tid", $0)] } ?? [])
        return URL(string: server.baseURL.absoluteString + "/__/auth/handler?" + FormURLEncoding.encode(query))!
    }

    /// What a request naming someone else's app may try; each gets the error page, no redirect at all.
    static let foreignApps: [[(String, String)]] = [
        [("clientId", attackerClientID), ("ibi", "com.evil.app")],
        [("clientId", attackerClientID)],
        [("appId", "1:666:ios:evil")],
        [("clientId", FederatedProviders.appClientID), ("ibi", "com.evil.app")],
        [("appId", FederatedProviders.appID), ("ibi", "com.evil.app")],
        [("clientId", FederatedProviders.appClientID), ("ibi", FederatedProviders.bundleID), ("apn", "com.evil.android")],
        [("ibi", FederatedProviders.bundleID)],
    ]

    /// The link a deep link back to the app carries (`…://firebaseauth/link?deep_link_id=…?link=…`).
    static func link(in deepLink: URL) -> String? {
        FakeCodeGrants.query(deepLink.absoluteString)["deep_link_id"].flatMap { FakeCodeGrants.query($0)["link"] }
    }

    static func expectRefusedPage(_ page: TestBrowser.Page, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(page.status == 400 && page.location == nil, "\(page.status) \(page.body)", sourceLocation: sourceLocation)
    }

    /// A production server with `oidc.corp` (a fake provider, code flow) and the project's registered iOS app.
    private func withOIDC(_ body: (TestServer, FakeOIDCProvider) async throws -> Void) async throws {
        let clock = TestClock()
        let provider = try await FakeOIDCProvider.start(clock: clock)
        do {
            try await withServer(emulator: false, clock: clock) { server, _ in
                try await FederatedProviders.registerApp(on: server)
                _ = try await server.server.configureOIDCProvider(server.projectID, "oidc.corp", OAuthIdpConfig(
                    clientId: provider.clientID, issuer: provider.issuer, displayName: "Corp SSO", enabled: true,
                    clientSecret: provider.clientSecret, responseType: .init(code: true)))
                try await body(server, provider)
            }
        } catch {
            await provider.stop()
            throw error
        }
        await provider.stop()
    }

    @Test func theHandlerAnswersOnlyTheProjectsAppsForAnOIDCProvider() async throws {
        try await withOIDC { server, provider in
            for app in Self.foreignApps {
                Self.expectRefusedPage(try await TestBrowser.get(Self.handler(server, provider: "oidc.corp", app: app)))
            }
            // The registered app, by client ID (with its bundle ID) or by app ID: the provider, then the app's scheme.
            let registered: [([(String, String)], String)] = [
                ([("clientId", FederatedProviders.appClientID), ("ibi", FederatedProviders.bundleID)], Self.appScheme),
                ([("appId", FederatedProviders.appID)], "app-1-123-ios-abc"),
            ]
            for (app, scheme) in registered {
                let start = try await TestBrowser.get(Self.handler(server, provider: "oidc.corp", app: app))
                let authURI = try #require(start.location, "\(start.status) \(start.body)")
                #expect(authURI.absoluteString.hasPrefix(provider.issuer + "/authorize?"))
                let state = try #require(FakeCodeGrants.query(authURI.absoluteString)["state"])
                let code = try #require(provider.issueCode(for: authURI.absoluteString, subject: "emp-1", email: "ada@corp.example"))
                let back = try await TestBrowser.get(URL(string: server.baseURL.absoluteString + "/__/auth/handler?"
                    + FormURLEncoding.encode([("code", code), ("state", state)]))!)
                let end = try #require(back.location, "\(back.status) \(back.body)")
                #expect(end.scheme == scheme && end.host == "firebaseauth")
                let link = try #require(Self.link(in: end))
                let reply = try await TestClient(server).post("/v1/accounts:signInWithIdp", [
                    "requestUri": .string(link), "sessionId": .string(Self.sessionID), "returnSecureToken": true,
                ])
                #expect(reply.status == 200 && reply["federatedId"] == "emp-1", "\(reply.body)")
            }
        }
    }

    @Test func theAppVerificationPageAnswersOnlyTheProjectsApps() async throws {
        try await withOIDC { server, _ in
            func page(_ app: [(String, String)]) async throws -> TestBrowser.Page {
                try await TestBrowser.get(URL(string: server.baseURL.absoluteString + "/__/auth/handler?" + FormURLEncoding.encode(
                    [("apiKey", server.apiKey), ("authType", "verifyApp"), ("eventId", "ABCDEFGHIJ"), ("v", "1")] + app))!)
            }
            for app in Self.foreignApps {
                let refused = try await page(app)
                Self.expectRefusedPage(refused)
                #expect(!refused.body.contains("com.googleusercontent.apps.666") && !refused.body.contains("app-1-666"))
            }
            let captcha = try await page([("clientId", FederatedProviders.appClientID), ("ibi", FederatedProviders.bundleID)])
            #expect(captcha.status == 200 && captcha.body.contains(Self.appScheme + "://firebaseauth/link"), "\(captcha.body)")
            let byAppID = try await page([("appId", FederatedProviders.appID)])
            #expect(byAppID.status == 200 && byAppID.body.contains("app-1-123-ios-abc://firebaseauth/link"))
        }
    }

    @Test func createAuthURITakesOnlyTheSchemesOfTheProjectsApps() async throws {
        try await withOIDC { server, provider in
            let client = TestClient(server)
            func start(_ continueURI: String, appID: String? = nil, tenantID: String? = nil) async throws -> TestClient.Reply {
                var body: [String: JSONValue] = ["providerId": "oidc.corp", "continueUri": .string(continueURI)]
                body["appId"] = appID.map(JSONValue.string)
                body["tenantId"] = tenantID.map(JSONValue.string)
                return try await client.post("/v1/accounts:createAuthUri", body)
            }
            #expect(try await start("evil-app://callback").errorCode == "INVALID_CONTINUE_URI")
            #expect(try await start("com.googleusercontent.apps.666-evil:/oauth").errorCode == "INVALID_CONTINUE_URI")
            #expect(try await start(Self.appScheme + ":/oauth", appID: "com.evil.app").errorCode == "INVALID_ARGUMENT")
            // The registered app's schemes: its reversed client ID, its app-ID scheme and its bundle ID.
            for scheme in [Self.appScheme, "app-1-123-ios-abc", FederatedProviders.bundleID, "COM.Example.Flint"] {
                let reply = try await start(scheme + ":/oauth")
                #expect(reply.status == 200 && reply.string("authUri") != nil, "\(scheme): \(reply.body)")
            }
            #expect(try await start(Self.appScheme + ":/oauth", appID: FederatedProviders.bundleID).status == 200)
            // A tenant's apps are its project's.
            let tenant = try #require(try await server.server.createTenant(TenantConfig(displayName: "Acme"), projectID: server.projectID).tenantId)
            _ = try await server.server.configureOIDCProvider(
                Realm(projectID: server.projectID, tenantID: tenant).key, "oidc.corp",
                OAuthIdpConfig(clientId: provider.clientID, issuer: provider.issuer, displayName: "Corp SSO", enabled: true,
                               clientSecret: provider.clientSecret, responseType: .init(code: true)))
            #expect(try await start("evil-app://callback", tenantID: tenant).errorCode == "INVALID_CONTINUE_URI")
            let inTenant = try await start(Self.appScheme + ":/oauth", tenantID: tenant)
            #expect(inTenant.status == 200 && inTenant.string("authUri") != nil, "\(inTenant.body)")
        }
    }

    @Test func theHandlerAnswersOnlyTheProjectsAppsForASAMLProvider() async throws {
        try await SAMLSignInTests.withSAML { setup in
            let server = setup.server
            try await FederatedProviders.registerApp(on: server)
            for app in Self.foreignApps {
                Self.expectRefusedPage(try await TestBrowser.get(Self.handler(server, provider: SAMLSignInTests.provider, app: app)))
            }
            // createAuthUri with a scheme of no registered app: refused before the IdP is asked.
            let foreign = try await setup.client.post("/v1/accounts:createAuthUri", [
                "providerId": .string(SAMLSignInTests.provider), "continueUri": "evil-app://saml",
            ])
            #expect(foreign.errorCode == "INVALID_CONTINUE_URI", "\(foreign.body)")

            // The registered app: to the IdP, back to the handler with the response, on to the app's scheme.
            let start = try await TestBrowser.get(Self.handler(
                server, provider: SAMLSignInTests.provider,
                app: [("clientId", FederatedProviders.appClientID), ("ibi", FederatedProviders.bundleID)]))
            let authURI = try #require(start.location, "\(start.status) \(start.body)")
            let answer = try #require(try await setup.answers([["auth_uri": .string(authURI.absoluteString), "name_id": "ada@acme.test"]]).first)
            let back = try await TestBrowser.post(URL(string: setup.callback)!, form: [
                ("SAMLResponse", answer["saml_response"]?.stringValue ?? ""), ("RelayState", answer["relay_state"]?.stringValue ?? ""),
            ])
            let end = try #require(back.location, "\(back.status) \(back.body)")
            #expect(end.scheme == Self.appScheme && end.host == "firebaseauth")
            let link = try #require(Self.link(in: end))
            let reply = try await setup.client.post("/v1/accounts:signInWithIdp", [
                "requestUri": .string(link), "sessionId": .string(Self.sessionID), "returnSecureToken": true,
            ])
            #expect(reply.status == 200 && reply["federatedId"] == "ada@acme.test", "\(reply.body)")
        }
    }

    @Test func appsAreRegisteredWithTheirClientAndAppIDs() async throws {
        try await withServer(emulator: false) { server, _ in
            try await FederatedProviders.registerApp(on: server)
            let config = try await server.server.updateProjectConfig(server.projectID, ProjectConfig(), updateMask: nil)
            #expect(config.apps?.ios == [.init(bundleId: FederatedProviders.bundleID, teamId: "ABCDE12345",
                                               clientId: FederatedProviders.appClientID, appId: FederatedProviders.appID)])
            for bad in [ProjectConfig.Apps.IOS(bundleId: "b", teamId: "ABCDE12345", clientId: "no..dots"),
                        .init(bundleId: "b", teamId: "ABCDE12345", appId: "1:2:ios:<script>")] {
                await #expect(throws: FlintError.self) {
                    _ = try await server.server.updateProjectConfig(server.projectID, ProjectConfig(apps: .init(ios: [bad])), updateMask: "apps")
                }
            }
        }
    }
}
