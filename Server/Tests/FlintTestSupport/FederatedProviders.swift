import Crypto
import FlintServer
import FlintWire
import Foundation

/// Fake Apple, Facebook, Google, GitHub and Microsoft on loopback, and a Flint server pointed at them with every
/// provider configured for one project: what federated sign-in tests start from.
public struct FederatedProviders: Sendable {
    public static let bundleID = "com.example.flint"
    public static let servicesID = "com.example.flint.web"

    public let apple: FakeApple
    public let facebook: FakeFacebook
    public let google: FakeGoogle
    public let gitHub: FakeGitHub
    public let microsoft: FakeMicrosoft
    /// The team's key: Flint signs Apple client secrets with it; the fake checks them with its public half.
    public let appleTeamKey: P256.Signing.PrivateKey

    /// Starts the fakes on `clock` (the server's, so token times agree); if one cannot start, those started stop.
    public static func start(clock: TestClock) async throws -> FederatedProviders {
        let teamKey = P256.Signing.PrivateKey()
        var started: [any FakeServer] = []
        do {
            let apple = try await FakeApple.start(teamKey: teamKey.publicKey, clock: clock)
            started.append(apple)
            let facebook = try await FakeFacebook.start(clock: clock)
            started.append(facebook)
            let google = try await FakeGoogle.start(clock: clock)
            started.append(google)
            let gitHub = try await FakeGitHub.start()
            started.append(gitHub)
            let microsoft = try await FakeMicrosoft.start(clock: clock)
            return FederatedProviders(apple: apple, facebook: facebook, google: google, gitHub: gitHub, microsoft: microsoft,
                                      appleTeamKey: teamKey)
        } catch {
            for fake in started { await fake.server.withLockedValue { $0 }?.stop() }
            throw error
        }
    }

    public func stop() async {
        await apple.stop()
        await facebook.stop()
        await google.stop()
        await gitHub.stop()
        await microsoft.stop()
    }

    /// Points a server configuration at the fakes (the issuers stay the real ones: the fakes use them).
    public func configure(_ configuration: inout ServerConfiguration) {
        configuration.identityProviderEndpoints.appleBaseURL = apple.baseURL
        configuration.identityProviderEndpoints.facebookGraphURL = facebook.graphURL
        configuration.identityProviderEndpoints.facebookJWKSURL = facebook.jwksURL
        configuration.identityProviderEndpoints.googleJWKSURL = google.jwksURL
        configuration.identityProviderEndpoints.googleTokenInfoURL = google.tokenInfoURL
        configuration.identityProviderEndpoints.googleUserInfoURL = google.userInfoURL
        configuration.identityProviderEndpoints.googleAuthorizationURL = google.authorizationURL
        configuration.identityProviderEndpoints.googleTokenURL = google.tokenURL
        configuration.identityProviderEndpoints.gitHubURL = gitHub.webURL
        configuration.identityProviderEndpoints.gitHubAPIURL = gitHub.apiURL
        configuration.identityProviderEndpoints.microsoftLoginURL = microsoft.loginURL
    }

    /// The test project's iOS app, whose scheme the hosted handler answers through: its OAuth client ID and app ID.
    public static let appClientID = "123-abc.apps.googleusercontent.com"
    public static let appID = "1:123:ios:abc"

    /// The iOS app (`bundleID`, `appClientID`, `appID`) registered with the server's project.
    public static func registerApp(on server: TestServer) async throws {
        try await server.registerIOSApp(bundleID: bundleID, clientID: appClientID, appID: appID)
    }

    /// Registers the project's iOS app (`registerApp`), and enables `apple.com` (bundle ID, Services ID, team key),
    /// `facebook.com` (app id and secret), `google.com`, `github.com` and `microsoft.com` (client ID and secret) on
    /// the server's project.
    public func register(on server: TestServer) async throws {
        try await Self.registerApp(on: server)
        _ = try await server.server.configureIdentityProvider(server.projectID, ProviderID.apple, DefaultSupportedIdpConfig(
            enabled: true, clientId: Self.servicesID,
            appleSignInConfig: .init(bundleIds: [Self.bundleID], codeFlowConfig: .init(
                teamId: apple.teamID, keyId: apple.keyID, privateKey: appleTeamKey.pemRepresentation))))
        _ = try await server.server.configureIdentityProvider(server.projectID, ProviderID.facebook, DefaultSupportedIdpConfig(
            enabled: true, clientId: facebook.appID, clientSecret: facebook.appSecret))
        _ = try await server.server.configureIdentityProvider(server.projectID, ProviderID.google, DefaultSupportedIdpConfig(
            enabled: true, clientId: google.clientID, clientSecret: google.clientSecret))
        _ = try await server.server.configureIdentityProvider(server.projectID, ProviderID.gitHub, DefaultSupportedIdpConfig(
            enabled: true, clientId: gitHub.clientID, clientSecret: gitHub.clientSecret))
        _ = try await server.server.configureIdentityProvider(server.projectID, ProviderID.microsoft, DefaultSupportedIdpConfig(
            enabled: true, clientId: microsoft.clientID, clientSecret: microsoft.clientSecret))
    }

    /// Runs `body` with the fakes and a server (production mode unless `emulator`) set up for them (and
    /// then changed by `configure`), and stops everything afterwards, whether `body` succeeds or not.
    public static func withServer(emulator: Bool = false, database: TestDatabase = .sqlite, clock: TestClock = TestClock(),
                                  configure: (inout ServerConfiguration) -> Void = { _ in },
                                  _ body: (TestServer, FederatedProviders) async throws -> Void) async throws {
        let providers = try await start(clock: clock)
        do {
            try await FlintTestSupport.withServer(emulator: emulator, database: database, clock: clock, configure: { configuration in
                providers.configure(&configuration)
                configure(&configuration)
            }) { server, _ in
                try await providers.register(on: server)
                try await body(server, providers)
            }
        } catch {
            await providers.stop()
            throw error
        }
        await providers.stop()
    }
}
