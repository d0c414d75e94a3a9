import Crypto
import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
import Testing

/// GitHub and Microsoft sign-in, and the redirect flow with Google, GitHub and Microsoft through `createAuthUri` and
/// through the hosted handler page, against local fakes of each provider.
@Suite struct CodeFlowProviderTests {
    static let octocat = FakeGitHub.Account(id: 583231, login: "octocat", name: "The Octocat", email: "Octocat@Example.com")

    private func signIn(_ client: TestClient, _ fields: [(String, String)], idToken: String? = nil) async throws -> TestClient.Reply {
        var body: [String: JSONValue] = [
            "requestUri": "http://localhost", "postBody": .string(FormURLEncoding.encode(fields)), "returnSecureToken": true,
        ]
        if let idToken { body["idToken"] = .string(idToken) }
        return try await client.post("/v1/accounts:signInWithIdp", body)
    }

    // MARK: GitHub

    @Test(arguments: TestDatabase.allCases)
    func gitHubAccessTokensAreCheckedWithGitHub(database: TestDatabase) async throws {
        try await FederatedProviders.withServer(database: database) { server, providers in
            let client = TestClient(server)
            let gitHub = providers.gitHub
            gitHub.add(Self.octocat)
            let token = gitHub.makeAccessToken(for: Self.octocat)
            let reply = try await signIn(client, [("access_token", token), ("providerId", "github.com")])
            #expect(reply.status == 200, "\(reply.body)")
            #expect(reply["federatedId"] == "583231" && reply["providerId"] == "github.com" && reply["isNewUser"] == true)
            // The primary address, verified as GitHub says; the login is the screen name.
            #expect(reply["email"] == "octocat@example.com" && reply["emailVerified"] == true)
            #expect(reply["displayName"] == "The Octocat" && reply["oauthAccessToken"] == .string(token))
            let user = try #require(try await server.server.store.accounts.user(projectID: server.projectID, providerID: "github.com", rawID: "583231"))
            #expect(user.identities.first?.screenName == "octocat")

            // Without the email scope: the profile's public address (none here), nothing invented.
            let private_ = FakeGitHub.Account(id: 9, login: "quiet", email: "quiet@example.com")
            gitHub.add(private_)
            let quiet = try await signIn(client, [("access_token", gitHub.makeAccessToken(for: private_, canReadEmails: false)),
                                                  ("providerId", "github.com")])
            #expect(quiet.status == 200 && quiet["email"] == nil, "\(quiet.body)")

            // A token of another OAuth app, a made-up one, or an ID token: refused, and GitHub's answer is why.
            let foreign = gitHub.makeAccessToken(for: Self.octocat, clientID: "Iv1.someone-else")
            #expect(try await signIn(client, [("access_token", foreign), ("providerId", "github.com")]).errorCode == "INVALID_IDP_RESPONSE")
            #expect(try await signIn(client, [("access_token", "gho_made_up"), ("providerId", "github.com")]).errorCode == "INVALID_IDP_RESPONSE")
            #expect(try await signIn(client, [("id_token", "a.b.c"), ("providerId", "github.com")]).errorCode == "INVALID_IDP_RESPONSE")
            #expect(gitHub.requests.all.filter { $0 == "/api/user" }.count == 2)

            // A wrong client secret is the configuration's fault, said as such.
            _ = try await server.server.configureIdentityProvider(server.projectID, ProviderID.gitHub, DefaultSupportedIdpConfig(
                enabled: true, clientId: gitHub.clientID, clientSecret: "wrong"))
            #expect(try await signIn(client, [("access_token", token), ("providerId", "github.com")]).errorCode == "INVALID_CONFIG")
        }
    }

    /// A GitHub account whose verified address another account holds: the same confirmation as for Apple, and linking
    /// after signing in to that account.
    @Test func gitHubConflictsAndLinkingBehaveAsForApple() async throws {
        try await FederatedProviders.withServer { server, providers in
            let client = TestClient(server)
            let owner = try await client.post("/v1/accounts:signUp", [
                "email": "octocat@example.com", "password": "correct horse battery", "returnSecureToken": true,
            ])
            providers.gitHub.add(Self.octocat)
            let credential = [("access_token", providers.gitHub.makeAccessToken(for: Self.octocat)), ("providerId", "github.com")]
            let conflict = try await signIn(client, credential)
            #expect(conflict["needConfirmation"] == true && conflict["idToken"] == nil, "\(conflict.body)")
            let linked = try await signIn(client, credential, idToken: owner.string("idToken"))
            #expect(linked.status == 200 && linked["localId"] == owner["localId"], "\(linked.body)")
            let again = try await signIn(client, credential)
            #expect(again["localId"] == owner["localId"] && again["idToken"] != nil)
            // The identity is the owner's now: another account cannot link it.
            let other = try await client.post("/v1/accounts:signUp", ["returnSecureToken": true])
            #expect(try await signIn(client, credential, idToken: other.string("idToken")).errorCode
                == "FEDERATED_USER_ID_ALREADY_LINKED")
        }
    }

    // MARK: Microsoft

    @Test(arguments: TestDatabase.allCases)
    func microsoftIDTokensAreCheckedAgainstTheirTenantsIssuer(database: TestDatabase) async throws {
        try await FederatedProviders.withServer(database: database) { server, providers in
            let client = TestClient(server)
            let microsoft = providers.microsoft
            let ada = FakeMicrosoft.Account(objectID: "00000000-0000-0000-66f3-3332eca7ea81", tenantID: "72f988bf-86f1-41af-91ab-2d7cd011db47",
                                            email: "Ada@Contoso.com", name: "Ada Lovelace")
            let reply = try await signIn(client, [("id_token", try microsoft.makeIDToken(for: ada, nonce: "n-1")), ("nonce", "n-1"),
                                                  ("providerId", "microsoft.com")])
            #expect(reply.status == 200, "\(reply.body)")
            // The object ID is the user ID; Microsoft does not vouch for the address.
            #expect(reply["federatedId"] == .string(ada.objectID) && reply["email"] == "ada@contoso.com")
            #expect(reply["emailVerified"] == false && reply["displayName"] == "Ada Lovelace")
            // …unless the domain's owner verified it.
            let grace = FakeMicrosoft.Account(objectID: "00000000-0000-0000-1111-222233334444", tenantID: ada.tenantID, email: "grace@contoso.com")
            let verified = try await signIn(client, [
                ("id_token", try microsoft.makeIDToken(for: grace, extraClaims: ["xms_edov": true])), ("providerId", "microsoft.com"),
            ])
            #expect(verified["emailVerified"] == true, "\(verified.body)")

            // Issued by another tenant than it names, for another app, forged, without the nonce sent: refused.
            for token in [
                try microsoft.makeIDToken(for: ada, issuer: "https://login.microsoftonline.com/9188040d-6c67-4c5b-b112-36a304b66dad/v2.0"),
                try microsoft.makeIDToken(for: ada, audience: "another-app"),
                try microsoft.makeIDToken(for: ada, signWith: .foreignKey),
                try microsoft.makeIDToken(for: ada, extraClaims: ["tid": "not-a-tenant"]),
            ] {
                #expect(try await signIn(client, [("id_token", token), ("providerId", "microsoft.com")]).errorCode == "INVALID_IDP_RESPONSE")
            }
            #expect(try await signIn(client, [("id_token", try microsoft.makeIDToken(for: ada, nonce: "n-2")),
                                              ("providerId", "microsoft.com")]).errorCode == "MISSING_OR_INVALID_NONCE")
            // An access token alone cannot be checked.
            #expect(try await signIn(client, [("access_token", "eyJ0eXAi"), ("providerId", "microsoft.com")]).errorCode == "INVALID_IDP_RESPONSE")
        }
    }

    // MARK: The redirect flow through createAuthUri

    /// GitHub and Microsoft (with a tenant) through `createAuthUri`: the browser goes to the provider and back to the
    /// app's URI, which finishes with the session ID.
    @Test(arguments: TestDatabase.allCases)
    func createAuthUriRunsTheCodeFlowWithGitHubAndMicrosoft(database: TestDatabase) async throws {
        try await FederatedProviders.withServer(database: database) { server, providers in
            let client = TestClient(server)
            let redirect = "http://localhost/__/auth/handler"
            func run(_ body: [String: JSONValue]) async throws -> (authURI: URL, reply: TestClient.Reply) {
                var request = body
                request["continueUri"] = .string(redirect)
                let started = try await client.post("/v1/accounts:createAuthUri", request)
                let authURI = try #require(started.string("authUri").flatMap(URL.init(string:)), "\(started.body)")
                // The provider's page sends the browser back to the redirect URI, which is not served here.
                let back = try #require(try await TestBrowser.get(authURI).location)
                #expect(back.absoluteString.hasPrefix(redirect + "?"))
                let reply = try await client.post("/v1/accounts:signInWithIdp", [
                    "requestUri": .string(back.absoluteString), "sessionId": .string(try #require(started.string("sessionId"))),
                    "returnSecureToken": true,
                ])
                return (authURI, reply)
            }

            providers.gitHub.add(Self.octocat)
            providers.gitHub.codeGrants.browserUser.withLockedValue { $0 = (subject: "octocat", email: nil) }
            let gitHub = try await run(["providerId": "github.com", "oauthScope": "read:org"])
            #expect(gitHub.reply.status == 200 && gitHub.reply["federatedId"] == "583231", "\(gitHub.reply.body)")
            #expect(gitHub.reply["email"] == "octocat@example.com" && gitHub.reply["oauthAccessToken"] != nil)
            let gitHubQuery = FakeCodeGrants.query(gitHub.authURI.absoluteString)
            #expect(gitHub.authURI.path == "/login/oauth/authorize" && gitHubQuery["scope"] == "user:email read:org")
            #expect(gitHubQuery["nonce"] == nil, "GitHub is not OpenID Connect")

            let tenant = "72f988bf-86f1-41af-91ab-2d7cd011db47"
            let ada = FakeMicrosoft.Account(objectID: "00000000-0000-0000-66f3-3332eca7ea81", tenantID: tenant, email: "ada@contoso.com")
            providers.microsoft.add(ada)
            providers.microsoft.codeGrants.browserUser.withLockedValue { $0 = (subject: ada.objectID, email: nil) }
            let microsoft = try await run(["providerId": "microsoft.com", "customParameter": ["tenant": .string(tenant)]])
            #expect(microsoft.reply.status == 200 && microsoft.reply["federatedId"] == .string(ada.objectID), "\(microsoft.reply.body)")
            #expect(microsoft.authURI.path == "/\(tenant)/oauth2/v2.0/authorize")
            #expect(FakeCodeGrants.query(microsoft.authURI.absoluteString)["nonce"]?.isEmpty == false)
            // A flow for personal accounts does not take a work account.
            let personal = try await run(["providerId": "microsoft.com", "customParameter": ["tenant": "consumers"]])
            #expect(personal.reply.errorCode == "INVALID_IDP_RESPONSE")
            #expect(try await client.post("/v1/accounts:createAuthUri", [
                "providerId": "microsoft.com", "continueUri": .string(redirect), "customParameter": ["tenant": "../evil"],
            ]).errorCode == "INVALID_ARGUMENT")
        }
    }

    // MARK: The hosted handler page

    /// The iOS SDK's shape: the app opens the handler with the hash of its session ID, the handler sends the browser
    /// to Google and back to the app's scheme with the link, and the app finishes with the session ID.
    @Test(arguments: TestDatabase.allCases)
    func theHandlerPageRunsTheFlowForTheIOSSDK(database: TestDatabase) async throws {
        try await FederatedProviders.withServer(database: database) { server, providers in
            let client = TestClient(server)
            let sessionID = "Xy12ab34Cd"
            func handler(_ extra: [(String, String)] = [], provider: String = "google.com") -> URL {
                let query = [("apiKey", server.apiKey), ("authType", "signInWithRedirect"), ("ibi", "com.example.flint"),
                             ("sessionId", Self.sha256Hex(sessionID)), ("v", "Flint/Swift/test"), ("eventId", "evt123"),
                             ("providerId", provider), ("clientId", "123-abc.apps.googleusercontent.com")] + extra
                return URL(string: server.baseURL.absoluteString + "/__/auth/handler?" + FormURLEncoding.encode(query))!
            }
            providers.google.codeGrants.browserUser.withLockedValue { $0 = (subject: "g-4242", email: "lin@example.com") }
            let (pages, end) = try await TestBrowser.follow(handler([("scopes", "https://www.googleapis.com/auth/drive.file"),
                                                                     ("customParameters", #"{"prompt":"select_account"}"#)]))
            // Handler → Google's page → handler → the app.
            #expect(pages.map(\.url.path) == ["/__/auth/handler", "/o/oauth2/v2/auth", "/__/auth/handler"])
            let google = FakeCodeGrants.query(pages[1].url.absoluteString)
            #expect(google["redirect_uri"] == server.baseURL.absoluteString + "/__/auth/handler")
            #expect(google["scope"] == "openid email profile https://www.googleapis.com/auth/drive.file" && google["prompt"] == "select_account")
            #expect(pages[0].headers["cache-control"] == "no-store" && pages[2].headers["referrer-policy"] == "no-referrer")

            #expect(end.scheme == "com.googleusercontent.apps.123-abc" && end.host == "firebaseauth" && end.path == "/link")
            let deepLink = try #require(FakeCodeGrants.query(end.absoluteString)["deep_link_id"])
            let inner = FakeCodeGrants.query(deepLink)
            #expect(inner["authType"] == "signInWithRedirect" && inner["eventId"] == "evt123")
            let link = try #require(inner["link"])
            func finish(_ session: String) async throws -> TestClient.Reply {
                try await client.post("/v1/accounts:signInWithIdp", [
                    "requestUri": .string(link), "sessionId": .string(session), "returnSecureToken": true, "returnIdpCredential": true,
                ])
            }
            // The link without the app's session ID is useless; with it, it signs in once.
            #expect(try await finish("someone-else").errorCode == "INVALID_IDP_RESPONSE")
            let reply = try await finish(sessionID)
            #expect(reply.status == 200 && reply["email"] == "lin@example.com" && reply["providerId"] == "google.com", "\(reply.body)")
            #expect(reply["federatedId"] == "https://accounts.google.com/g-4242" && reply["oauthIdToken"] != nil)
            #expect(try await finish(sessionID).errorCode == "INVALID_IDP_RESPONSE")

            // What goes wrong comes back to the app as firebaseError: a disabled provider, the user saying no.
            func firebaseError(_ url: URL) async throws -> [String: String] {
                let end = try await TestBrowser.follow(url).end
                let deepLink = try #require(FakeCodeGrants.query(end.absoluteString)["deep_link_id"])
                let inner = FakeCodeGrants.query(deepLink)
                #expect(inner["link"] == nil && inner["eventId"] == "evt123")
                let error = try #require(inner["firebaseError"])
                return try JSONDecoder().decode([String: String].self, from: Data(error.utf8))
            }
            #expect(try await firebaseError(handler(provider: "oidc.none"))["code"] == "auth/operation-not-allowed")
            #expect(try await firebaseError(handler(provider: "twitter.com"))["code"] == "auth/invalid-provider-id")
            providers.google.codeGrants.browserError.withLockedValue { $0 = "access_denied" }
            #expect(try await firebaseError(handler())["code"] == "auth/user-cancelled")

            // Without a valid API key, event or return address there is no one to return to: a page says what is wrong.
            for bad in [[("apiKey", "nope")], [("eventId", "<script>")], [("clientId", "")]] {
                var query = Dictionary(uniqueKeysWithValues: FakeCodeGrants.query(handler().absoluteString).map { ($0.key, $0.value) })
                for (name, value) in bad { query[name] = value }
                let page = try await TestBrowser.get(URL(string: server.baseURL.absoluteString + "/__/auth/handler?"
                    + FormURLEncoding.encode(query.sorted { $0.key < $1.key }))!)
                #expect(page.status == 400 && page.location == nil && !page.body.contains("<script>"))
            }
            // A state that is not a session of this server.
            #expect(try await TestBrowser.get(URL(string: server.baseURL.absoluteString + "/__/auth/handler?code=x&state=forged")!).status == 400)
        }
    }

    /// A web page's shape: back to `redirectUrl` on an authorized domain, the link in the fragment.
    @Test func theHandlerPageReturnsToAnAuthorizedWebPage() async throws {
        try await FederatedProviders.withServer { server, providers in
            providers.gitHub.add(Self.octocat)
            providers.gitHub.codeGrants.browserUser.withLockedValue { $0 = (subject: "octocat", email: nil) }
            let sessionID = "web-session-1"
            func handler(redirect: String) -> URL {
                URL(string: server.baseURL.absoluteString + "/__/auth/handler?" + FormURLEncoding.encode([
                    ("apiKey", server.apiKey), ("authType", "signInViaRedirect"), ("providerId", "github.com"),
                    ("sessionId", Self.sha256Hex(sessionID)), ("eventId", "web-1"), ("redirectUrl", redirect),
                ]))!
            }
            let (pages, end) = try await TestBrowser.follow(handler(redirect: "http://localhost/app?x=1")) { $0.host == "localhost" }
            // The app's page is not served here: the browser stops at it.
            #expect(end.host == "localhost" && end.path == "/app" && end.query == "x=1")
            #expect(pages.map(\.url.path) == ["/__/auth/handler", "/login/oauth/authorize", "/__/auth/handler"])
            let fields = FakeCodeGrants.query("http://x/?" + (end.fragment ?? ""))
            #expect(fields["authType"] == "signInViaRedirect" && fields["eventId"] == "web-1")
            let reply = try await TestClient(server).post("/v1/accounts:signInWithIdp", [
                "requestUri": .string(try #require(fields["link"])), "sessionId": .string(sessionID), "returnSecureToken": true,
            ])
            #expect(reply.status == 200 && reply["federatedId"] == "583231", "\(reply.body)")
            // Only authorized domains.
            let refused = try await TestBrowser.get(handler(redirect: "https://evil.example.com/app"))
            #expect(refused.status == 400 && refused.location == nil)
        }
    }

    /// A tenant's app names its tenant (`tid`): the flow uses the tenant's provider and signs in to the tenant only.
    @Test func theHandlerPageRunsInTheAppsTenant() async throws {
        try await FederatedProviders.withServer { server, providers in
            providers.gitHub.add(Self.octocat)
            providers.gitHub.codeGrants.browserUser.withLockedValue { $0 = (subject: "octocat", email: nil) }
            let tenant = try #require(try await server.server.createTenant(TenantConfig(displayName: "Acme"), projectID: server.projectID).tenantId)
            _ = try await server.server.configureIdentityProvider(
                Realm(projectID: server.projectID, tenantID: tenant).key, ProviderID.gitHub,
                DefaultSupportedIdpConfig(enabled: true, clientId: providers.gitHub.clientID, clientSecret: providers.gitHub.clientSecret))
            let sessionID = "tenant-session-1"
            let handler = URL(string: server.baseURL.absoluteString + "/__/auth/handler?" + FormURLEncoding.encode([
                ("apiKey", server.apiKey), ("authType", "signInViaRedirect"), ("providerId", "github.com"), ("tid", tenant),
                ("sessionId", Self.sha256Hex(sessionID)), ("eventId", "web-2"), ("redirectUrl", "http://localhost/app"),
            ]))!
            let end = try await TestBrowser.follow(handler) { $0.host == "localhost" }.end
            let link = try #require(FakeCodeGrants.query("http://x/?" + (end.fragment ?? ""))["link"])
            func finish(tenantID: String?) async throws -> TestClient.Reply {
                var body: [String: JSONValue] = ["requestUri": .string(link), "sessionId": .string(sessionID), "returnSecureToken": true]
                body["tenantId"] = tenantID.map(JSONValue.string)
                return try await TestClient(server).post("/v1/accounts:signInWithIdp", body)
            }
            // The session belongs to the tenant: finishing it in the project fails, in the tenant it signs in there.
            #expect(try await finish(tenantID: nil).errorCode == "INVALID_IDP_RESPONSE")
            let reply = try await finish(tenantID: tenant)
            #expect(reply["tenantId"] == .string(tenant) && reply["federatedId"] == "583231", "\(reply.body)")
            #expect(claims(of: reply.string("idToken"))["firebase"]?["tenant"] == .string(tenant))
            // An unknown tenant is refused on the page.
            let unknown = try await TestBrowser.get(URL(string: handler.absoluteString.replacingOccurrences(of: tenant, with: "nope"))!)
            #expect(unknown.status == 400 && unknown.body.contains("TENANT_NOT_FOUND"))
        }
    }

    /// The official emulator has no redirect flow of its own through `createAuthUri`.
    @Test func emulatorModeHasNoCreateAuthUriFlow() async throws {
        try await withServer(emulator: true) { _, client in
            let reply = try await client.post("/v1/accounts:createAuthUri", [
                "providerId": "github.com", "continueUri": "http://localhost/cb",
            ])
            #expect(reply.status == 501 && reply.errorCode == "NOT_IMPLEMENTED")
        }
    }

    static func sha256Hex(_ text: String) -> String {
        SHA256.hash(data: Data(text.utf8)).map { String(format: "%02x", $0) }.joined()
    }
}
