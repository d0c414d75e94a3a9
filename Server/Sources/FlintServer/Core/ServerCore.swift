import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOPosix

/// What every feature is built from: the primitives of one running server, made once in `AuthServer.open`.
///
/// Primitives only, never services: a feature is built from the core plus the few collaborators it really uses
/// (see `ServerAssembly`), so no feature reaches another through it. The project directory is here because it is
/// the settings area's read path (cached under version checks), which every request needs, not a feature.
public struct ServerCore: Sendable {
    public let configuration: ServerConfiguration
    public let store: Store
    public let clock: any FlintClock
    public let random: any RandomSource
    /// New RSA keys: see `RSAKeySource`.
    let rsaKeys: any RSAKeySource
    /// Where RS256 signatures run (see `ServerEnvironment.signingThreads`).
    let signingThreads: NIOThreadPool?
    /// Seals tokens and secrets at rest with the master key.
    let secrets: SecretBox
    /// The metrics and the tracer that the middleware, the store and the outside-call clients measure with.
    let telemetry: Telemetry
    public let logger: Logger
    /// Projects and tenants with their settings, and API keys.
    public let projects: ProjectDirectory
    /// Every limit the server keeps (`Budget`), counted in the store.
    let budgets: BudgetLedger
    let address: PublicAddress

    /// Production and emulator mode's one difference (see `ModePolicy`).
    public var policy: ModePolicy { configuration.policy }

    /// The external base URL: the configured one, or `http://host:boundPort` once bound.
    public var publicURL: String { address.url }

    /// The API key Flint itself names for a project (in emailed links, the start-up banner): in emulator mode the
    /// conventional placeholder (any key passes there), in production the project's first key, made if it has none.
    public func apiKey(forProject projectID: String) async throws -> String {
        if policy.acceptsAnyAPIKey { return "fake-api-key" }
        return try await projects.firstAPIKey(projectID: projectID)
    }

    /// Short handles for sealed values kept in the store, for one `purpose` (bound into the seal).
    func storedHandles(purpose: String) -> StoredHandles {
        StoredHandles(codes: store.codes, secrets: secrets, clock: clock, random: random, purpose: purpose)
    }

    /// Sealed, expiring, single-use tokens carrying a `Payload`, for one `purpose` (bound into the seal).
    func singleUseTokens<Payload>(purpose: String, lifetimeSeconds: Int64) -> SingleUseTokens<Payload> {
        SingleUseTokens(secrets: secrets, counters: store.counters, clock: clock, random: random, purpose: purpose,
                        lifetimeSeconds: lifetimeSeconds)
    }
}

extension ServerCore {
    /// Opens the core's parts over an open store: the master key, the project directory and the default project.
    static func open(configuration: ServerConfiguration, store: Store, telemetry: Telemetry, environment: ServerEnvironment,
                     logger: Logger) async throws -> ServerCore {
        let secrets = SecretBox(masterKey: try SecretBox.loadMasterKey(
            environment: environment.variables, dataDirectory: configuration.dataDirectory, random: environment.random))
        let publicHost = URLComponents(string: configuration.resolvedPublicURL(boundPort: configuration.port))?.host
        let projects = ProjectDirectory(
            settings: store.settings, secrets: secrets, random: environment.random, clock: environment.clock,
            policy: configuration.policy, defaultAuthorizedDomains: Array(Set(["localhost", publicHost ?? "localhost"])).sorted())
        try await projects.ensureProject(configuration.projectID)
        return ServerCore(
            configuration: configuration, store: store, clock: environment.clock, random: environment.random,
            rsaKeys: environment.rsaKeys, signingThreads: environment.signingThreads, secrets: secrets, telemetry: telemetry, logger: logger, projects: projects,
            budgets: BudgetLedger(counters: store.counters, clock: environment.clock, configuration: configuration),
            address: PublicAddress(configuration: configuration))
    }
}

/// The server's external base URL: the configured `--public-url`, else `http://host:port` with the port the
/// listener bound (known only once it runs, so read at each use).
final class PublicAddress: Sendable {
    private let configuration: ServerConfiguration
    private let bound = NIOLockedValueBox<String?>(nil)

    init(configuration: ServerConfiguration) { self.configuration = configuration }

    var url: String { bound.withLockedValue { $0 } ?? configuration.resolvedPublicURL(boundPort: configuration.port) }

    /// Notes the port the listener bound.
    func bind(port: Int) { bound.withLockedValue { $0 = configuration.resolvedPublicURL(boundPort: port) } }
}
