import FlintWire
import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdHTTP2
import Logging
import NIOConcurrencyHelpers
import NIOPosix
import ServiceLifecycle
import Tracing

/// What the server takes from its surroundings: time, randomness, environment variables, and where its traces
/// go. Tests inject a clock they control and a tracer that records.
public struct ServerEnvironment: Sendable {
    public var clock: any FlintClock
    public var random: any RandomSource
    public var variables: [String: String]
    /// Spans around each request, store call and outside call. The default propagates trace context and
    /// records nothing (`FlintTracer` without an exporter); `flint serve --otlp-endpoint` brings swift-otel's.
    public var tracer: any Tracer
    /// New RSA keys (signing, service-account and SAML SP keys).
    public var rsaKeys: any RSAKeySource
    /// The threads RS256 signatures run on; nil: on the task that asks (see `EventLoopExecutor.signingThreads`).
    public var signingThreads: NIOThreadPool?

    public init(clock: any FlintClock = SystemClock(), random: any RandomSource = SystemRandomSource(),
                variables: [String: String] = ProcessInfo.processInfo.environment, tracer: any Tracer = FlintTracer(),
                rsaKeys: any RSAKeySource = FreshRSAKeys(), signingThreads: NIOThreadPool? = EventLoopExecutor.signingThreads) {
        self.signingThreads = signingThreads
        self.clock = clock
        self.random = random
        self.rsaKeys = rsaKeys
        self.variables = variables
        self.tracer = tracer
    }
}

/// The Flint server: its core and features (built by `ServerAssembly`), its lifecycle and its one router.
public final class AuthServer: Sendable {
    /// The primitives every feature is built from.
    let core: ServerCore
    /// The features, wired.
    let assembly: ServerAssembly
    private let boundManagementPort = NIOLockedValueBox<Int?>(nil)
    private let runningGroup = NIOLockedValueBox<ServiceGroup?>(nil)

    public var configuration: ServerConfiguration { core.configuration }
    public var store: Store { core.store }
    public var projects: ProjectDirectory { core.projects }
    public var logger: Logger { core.logger }
    public var keyring: SigningKeyring { assembly.keyring }
    public var tokens: TokenService { assembly.tokens }
    public var accounts: AccountService { assembly.accounts }
    /// Production mode's admin credentials (and custom-token signers).
    public var serviceAccounts: ServiceAccounts { assembly.serviceAccounts }
    public var delivery: DeliveryServices { assembly.delivery }
    /// Per-day counts of sign-ins, SMS and emails, for the console.
    public var usage: UsageCounters { assembly.usage }
    /// Sends action emails after the requests that queue them have been answered.
    public var emailOutbox: EmailOutbox { assembly.emailOutbox }
    /// Sweeps expired codes and old counters while the server runs.
    var janitor: Janitor { assembly.janitor }
    /// Posts each project's audit trail to its webhook and writes it to the log.
    var auditStreamer: AuditStreamer { assembly.auditStreamer }
    var projectConfig: ProjectConfigService { assembly.projectConfig }
    var tenants: TenantService { assembly.tenants }
    /// Requests, latencies and the rest, served at the management listener's `/metrics`.
    public var metrics: ServerMetrics { core.telemetry.metrics }

    /// Opens the store (migrating it), then the core (master key, default project) and the features (signing keys).
    public static func open(configuration: ServerConfiguration, environment: ServerEnvironment = .init(),
                            logger: Logger = Logger(label: "flint")) async throws -> AuthServer {
        let telemetry = Telemetry(metrics: ServerMetrics(), tracer: environment.tracer)
        let store = try await Store.open(
            databaseURL: configuration.databaseURL, dataDirectory: configuration.dataDirectory, logger: logger,
            telemetry: telemetry)
        do {
            // What opening writes to the trail (a new project, its first keys) is dated by the server's clock.
            return try await AuditScope.$clock.withValue(environment.clock) {
                let core = try await ServerCore.open(
                    configuration: configuration, store: store, telemetry: telemetry, environment: environment, logger: logger)
                return AuthServer(core: core, assembly: try await ServerAssembly.assemble(core))
            }
        } catch {
            try? await store.close()
            throw error
        }
    }

    private init(core: ServerCore, assembly: ServerAssembly) {
        self.core = core
        self.assembly = assembly
    }

    /// The external base URL (the configured one, or `http://host:boundPort` once bound).
    public var publicURL: String { core.publicURL }

    /// An API key clients can use (see `ServerCore.apiKey(forProject:)`).
    public func defaultAPIKey() async throws -> String {
        try await core.apiKey(forProject: configuration.projectID)
    }

    /// Applies a v2 project-config change (the fields `updateMask` names, or all present ones), as an
    /// admin `PATCH /v2/projects/{p}/config` would; for the CLI and tests. Without a mask it changes the
    /// present fields in every mode: unlike such a PATCH in emulator mode
    /// (`ModePolicy.configPatchWithoutMaskReplacesEmulatorSettings`), it resets nothing a caller did not name.
    public func updateProjectConfig(_ projectID: String, _ change: ProjectConfig, updateMask: String?) async throws -> ProjectConfig {
        let project = try await projects.ensureProject(projectID)
        let updated = try await projectConfig.update(
            project, with: change, mask: updateMask.map(UpdateMask.init(_:)) ?? UpdateMask(present: change))
        return ProjectConfigService.config(of: updated)
    }

    /// Loads an emulator data folder into the served project, all of it or nothing (see `EmulatorDataTransfer`), as
    /// `flint serve --import` does; an `EmulatorDataFault` names the file and entry that stopped it.
    public func importEmulatorData(from directory: URL) async throws {
        try await assembly.emulatorData.load(try EmulatorDataFolder.read(from: directory), projectID: configuration.projectID)
    }

    /// The served project's users, its tenants' and its emulator config, as an emulator data folder.
    public func emulatorData() async throws -> EmulatorDataFolder {
        try await assembly.emulatorData.export(projectID: configuration.projectID)
    }

    /// Sets up or changes the passkey relying party of a project or tenant (its store key), as an admin
    /// `PATCH …/passkeyConfig` would; for the CLI and tests.
    public func configurePasskeys(_ projectID: String, _ change: PasskeyConfig) async throws -> PasskeyConfig {
        try await PasskeyConfigRoutes(projects: projects).save(change, in: try await projects.ensureProject(projectID))
    }

    /// Creates or replaces the configuration of a built-in identity provider (`apple.com`, `facebook.com`,
    /// `google.com`), as an admin `POST`/`PATCH …/defaultSupportedIdpConfigs` would; for the CLI and tests.
    public func configureIdentityProvider(_ projectID: String, _ providerID: String, _ config: DefaultSupportedIdpConfig)
        async throws -> DefaultSupportedIdpConfig {
        try await configure(assembly.identityProviderConfigs, projectID, providerID, config)
    }

    /// Creates or replaces an OpenID Connect provider (`oidc.…`), as an admin `POST`/`PATCH …/oauthIdpConfigs` would.
    public func configureOIDCProvider(_ projectID: String, _ providerID: String, _ config: OAuthIdpConfig)
        async throws -> OAuthIdpConfig {
        try await configure(assembly.oidcProviderConfigs, projectID, providerID, config)
    }

    private func configure<Kind: ProviderConfigKind>(_ kind: Kind, _ projectID: String, _ providerID: String,
                                                     _ config: Kind.Config) async throws -> Kind.Config {
        let id = try Kind.providerID(providerID)
        let project = try await projects.ensureProject(projectID)
        return try await kind.save(id, config, mask: nil, caller: Caller(project: project, isAdmin: true))
    }

    /// Serves HTTP until cancelled or, with `handleSignals`, until SIGINT/SIGTERM (then shuts down gracefully).
    /// `onRunning` receives the bound port, once the management listener (if any) listens too. `services` run
    /// alongside and stop after everything else (a span exporter, which then sends the last spans).
    public func run(handleSignals: Bool = true, alongside services: [any Service] = [],
                    onRunning: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        let address = core.address
        let configuration = self.configuration
        let (managementListens, managementBound) = AsyncStream<Void>.makeStream()
        let app = Application(
            router: makeRouter(),
            server: try .flint(tls: configuration.tls?.serverConfiguration, onConnectionLoops: EventLoopExecutor.runsTasks),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "flint"),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? configuration.port
                address.bind(port: port)
                if configuration.management != nil { for await _ in managementListens { break } }
                await onRunning(port)
            },
            logger: logger)
        // Graceful shutdown stops the services last to first: the outbox drains after the last request has
        // been answered (and has queued what it queues). What earlier nodes left it is queued before serving.
        await emailOutbox.requeueLeftovers()
        var services: [any Service] = services + [emailOutbox, app, janitor, auditStreamer, usage]
        if handleSignals, let certificates = configuration.tls {
            services.append(CertificateReloader(certificates: certificates, logger: logger))
        }
        if let management = configuration.management {
            let boundManagementPort = self.boundManagementPort
            services.append(ManagementServer(
                configuration: management, metrics: metrics, readiness: Readiness(store: store, keyring: keyring), logger: logger
            ).application { port in
                boundManagementPort.withLockedValue { $0 = port }
                managementBound.yield()
            })
        }
        var groupConfiguration = ServiceGroupConfiguration(
            services: services, gracefulShutdownSignals: handleSignals ? [.sigterm, .sigint] : [], logger: logger)
        groupConfiguration.maximumGracefulShutdownDuration = configuration.shutdownGracePeriod
        let group = ServiceGroup(configuration: groupConfiguration)
        runningGroup.withLockedValue { $0 = group }
        // The services' own events (a key rotated by the keyring) are dated by the server's clock.
        try await AuditScope.$clock.withValue(core.clock) { try await group.run() }
    }

    /// The management listener's port once it is bound (nil when it is off or not yet listening).
    public var managementPort: Int? { boundManagementPort.withLockedValue { $0 } }

    /// Stops a running server gracefully: open requests finish, then `run` returns.
    public func shutdown() async {
        await runningGroup.withLockedValue { $0 }?.triggerGracefulShutdown()
    }

    public func close() async throws {
        // Counts of requests that finished after the usage service's last flush.
        await usage.flush()
        try await delivery.shutdown()
        try await store.close()
    }

    /// Every route the router serves, as `METHOD /path/{parameter}`: what the OpenAPI document must list.
    var routes: [String] { makeRouter().routes.map { "\($0.method) \($0.path)" } }

    /// The OpenAPI document of the server's endpoints.
    var openAPIDocument: OpenAPIDocument {
        OpenAPIDocument(endpoints: assembly.endpoints, mode: configuration.policy.mode, serverURL: publicURL)
    }

    /// One routing table: every feature's endpoints under all their aliases.
    private func makeRouter() -> Router<FlintRequestContext> {
        let router = Router(context: FlintRequestContext.self)
        router.add(middleware: TelemetryMiddleware(telemetry: core.telemetry))
        router.add(middleware: CORSMiddleware())
        router.add(middleware: ErrorMiddleware(usage: usage))
        router.add(middleware: CacheGenerationMiddleware())
        // Where any project ID is served (emulator mode), the single-project mode narrows that.
        if configuration.policy.createsProjectsOnDemand {
            router.add(middleware: SingleProjectMiddleware(
                mode: configuration.singleProjectMode, projectID: configuration.projectID, logger: logger))
        }
        router.add(middleware: RequestClientMiddleware(trustedProxies: configuration.trustedProxies))
        router.add(middleware: AuditMiddleware(audit: core.store.audit, clock: core.clock))
        let callers = assembly.callers
        for endpoint in assembly.endpoints {
            let handle = endpoint.handle
            #if DEBUG
            // Debug builds (the tests) check that every budget a request spends is one its route declares.
            let declared = Set(endpoint.budgets.map(\.name))
            let serve: @Sendable (Request, FlintRequestContext) async throws -> Response = { request, context in
                try await BudgetLedger.$declaredByRoute.withValue(declared) { try await handle(request, context, callers) }
            }
            #else
            let serve: @Sendable (Request, FlintRequestContext) async throws -> Response = { request, context in
                try await handle(request, context, callers)
            }
            #endif
            for path in endpoint.paths {
                router.on(RouterPath(path), method: endpoint.method, use: serve)
            }
        }
        return router
    }
}
