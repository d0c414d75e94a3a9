import FlintWire
import Foundation
import Hummingbird

/// Identity Platform's tenant management, `v2/projects/{p}/tenants` (create, list, get, update, delete), as the Admin
/// SDKs' `tenantManager` calls it. A tenant is stored as its own settings under its `Realm` key; everything its users
/// do is scoped to it by the caller's resolution (`CallerResolver.scoped`).
struct TenantService: Sendable {
    let projects: ProjectDirectory
    let projectConfig: ProjectConfigService
    let policy: ModePolicy
    let random: any RandomSource

    init(core: ServerCore, projectConfig: ProjectConfigService) {
        projects = core.projects
        self.projectConfig = projectConfig
        policy = core.policy
        random = core.random
    }

    /// A page holds at most this many tenants (the Admin SDKs ask for up to 1000).
    static let maximumPageSize = 1000
    /// The fields a create, or a PATCH without a mask, sets (to Firebase's defaults where the body lacks them);
    /// `testPhoneNumbers`, `smsRegionConfig`, `passwordPolicyConfig` and `sessionPolicy` only when the body has them.
    private static let fullUpdatePaths = ["displayName", "allowPasswordSignup", "enableEmailLinkSignin", "disableAuth",
                                          "enableAnonymousUser", "mfaConfig"]

    var endpoints: [Endpoint] {
        let collection = Endpoint.identityToolkitPaths(version: "v2", "projects/:projectId/tenants")
        let item = Endpoint.identityToolkitPaths(version: "v2", "projects/:projectId/tenants/:tenantId")
        func contract(query: [String] = [], body: Bool = true) -> EndpointContract {
            EndpointContract(credentials: .admin, query: query, request: body ? [.json(TenantConfig.self)] : [],
                             response: .json(TenantConfig.self))
        }
        /// The project's caller (not scoped to the tenant, which may be switched off) and the tenant the path names.
        @Sendable func named(_ request: Request, _ context: FlintRequestContext, _ callers: CallerResolver) async throws -> (Caller, Realm) {
            let caller = try await callers.resolve(request, context: context, access: .admin, inPathTenant: false)
            guard let tenantID = context.parameters.get("tenantId"), Realm.isValidTenantID(tenantID) else {
                throw Self.notFound
            }
            return (caller, Realm(projectID: caller.projectID, tenantID: tenantID))
        }
        return [
            Endpoint(method: .post, paths: collection, contract: contract()) { request, context, callers in
                let caller = try await callers.resolve(request, context: context, access: .admin)
                let body = try await JSONBody.decode(TenantConfig.self, from: request)
                return try JSONBody.response(Self.config(of: try await create(body, in: caller.projectID)))
            },
            .get(collection, access: .admin, query: ["pageSize", "pageToken"]) { request, caller in
                try await list(caller.projectID, pageSize: request.uri.queryParameters.get("pageSize"),
                               pageToken: request.uri.queryParameters.get("pageToken"))
            },
            Endpoint(method: .get, paths: item, contract: contract(body: false)) { request, context, callers in
                let (_, realm) = try await named(request, context, callers)
                return try JSONBody.response(Self.config(of: try await existing(realm)))
            },
            Endpoint(method: .patch, paths: item, contract: contract(query: ["updateMask"])) { request, context, callers in
                let (_, realm) = try await named(request, context, callers)
                let body = try await JSONBody.decode(TenantConfig.self, from: request)
                _ = try await existing(realm)
                let mask = UpdateMask(request.uri.queryParameters.get("updateMask") ?? "")
                let updated = try await projects.updateSettings(realm.key) { settings in
                    try await apply(body, mask: mask.paths.isEmpty ? Self.fullUpdate(of: body) : mask, to: &settings, key: realm.key)
                }
                return try JSONBody.response(Self.config(of: updated))
            },
            // The Admin SDKs send `{}` with their DELETE; it is read and ignored.
            Endpoint(method: .delete, paths: item, contract: EndpointContract(credentials: .admin, response: .anyJSONObject)) {
                request, context, callers in
                let (_, realm) = try await named(request, context, callers)
                guard try await projects.deleteTenant(realm) else { throw Self.notFound }
                return JSONBody.response(data: Data("{}".utf8))
            },
        ]
    }

    private static let notFound = FlintError(.tenantNotFound, status: .notFound)

    /// The tenant, which must exist; in emulator mode it is made on first use, as the official emulator makes it.
    private func existing(_ realm: Realm) async throws -> Project {
        if policy.createsProjectsOnDemand { return try await projects.ensureProject(realm.key) }
        guard let tenant = try await projects.project(realm.key) else { throw Self.notFound }
        return tenant
    }

    /// A new tenant with a fresh ID (its display name, made safe, and five random characters, as Identity Platform
    /// names them), the body's settings over Firebase's defaults.
    func create(_ body: TenantConfig, in projectID: String) async throws -> Project {
        let stem = Self.idStem(body.displayName)
        for _ in 0..<10 {
            let realm = Realm(projectID: projectID, tenantID: stem + "-" + random.string(length: 5, alphabet: "abcdefghijklmnopqrstuvwxyz0123456789"))
            let created = try await projects.createTenant(realm) { settings in
                try await apply(body, mask: Self.fullUpdate(of: body), to: &settings, key: realm.key)
            }
            if let created { return created }
        }
        throw FlintError.internalError
    }

    /// The lowercase letters, digits and hyphens of a display name (at most 20), starting with a letter; `tenant` else.
    private static func idStem(_ displayName: String?) -> String {
        let kept = (displayName ?? "").lowercased().map { $0 == " " ? "-" : $0 }
            .filter { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" }
        let stem = String(kept.drop { !("a"..."z").contains($0) }.prefix(20))
        return stem.isEmpty ? "tenant" : stem
    }

    private func list(_ projectID: String, pageSize: String?, pageToken: String?) async throws -> ListTenantsResponse {
        let size = pageSize.flatMap { Int($0) }.map { min(Self.maximumPageSize, max(1, $0)) } ?? Self.maximumPageSize
        let tenants = try await projects.tenants(of: projectID, after: pageToken.flatMap { $0.isEmpty ? nil : $0 }, limit: size)
        // As Firebase does, a full page carries a token even when nothing follows it.
        return ListTenantsResponse(tenants: tenants.map(Self.config(of:)),
                                   nextPageToken: tenants.count == size ? tenants.last?.realm.tenantID : nil)
    }

    /// A full update: the switches and MFA to the body's values or their defaults, and whatever else the body has.
    private static func fullUpdate(of body: TenantConfig) -> UpdateMask {
        var paths = fullUpdatePaths
        if body.testPhoneNumbers != nil { paths.append("testPhoneNumbers") }
        if body.smsRegionConfig != nil { paths.append("smsRegionConfig") }
        if body.passwordPolicyConfig != nil { paths.append("passwordPolicyConfig") }
        if body.sessionPolicy != nil { paths.append("sessionPolicy") }
        return UpdateMask(paths: paths)
    }

    /// Applies the fields `mask` names (a path also covers the fields below it; paths into a value that has no
    /// fields, `displayName.0`, change nothing).
    private func apply(_ change: TenantConfig, mask: UpdateMask, to settings: inout ProjectSettings, key: String) async throws {
        var profile = settings.tenant ?? TenantProfile()
        if mask.covers("displayName") { profile.displayName = change.displayName }
        if mask.covers("disableAuth") { profile.disableAuth = change.disableAuth ?? false }
        if mask.covers("allowPasswordSignup") { settings.signIn.emailPasswordEnabled = change.allowPasswordSignup ?? false }
        if mask.covers("enableEmailLinkSignin") { settings.signIn.emailLinkEnabled = change.enableEmailLinkSignin ?? false }
        if mask.covers("enableAnonymousUser") { settings.signIn.anonymousEnabled = change.enableAnonymousUser ?? false }
        if mask.covers("mfaConfig.state") { profile.mfaConfig.state = change.mfaConfig?.state ?? "DISABLED" }
        if mask.covers("mfaConfig.enabledProviders") { profile.mfaConfig.enabledProviders = change.mfaConfig?.enabledProviders ?? [] }
        if mask.covers("mfaConfig.providerConfigs") { profile.mfaConfig.providerConfigs = change.mfaConfig?.providerConfigs }
        // What the shown MFA config means, checked as the project's `mfa` is (`PROVIDER_UNSPECIFIED` means nothing).
        var meaning = profile.mfaConfig
        meaning.enabledProviders = meaning.enabledProviders?.filter { $0 != "PROVIDER_UNSPECIFIED" }
        try ProjectConfigService.applyMultiFactor(meaning, mask: UpdateMask(paths: ["mfa"]), to: &settings.multiFactor)
        if mask.covers("testPhoneNumbers") {
            settings.phone.testNumbers = try await projectConfig.testNumbers(
                change.testPhoneNumbers ?? [:], previous: settings.phone.testNumbers, projectID: key)
        }
        if mask.covers("smsRegionConfig") { settings.phone.regionPolicy = try ProjectConfigService.regionPolicy(change.smsRegionConfig) }
        try projectConfig.applyPasswordPolicy(change.passwordPolicyConfig, mask: mask, to: &settings.passwordPolicy)
        profile.sessionPolicy = try SessionPolicy.updated(profile.sessionPolicy, with: change.sessionPolicy, mask: mask)
        settings.tenant = profile
    }

    /// The tenant as the v2 API shows it.
    static func config(of tenant: Project) -> TenantConfig {
        let settings = tenant.settings
        let profile = settings.tenant ?? TenantProfile()
        // Shown only when set: a new tenant's (every region allowed) is absent, as Firebase shows it.
        let regions = settings.phone.regionPolicy == .allowByDefault(disallowed: [])
            ? nil : ProjectConfigService.shown(settings.phone.regionPolicy)
        return TenantConfig(
            name: tenant.realm.resourceName, tenantId: tenant.realm.tenantID, displayName: profile.displayName,
            allowPasswordSignup: settings.signIn.emailPasswordEnabled, enableEmailLinkSignin: settings.signIn.emailLinkEnabled,
            disableAuth: profile.disableAuth, enableAnonymousUser: settings.signIn.anonymousEnabled, mfaConfig: profile.mfaConfig,
            testPhoneNumbers: settings.phone.testNumbers.isEmpty ? nil : settings.phone.testNumbers, smsRegionConfig: regions,
            passwordPolicyConfig: settings.passwordPolicy.map(PasswordPolicy.config), sessionPolicy: profile.sessionPolicy?.shown)
    }
}
