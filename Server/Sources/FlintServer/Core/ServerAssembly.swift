import FlintWire
import Hummingbird

/// Builds every feature from the core, each with the few collaborators it uses, and lists their endpoints: the one
/// place where the server is wired. A new feature adds its service here and its endpoints to `endpoints`.
struct ServerAssembly: Sendable {
    let core: ServerCore
    let keyring: SigningKeyring
    let usage: UsageCounters
    let janitor: Janitor
    let auditStreamer: AuditStreamer
    let delivery: DeliveryServices
    let emailOutbox: EmailOutbox
    let tokens: TokenService
    let accounts: AccountService
    let phone: PhoneService
    let appVerifier: AppVerifier
    let proofOfWork: ProofOfWork
    let actionCodes: ActionCodeService
    let federated: FederatedService
    let multiFactor: MultiFactorService
    let passkeys: PasskeyService
    let serviceAccounts: ServiceAccounts
    let customTokens: CustomTokenService
    let identityProviderConfigs: IdentityProviderConfigService
    let oidcProviderConfigs: OIDCProviderConfigService
    let samlProviderConfigs: SAMLProviderConfigService
    let projectConfig: ProjectConfigService
    let tenants: TenantService
    let emulatorData: EmulatorDataTransfer
    let consoleSessions: ConsoleSessions
    let callers: CallerResolver
    /// The OpenID provider's clients, and its endpoints (production mode).
    let oauthClients: OAuthClientRegistry
    let oauthResources: OAuthResourceRegistry
    /// Users' consents to its clients (the v2 `oauthGrants` endpoints, the console's user page).
    let oauthConsents: OAuthConsents
    let provider: ProviderRoutes
    /// Users' sessions: their sign-ins', and in production the OpenID provider's clients' too.
    let userSessions: SessionRoutes

    /// Builds the features; loads (or makes) the signing keys.
    static func assemble(_ core: ServerCore) async throws -> ServerAssembly {
        let keyring = SigningKeyring(core: core)
        try await keyring.start()
        return try ServerAssembly(core: core, keyring: keyring)
    }

    private init(core: ServerCore, keyring: SigningKeyring) throws {
        self.core = core
        self.keyring = keyring
        usage = UsageCounters(core: core)
        janitor = Janitor(core: core)
        delivery = try DeliveryServices.make(
            core.policy.deliveryConfiguration(core.configuration.delivery), telemetry: core.telemetry, clock: core.clock,
            logger: core.logger)
        auditStreamer = AuditStreamer(core: core, http: delivery.http)
        emailOutbox = EmailOutbox(core: core, sender: delivery.email, usage: usage)
        tokens = TokenService(core: core, keyring: keyring, usage: usage)
        let blockingFunctions = BlockingFunctions(core: core, http: delivery.http, keyring: keyring, tokens: tokens)
        let gate = SecondFactorGate(core: core)
        let notices = NewDeviceNotices(audit: core.store.audit, outbox: emailOutbox, budgets: core.budgets)
        let pipeline = SignInPipeline(core: core, tokens: tokens, gate: gate, blockingFunctions: blockingFunctions, notices: notices)
        let passwords = PasswordRules(core: core)
        accounts = AccountService(
            core: core, tokens: tokens, passwords: passwords, pipeline: pipeline, userDeleted: delivery.userDeleted)
        proofOfWork = ProofOfWork(core: core)
        appVerifier = AppVerifier(core: core, delivery: delivery, proofOfWork: proofOfWork)
        let phoneCodes = PhoneCodes(
            core: core, appVerifier: appVerifier, sms: delivery.sms, usage: usage, blockingFunctions: blockingFunctions)
        phone = PhoneService(core: core, tokens: tokens, codes: phoneCodes, pipeline: pipeline)
        multiFactor = MultiFactorService(core: core, tokens: tokens, phoneCodes: phoneCodes, gate: gate, pipeline: pipeline)
        passkeys = PasskeyService(core: core, tokens: tokens, pipeline: pipeline)
        actionCodes = ActionCodeService(
            core: core, tokens: tokens, passwords: passwords, outbox: emailOutbox, pipeline: pipeline,
            blockingFunctions: blockingFunctions)
        federated = FederatedService(
            core: core, tokens: tokens,
            providers: ProviderClients(
                endpoints: core.configuration.identityProviderEndpoints, http: delivery.http, clock: core.clock),
            pipeline: pipeline)
        serviceAccounts = ServiceAccounts(core: core)
        customTokens = CustomTokenService(core: core, pipeline: pipeline, serviceAccounts: serviceAccounts)
        identityProviderConfigs = IdentityProviderConfigService(core: core)
        oidcProviderConfigs = OIDCProviderConfigService(core: core)
        samlProviderConfigs = SAMLProviderConfigService(core: core)
        projectConfig = ProjectConfigService(core: core)
        tenants = TenantService(core: core, projectConfig: projectConfig)
        emulatorData = EmulatorDataTransfer(core: core, accounts: accounts, projectConfig: projectConfig)
        consoleSessions = ConsoleSessions(core: core, serviceAccounts: serviceAccounts)
        callers = CallerResolver(core: core, serviceAccounts: serviceAccounts)
        oauthClients = OAuthClientRegistry(
            core: core, fetch: try UntrustedFetch(configuration: core.policy.deliveryConfiguration(core.configuration.delivery)))
        oauthResources = OAuthResourceRegistry(projects: core.projects, random: core.random, clock: core.clock)
        oauthConsents = OAuthConsents(store: core.store.oauth, clients: oauthClients, clock: core.clock)
        provider = ProviderRoutes(core: core, clients: oauthClients, keyring: keyring, idTokens: tokens, http: delivery.http,
                                 proofOfWork: proofOfWork)
        userSessions = SessionRoutes(
            sessions: core.store.sessions,
            external: core.policy.usesGoogleIssuers ? [] : [OAuthClientSessions(store: core.store.oauth, clock: core.clock)],
            idTokens: tokens, projects: core.projects, clock: core.clock)
    }

    /// Every feature's endpoints, the OpenAPI document's own included: the route table.
    var endpoints: [Endpoint] {
        var endpoints = accounts.endpoints(actionCodes: actionCodes, federated: federated)
        endpoints += actionCodes.endpoints
        endpoints += identityProviderConfigs.endpoints
        endpoints += oidcProviderConfigs.endpoints
        endpoints += samlProviderConfigs.endpoints
        endpoints += federated.endpoints
        endpoints += multiFactor.endpoints
        endpoints += passkeys.endpoints
        endpoints += PasskeyConfigRoutes(projects: core.projects).endpoints
        endpoints += serviceAccounts.endpoints
        endpoints += customTokens.endpoints
        endpoints += phone.endpoints(appVerifier: appVerifier)
        endpoints += projectConfig.endpoints
        endpoints += tenants.endpoints
        endpoints += TokenRoutes(tokens: tokens, keyring: keyring, callers: callers, address: core.address).endpoints
        endpoints += HostedRoutes(
            proofOfWork: proofOfWork, signIn: SignInHandler(federated: federated, callers: callers, address: core.address),
            callers: callers).endpoints
        endpoints += ActionRoutes(callers: callers, address: core.address).endpoints
        endpoints += ConsoleRoutes(
            core: core, sessions: consoleSessions, accounts: accounts, projectConfig: projectConfig,
            identityProviders: identityProviderConfigs, samlProviders: samlProviderConfigs, usage: usage, oauthClients: oauthClients,
            oauthConsents: oauthConsents, userSessions: userSessions).endpoints
        endpoints += userSessions.endpoints
        endpoints += AuditRoutes(core: core).endpoints
        endpoints += OAuthClientRoutes(registry: oauthClients).endpoints
        endpoints += OAuthResourceRoutes(registry: oauthResources).endpoints
        if !core.policy.usesGoogleIssuers {
            endpoints += provider.endpoints
            endpoints += OAuthGrantRoutes(consents: oauthConsents, idTokens: tokens).endpoints
        }
        endpoints += WellKnownRoutes(projects: core.projects, defaultProjectID: core.configuration.projectID).endpoints
        if core.policy.servesEmulatorEndpoints {
            endpoints += EmulatorRoutes(core: core, projectConfig: projectConfig).endpoints
            endpoints += emulatorData.endpoints
            endpoints += EmulatorSignInPages(accounts: core.store.accounts, callers: callers).endpoints
            endpoints.append(actionCodes.emulatorActionEndpoint(defaultProjectID: core.configuration.projectID))
        }
        endpoints.append(statusEndpoint)
        return OpenAPIRoutes.adding(to: endpoints, policy: core.policy, address: core.address)
    }

    /// `GET /`: whether the server is up, in the emulator's shape in emulator mode (the emulator UI asks).
    private var statusEndpoint: Endpoint {
        let mode = core.policy.mode
        return Endpoint(method: .get, paths: ["/"], contract: .init(credentials: .none, response: .anyJSONObject)) { _, _ in
            let status: JSONValue = mode == .emulator
                ? ["authEmulator": ["ready": true, "docs": "https://firebase.google.com/docs/emulator-suite", "apiSpec": "/emulator/openapi.json"]]
                : ["flint": ["ready": true, "mode": "production"]]
            return try JSONBody.response(status)
        }
    }
}
