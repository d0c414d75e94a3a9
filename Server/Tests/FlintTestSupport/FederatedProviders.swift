import Crypto
import FlintServer
import FlintWire
import Foundation

/// A fake Apple and a fake Facebook on loopback, and a Flint server pointed at them with both providers
/// configured for one project: what federated sign-in tests start from.
public struct FederatedProviders: Sendable {
    public static let bundleID = "com.example.flint"
    public static let servicesID = "com.example.flint.web"

    public let apple: FakeApple
    public let facebook: FakeFacebook
    public let google: FakeGoogle
    /// The team's key: Flint signs Apple client secrets with it; the fake checks them with its public half.
    public let appleTeamKey: P256.Signing.PrivateKey

    /// Starts both fakes on `clock` (the server's, so token times agree).
    public static func start(clock: TestClock) async throws -> FederatedProviders {
        let teamKey = P256.Signing.PrivateKey()
        let apple = try await FakeApple.start(teamKey: teamKey.publicKey, clock: clock)
        do {
            let facebook = try await FakeFacebook.start(clock: clock)
            do {
                let google = try await FakeGoogle.start(clock: clock)
                return FederatedProviders(apple: apple, facebook: facebook, google: google, appleTeamKey: teamKey)
            } catch {
                await facebook.stop()
                throw error
            }
        } catch {
            await apple.stop()
            throw error
        }
    }

    public func stop() async {
        await apple.stop()
        await facebook.stop()
        await google.stop()
    }

    /// Points a server configuration at the fakes (the issuers stay the real ones: the fakes use them).
    public func configure(_ configuration: inout ServerConfiguration) {
        configuration.identityProviderEndpoints.appleBaseURL = apple.baseURL
        configuration.identityProviderEndpoints.facebookGraphURL = facebook.graphURL
        configuration.identityProviderEndpoints.facebookJWKSURL = facebook.jwksURL
        configuration.identityProviderEndpoints.googleJWKSURL = google.jwksURL
        configuration.identityProviderEndpoints.googleTokenInfoURL = google.tokenInfoURL
        configuration.identityProviderEndpoints.googleUserInfoURL = google.userInfoURL
    }

    /// Enables `apple.com` (bundle ID, Services ID, team key), `facebook.com` (app id and secret) and `google.com`
    /// (the OAuth client ID) on the server's project.
    public func register(on server: TestServer) async throws {
        _ = try await server.server.configureIdentityProvider(server.projectID, ProviderID.apple, DefaultSupportedIdpConfig(
            enabled: true, clientId: Self.servicesID,
            appleSignInConfig: .init(bundleIds: [Self.bundleID], codeFlowConfig: .init(
                teamId: apple.teamID, keyId: apple.keyID, privateKey: appleTeamKey.pemRepresentation))))
        _ = try await server.server.configureIdentityProvider(server.projectID, ProviderID.facebook, DefaultSupportedIdpConfig(
            enabled: true, clientId: facebook.appID, clientSecret: facebook.appSecret))
        _ = try await server.server.configureIdentityProvider(server.projectID, ProviderID.google, DefaultSupportedIdpConfig(
            enabled: true, clientId: google.clientID))
    }

    /// Runs `body` with the fakes and a server (production mode unless `emulator`) set up for them (and
    /// then changed by `configure`), and stops everything afterwards, whether `body` succeeds or not.
    public static func withServer(emulator: Bool = false, database: TestDatabase = .sqlite,
                                  configure: (inout ServerConfiguration) -> Void = { _ in },
                                  _ body: (TestServer, FederatedProviders) async throws -> Void) async throws {
        let clock = TestClock()
        let providers = try await start(clock: clock)
        var failure: (any Error)?
        do {
            let server = try await TestServer.start(emulator: emulator, database: database, clock: clock) { configuration in
                providers.configure(&configuration)
                configure(&configuration)
            }
            do {
                try await providers.register(on: server)
                try await body(server, providers)
            } catch {
                failure = error
            }
            try await server.stop()
        } catch {
            failure = failure ?? error
        }
        await providers.stop()
        if let failure { throw failure }
    }
}
