import FlintWire
import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdHTTP2
import Logging
import NIOConcurrencyHelpers
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

    public init(clock: any FlintClock = SystemClock(), random: any RandomSource = SystemRandomSource(),
                variables: [String: String] = ProcessInfo.processInfo.environment, tracer: any Tracer = FlintTracer()) {
        self.clock = clock
        self.random = random
        self.variables = variables
        self.tracer = tracer
    }
}

/// The Flint server: its store, keys, services and HTTP routes, assembled from a configuration.
public final class AuthServer: Sendable {
    public let configuration: ServerConfiguration
    public let store: Store
    public let keyring: SigningKeyring
    public let projects: ProjectDirectory
    public let tokens: TokenService
    public let accounts: AccountService
    public let phone: PhoneService
    public let actionCodes: ActionCodeService
    public let federated: FederatedService
    public let multiFactor: MultiFactorService
    /// Production mode's admin credentials (and custom-token signers).
    public let serviceAccounts: ServiceAccounts
    public let customTokens: CustomTokenService
    let identityProviderConfigs: IdentityProviderConfigService
    let oidcProviderConfigs: OIDCProviderConfigService
    let projectConfig: ProjectConfigService
    let tenants: TenantService
    public let delivery: DeliveryServices
    /// Per-day counts of sign-ins, SMS and emails, for the console.
    public let usage: UsageCounters
    let appVerifier: AppVerifier
    /// Who is signed in to the web console.
    let consoleSessions: ConsoleSessions
    let proofOfWork: ProofOfWork
    public let logger: Logger
    /// Requests, latencies and the rest, served at the management listener's `/metrics`.
    public var metrics: ServerMetrics { telemetry.metrics }
    /// The metrics and the tracer that the middleware, the store and the outside-call clients measure with.
    let telemetry: Telemetry
    private let boundPublicURL = NIOLockedValueBox<String?>(nil)
    private let boundManagementPort = NIOLockedValueBox<Int?>(nil)
    private let runningGroup = NIOLockedValueBox<ServiceGroup?>(nil)
    /// Sweeps expired codes and old counters while the server runs.
    let janitor: Janitor
    /// Sends action emails after the requests that queue them have been answered.
    public let emailOutbox: EmailOutbox

    /// Opens the store (migrating it), loads or creates the signing keys and the default project.
    public static func open(configuration: ServerConfiguration, environment: ServerEnvironment = .init(),
                            logger: Logger = Logger(label: "flint")) async throws -> AuthServer {
        let telemetry = Telemetry(metrics: ServerMetrics(), tracer: environment.tracer)
        let store = try await Store.open(
            databaseURL: configuration.databaseURL, dataDirectory: configuration.dataDirectory, logger: logger,
            telemetry: telemetry)
        do {
            return try await AuthServer(configuration: configuration, store: store, telemetry: telemetry,
                                        environment: environment, logger: logger)
        } catch {
            try? await store.close()
            throw error
        }
    }

    private init(configuration: ServerConfiguration, store: Store, telemetry: Telemetry, environment: ServerEnvironment,
                 logger: Logger) async throws {
        self.configuration = configuration
        self.store = store
        self.telemetry = telemetry
        self.logger = logger
        let secrets = SecretBox(masterKey: try SecretBox.loadMasterKey(
            environment: environment.variables, dataDirectory: configuration.dataDirectory, random: environment.random))
        janitor = Janitor(store: store, metrics: telemetry.metrics, clock: environment.clock,
                          refreshTokenIdleSeconds: configuration.refreshTokenIdleSeconds, logger: logger)
        usage = UsageCounters(store: store, clock: environment.clock, metrics: telemetry.metrics, logger: logger)
        keyring = SigningKeyring(store: store, secrets: secrets, clock: environment.clock, logger: logger)
        try await keyring.start()
        let publicHost = URLComponents(string: configuration.resolvedPublicURL(boundPort: configuration.port))?.host
        projects = ProjectDirectory(
            store: store, secrets: secrets, random: environment.random, clock: environment.clock,
            policy: configuration.policy, defaultAuthorizedDomains: Array(Set(["localhost", publicHost ?? "localhost"])).sorted())
        try await projects.ensureProject(configuration.projectID)
        let boundPublicURL = self.boundPublicURL
        let policy = configuration.policy
        tokens = TokenService(
            keyring: keyring, secrets: secrets, refreshTokenIdleSeconds: configuration.refreshTokenIdleSeconds, store: store, clock: environment.clock, random: environment.random, usage: usage,
            policy: policy, issuerPrefix: {
                // The emulator's issuer is Google's, so Admin SDKs in emulator mode accept the tokens.
                policy.usesGoogleIssuers ? "https://securetoken.google.com/"
                    : (boundPublicURL.withLockedValue { $0 } ?? configuration.resolvedPublicURL(boundPort: configuration.port)) + "/"
            },
            sessionIssuerPrefix: {
                // Likewise for session cookies; production's are Flint's own, signed by the same keys.
                policy.usesGoogleIssuers ? "https://session.firebase.google.com/"
                    : (boundPublicURL.withLockedValue { $0 } ?? configuration.resolvedPublicURL(boundPort: configuration.port))
                        + "/session/"
            })
        // The emulator makes no outside calls: codes go to the log whatever the configuration says.
        var deliveryConfiguration = configuration.delivery
        if !policy.makesOutsideCalls {
            deliveryConfiguration = DeliveryConfiguration()
            // Blocking functions are called in emulator mode too, within the configured bounds.
            deliveryConfiguration.limits = configuration.delivery.limits
        }
        delivery = try DeliveryServices.make(deliveryConfiguration, telemetry: telemetry, clock: environment.clock, logger: logger)
        emailOutbox = EmailOutbox(sender: delivery.email, settings: configuration.delivery.emailOutbox, store: store,
                                  secrets: secrets, usage: usage, logger: logger)
        let secondFactorGate = SecondFactorGate(secrets: secrets, store: store, clock: environment.clock, random: environment.random)
        let pipeline = SignInPipeline(
            store: store, tokens: tokens, gate: secondFactorGate, projects: projects,
            blockingFunctions: BlockingFunctions(http: delivery.http, keyring: keyring, tokens: tokens, clock: environment.clock,
                                                 random: environment.random),
            clock: environment.clock)
        accounts = AccountService(
            store: store, tokens: tokens, hasher: PasswordHasher(),
            importedPasswords: ImportedPasswords(secrets: secrets, threadPool: .singleton), pipeline: pipeline,
            userDeleted: delivery.userDeleted, clock: environment.clock, random: environment.random, policy: policy,
            signUpLimits: configuration.signUpLimits)
        proofOfWork = ProofOfWork(secrets: secrets, store: store, clock: environment.clock, random: environment.random)
        appVerifier = AppVerifier(
            store: store, clock: environment.clock, random: environment.random, delivery: delivery,
            proofOfWork: proofOfWork, policy: policy, logger: logger)
        phone = PhoneService(
            store: store, tokens: tokens,
            codes: VerificationCodes(
                store: store, clock: environment.clock, random: environment.random, limits: configuration.phoneLimits,
                policy: policy),
            proofs: TemporaryProofs(secrets: secrets, store: store, clock: environment.clock, random: environment.random),
            limits: SendLimits(store: store, clock: environment.clock, limits: configuration.phoneLimits),
            appVerifier: appVerifier, sms: delivery.sms, usage: usage, pipeline: pipeline, clock: environment.clock,
            random: environment.random, policy: policy)
        multiFactor = MultiFactorService(
            store: store, tokens: tokens, phone: phone, gate: secondFactorGate, pipeline: pipeline, secrets: secrets,
            totpEnrollments: SingleUseTokens(
                secrets: secrets, store: store, clock: environment.clock, random: environment.random,
                purpose: "totp-enrollment", lifetimeSeconds: 1800),
            clock: environment.clock, random: environment.random)
        identityProviderConfigs = IdentityProviderConfigService(projects: projects, secrets: secrets)
        oidcProviderConfigs = OIDCProviderConfigService(projects: projects, secrets: secrets)
        projectConfig = ProjectConfigService(projects: projects, store: store, limits: configuration.phoneLimits, policy: policy,
                                             clock: environment.clock)
        tenants = TenantService(projects: projects, projectConfig: projectConfig, policy: policy, random: environment.random)
        let publicURLForKeys = boundPublicURL
        serviceAccounts = ServiceAccounts(
            store: store, secrets: secrets, clock: environment.clock, random: environment.random,
            publicURL: { publicURLForKeys.withLockedValue { $0 } ?? configuration.resolvedPublicURL(boundPort: configuration.port) })
        consoleSessions = ConsoleSessions(
            serviceAccounts: serviceAccounts, store: store, secrets: secrets, clock: environment.clock,
            random: environment.random, policy: policy, defaultProjectID: configuration.projectID)
        customTokens = CustomTokenService(
            store: store, pipeline: pipeline, serviceAccounts: serviceAccounts, clock: environment.clock, policy: policy)
        let providers = configuration.identityProviderEndpoints
        let http = delivery.http
        let providerTokenKeys = { (url: String) in
            IdentityTokenVerifier(keys: JWKSCache(url: url, http: http, clock: environment.clock), clock: environment.clock)
        }
        let codeFlowProviders = CodeFlowProviders(
            google: GoogleSignIn(
                verifier: providerTokenKeys(providers.googleJWKSURL), issuers: providers.googleIssuers,
                oauth: GoogleOAuthClient(
                    tokenInfoURL: providers.googleTokenInfoURL, userInfoURL: providers.googleUserInfoURL, http: http),
                authorizationURL: providers.googleAuthorizationURL, tokenURL: providers.googleTokenURL),
            gitHub: GitHubSignIn(webURL: providers.gitHubURL, apiURL: providers.gitHubAPIURL, http: http),
            microsoft: MicrosoftSignIn(loginURL: providers.microsoftLoginURL, issuerTemplate: providers.microsoftIssuerTemplate,
                                       verifier: providerTokenKeys(providers.microsoftJWKSURL)),
            oidc: OIDCSignIn(http: http, clock: environment.clock))
        federated = FederatedService(
            store: store, tokens: tokens, secrets: secrets,
            apple: AppleSignIn(verifier: providerTokenKeys(providers.appleJWKSURL), issuers: providers.appleIssuers),
            facebook: FacebookSignIn(
                graph: FacebookGraphClient(baseURL: providers.facebookGraphURL, http: http),
                limitedLogin: providerTokenKeys(providers.facebookJWKSURL), issuers: providers.facebookIssuers),
            providers: codeFlowProviders,
            codeFlow: AuthorizationCodeFlow(
                sessions: SingleUseTokens(
                    secrets: secrets, store: store, clock: environment.clock, random: environment.random,
                    purpose: "federated-code-flow-session", lifetimeSeconds: 600),
                providers: codeFlowProviders, secrets: secrets, http: http, random: environment.random),
            appleID: AppleIDClient(baseURL: providers.appleBaseURL, http: http, clock: environment.clock),
            pendingCredentials: SingleUseTokens(
                secrets: secrets, store: store, clock: environment.clock, random: environment.random,
                purpose: "federated-pending-credential", lifetimeSeconds: 3600),
            pipeline: pipeline, clock: environment.clock, random: environment.random, policy: policy)
        let publicURLBox = boundPublicURL
        actionCodes = ActionCodeService(
            store: store, tokens: tokens, accounts: accounts, projects: projects, outbox: emailOutbox, pipeline: pipeline,
            clock: environment.clock, random: environment.random, limits: configuration.emailLimits, policy: policy,
            publicURL: { publicURLBox.withLockedValue { $0 } ?? configuration.resolvedPublicURL(boundPort: configuration.port) })
    }

    /// The external base URL (the configured one, or `http://host:boundPort` once bound).
    public var publicURL: String {
        boundPublicURL.withLockedValue { $0 } ?? configuration.resolvedPublicURL(boundPort: configuration.port)
    }

    /// An API key clients can use: in production the default project's first key (created if missing);
    /// in emulator mode any non-empty key works, so a conventional placeholder.
    public func defaultAPIKey() async throws -> String {
        if configuration.policy.acceptsAnyAPIKey { return "fake-api-key" }
        return try await projects.firstAPIKey(projectID: configuration.projectID)
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

    /// Creates or replaces the configuration of a built-in identity provider (`apple.com`, `facebook.com`,
    /// `google.com`), as an admin `POST`/`PATCH …/defaultSupportedIdpConfigs` would; for the CLI and tests.
    public func configureIdentityProvider(_ projectID: String, _ providerID: String, _ config: DefaultSupportedIdpConfig)
        async throws -> DefaultSupportedIdpConfig {
        try await configure(identityProviderConfigs, projectID, providerID, config)
    }

    /// Creates or replaces an OpenID Connect provider (`oidc.…`), as an admin `POST`/`PATCH …/oauthIdpConfigs` would.
    public func configureOIDCProvider(_ projectID: String, _ providerID: String, _ config: OAuthIdpConfig)
        async throws -> OAuthIdpConfig {
        try await configure(oidcProviderConfigs, projectID, providerID, config)
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
        let boundPublicURL = self.boundPublicURL
        let configuration = self.configuration
        let (managementListens, managementBound) = AsyncStream<Void>.makeStream()
        let app = Application(
            router: makeRouter(),
            server: try configuration.tls.map { try HTTPServerBuilder.http2Upgrade(tlsConfiguration: $0.serverConfiguration) } ?? .http1(),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "flint"),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? configuration.port
                boundPublicURL.withLockedValue { $0 = configuration.resolvedPublicURL(boundPort: port) }
                if configuration.management != nil { for await _ in managementListens { break } }
                await onRunning(port)
            },
            logger: logger)
        // Graceful shutdown stops the services last to first: the outbox drains after the last request has
        // been answered (and has queued what it queues). What earlier nodes left it is queued before serving.
        await emailOutbox.requeueLeftovers()
        var services: [any Service] = services + [emailOutbox, app, janitor, usage]
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
        let group = ServiceGroup(configuration: .init(
            services: services, gracefulShutdownSignals: handleSignals ? [.sigterm, .sigint] : [], logger: logger))
        runningGroup.withLockedValue { $0 = group }
        try await group.run()
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
        OpenAPIDocument(endpoints: makeEndpoints(), mode: configuration.policy.mode, serverURL: publicURL)
    }

    /// `GET /`: whether the server is up, in the emulator's shape in emulator mode (the emulator UI asks).
    private var statusEndpoint: Endpoint {
        let mode = configuration.policy.mode
        return Endpoint(method: .get, paths: ["/"], contract: .init(credentials: .none, response: .anyJSONObject)) { _, _ in
            let status: JSONValue = mode == .emulator
                ? ["authEmulator": ["ready": true, "docs": "https://firebase.google.com/docs/emulator-suite", "apiSpec": "/emulator/openapi.json"]]
                : ["flint": ["ready": true, "mode": "production"]]
            return try JSONBody.response(status)
        }
    }

    /// One routing table: every feature's endpoints under all their aliases.
    private func makeRouter() -> Router<FlintRequestContext> {
        let router = Router(context: FlintRequestContext.self)
        router.add(middleware: TelemetryMiddleware(telemetry: telemetry))
        router.add(middleware: CORSMiddleware())
        router.add(middleware: ErrorMiddleware(usage: usage))
        router.add(middleware: CacheGenerationMiddleware())
        router.add(middleware: RequestClientMiddleware(trustedProxies: configuration.trustedProxies))
        for endpoint in makeEndpoints() {
            for path in endpoint.paths {
                router.on(RouterPath(path), method: endpoint.method, use: endpoint.handle)
            }
        }
        return router
    }

    /// Every feature's endpoints, the OpenAPI document's own included.
    private func makeEndpoints() -> [Endpoint] {
        let callers = CallerResolver(
            projects: projects, policy: configuration.policy, defaultProjectID: configuration.projectID,
            serviceAccounts: serviceAccounts)
        var endpoints = accounts.endpoints(callers: callers, actionCodes: actionCodes, federated: federated)
        endpoints += actionCodes.endpoints(callers: callers)
        endpoints += identityProviderConfigs.endpoints(callers: callers)
        endpoints += oidcProviderConfigs.endpoints(callers: callers)
        endpoints += federated.endpoints(callers: callers)
        endpoints += multiFactor.endpoints(callers: callers)
        endpoints += serviceAccounts.endpoints
        endpoints += customTokens.endpoints(callers: callers)
        endpoints += phone.endpoints(callers: callers, appVerifier: appVerifier)
        endpoints += projectConfig.endpoints(callers: callers)
        endpoints += tenants.endpoints(callers: callers)
        endpoints += TokenRoutes(tokens: tokens, keyring: keyring, callers: callers, publicURL: { self.publicURL }).endpoints
        endpoints += HostedRoutes(
            proofOfWork: proofOfWork, signIn: SignInHandler(federated: federated, callers: callers, publicURL: { self.publicURL }),
            callers: callers).endpoints
        endpoints += ActionRoutes(callers: callers, publicURL: { self.publicURL }).endpoints
        endpoints += ConsoleRoutes(
            sessions: consoleSessions, accounts: accounts, projects: projects, store: store, projectConfig: projectConfig,
            identityProviders: identityProviderConfigs, usage: usage, maxTestNumbers: configuration.phoneLimits.maxTestNumbers, publicURL: { self.publicURL }).endpoints
        endpoints += WellKnownRoutes(projects: projects, defaultProjectID: configuration.projectID).endpoints
        if configuration.policy.servesEmulatorEndpoints {
            endpoints += EmulatorRoutes(store: store, projects: projects, projectConfig: projectConfig).endpoints
            endpoints += EmulatorSignInPages(store: store, callers: callers).endpoints
            endpoints.append(actionCodes.emulatorActionEndpoint(defaultProjectID: configuration.projectID, callers: callers))
        }
        endpoints.append(statusEndpoint)
        return OpenAPIRoutes.adding(to: endpoints, policy: configuration.policy, publicURL: { self.publicURL })
    }
}
