import Foundation
import NIOConcurrencyHelpers

/// A project, or one of its tenants, with its settings opened for use (the password-hash signer key unsealed).
public struct Project: Sendable {
    /// The key of its records in the store: the project's ID, or `{project}/tenants/{tenant}` (see `Realm`).
    public let id: String
    /// For a tenant, its own settings over those it inherits from its project (`ProjectSettings.tenantView`).
    public let settings: ProjectSettings
    public let signerKey: Data

    public var realm: Realm { Realm(key: id) }
}

/// Finds projects and API keys, creating projects on first use where the mode allows it.
/// Opened projects are kept in memory with their settings' version. Every read first asks the store
/// whether another node may have written since (`Store.externalChangeToken`, free on SQLite) and then
/// checks that version (one indexed lookup), so a change made on any node holds here from its next request on.
public final class ProjectDirectory: Sendable {
    private let store: SettingsStore
    private let secrets: SecretBox
    private let random: any RandomSource
    private let clock: any FlintClock
    private let policy: ModePolicy
    private let defaultAuthorizedDomains: [String]
    private let cache = NIOLockedValueBox([String: Cached]())
    private let keyCache = NIOLockedValueBox([String: String]())

    /// How often a settings change is tried again after losing a race to another writer.
    static let updateAttempts = 8

    /// An opened project, its settings' version, and the store's external-change token when it was checked.
    private struct Cached {
        var project: Project
        var version: Int64
        var token: Int64?
    }

    public init(settings: SettingsStore, secrets: SecretBox, random: any RandomSource, clock: any FlintClock, policy: ModePolicy,
                defaultAuthorizedDomains: [String]) {
        store = settings
        self.secrets = secrets
        self.random = random
        self.clock = clock
        self.policy = policy
        self.defaultAuthorizedDomains = defaultAuthorizedDomains
    }

    /// The project or tenant (see `Realm.key`), or nil if it does not exist.
    public func project(_ id: String) async throws -> Project? {
        guard Realm(key: id).tenantID != nil else { return try await stored(id) }
        guard let tenant = try await stored(id), let parent = try await stored(Realm(key: id).projectID) else { return nil }
        return Project(id: id, settings: tenant.settings.tenantView(inheriting: parent.settings), signerKey: tenant.signerKey)
    }

    /// A project's or tenant's own stored settings, from the cache while they are current.
    private func stored(_ id: String) async throws -> Project? {
        // Read before the version, so a write after the check moves the token and is seen next time.
        let token = try await store.externalChangeToken()
        if let cached = cache.withLockedValue({ $0[id] }) {
            if let token, cached.token == token { return cached.project }
            guard let version = try await store.projectVersion(projectID: id) else { return nil }
            if version == cached.version {
                cache.withLockedValue { cache in
                    if cache[id]?.version == version { cache[id]?.token = token }
                }
                return cached.project
            }
        }
        return try await load(id)?.project
    }

    /// Reads the project from the store and caches it.
    private func load(_ id: String) async throws -> Cached? {
        let token = try await store.externalChangeToken()
        guard let (json, version) = try await store.projectSettings(projectID: id) else { return nil }
        let settings = try JSONDecoder().decode(ProjectSettings.self, from: Data(json.utf8))
        let signerKey = try secrets.open(settings.passwordHash.sealedSignerKey, context: Self.signerKeyContext(id))
        let loaded = Cached(project: Project(id: id, settings: settings, signerKey: signerKey), version: version, token: token)
        cache.withLockedValue { cache in
            if (cache[id]?.version ?? .min) <= version { cache[id] = loaded }
        }
        return loaded
    }

    /// The project, created with defaults if it does not exist yet; a tenant (in emulator mode, where tenants are made
    /// on first use as the official emulator makes them) with every sign-in method and phone second factors on.
    @discardableResult
    public func ensureProject(_ id: String) async throws -> Project {
        if let project = try await project(id) { return project }
        let realm = Realm(key: id)
        if realm.tenantID != nil {
            try await ensureProject(realm.projectID)
            try await create(id) { settings in
                settings.multiFactor = .init(enabled: true, phone: true)
                settings.tenant?.mfaConfig = .init(state: "ENABLED", enabledProviders: ["PHONE_SMS"])
            }
        } else {
            try await create(id) { _ in }
        }
        guard let project = try await project(id) else { throw FlintError.internalError }
        return project
    }

    /// Creates a tenant of an existing project: Firebase's defaults for a new tenant (no sign-in method on, no second
    /// factors) with `configure` applied. Returns nil if one of that ID exists already.
    public func createTenant(_ realm: Realm, configure: (inout ProjectSettings) async throws -> Void) async throws -> Project? {
        guard realm.tenantID != nil else { throw FlintError.internalError }
        try await ensureProject(realm.projectID)
        let created = try await create(realm.key) { settings in
            settings.signIn.emailPasswordEnabled = false
            settings.signIn.emailLinkEnabled = false
            settings.signIn.anonymousEnabled = false
            try await configure(&settings)
        }
        return created ? try await project(realm.key) : nil
    }

    /// Stores new settings for `id` (a tenant's carry a `TenantProfile`) with a new password-hash key, or for a tenant
    /// its project's; false if it exists already. Another node may create it at the same moment: whichever insert wins,
    /// both read it back.
    @discardableResult
    private func create(_ id: String, configure: (inout ProjectSettings) async throws -> Void) async throws -> Bool {
        let passwordHash: ProjectSettings.PasswordHash
        if Realm(key: id).tenantID != nil {
            guard let project = try await stored(Realm(key: id).projectID) else { throw FlintError(.projectNotFound) }
            passwordHash = project.settings.passwordHash
        } else {
            passwordHash = .init(sealedSignerKey: try secrets.seal(Data(random.bytes(64)), context: Self.signerKeyContext(id)),
                                 saltSeparator: Data([0x07]).base64EncodedString(), rounds: 8, memoryCost: 14)
        }
        var settings = ProjectSettings(
            authorizedDomains: defaultAuthorizedDomains, improvedEmailPrivacy: policy.newProjectsProtectEmails,
            passwordHash: passwordHash)
        if policy.newProjectsEnableMultiFactor { settings.multiFactor = .init(enabled: true, phone: true) }
        if Realm(key: id).tenantID != nil { settings.tenant = TenantProfile() }
        try await configure(&settings)
        let json = String(decoding: try JSONEncoder().encode(settings), as: UTF8.self)
        return try await store.createProject(projectID: id, settings: json, createdAt: clock.milliseconds)
    }

    /// What a password-hash key is sealed for: its project (tenants hash with their project's key, see `tenantView`).
    private static func signerKeyContext(_ id: String) -> String { "password-signer-key:\(Realm(key: id).projectID)" }

    /// The project's tenants in the order of their IDs, from after `afterTenantID`, at most `limit`.
    public func tenants(of projectID: String, after afterTenantID: String?, limit: Int) async throws -> [Project] {
        var tenants: [Project] = []
        for key in try await store.tenantKeys(projectID: projectID, after: afterTenantID.map { Realm(projectID: projectID, tenantID: $0).key },
                                              limit: limit) {
            if let tenant = try await project(key) { tenants.append(tenant) }
        }
        return tenants
    }

    /// Deletes a tenant with everything stored under its key (users, identities, sessions, codes). False if there was none.
    public func deleteTenant(_ realm: Realm) async throws -> Bool {
        guard realm.tenantID != nil else { throw FlintError.internalError }
        let deleted = try await store.deleteRealm(key: realm.key)
        cache.withLockedValue { $0[realm.key] = nil }
        return deleted
    }

    /// Applies `change` to the project's settings as stored now and stores them, compare-and-swap on their
    /// version: when another writer (on any node) changed them in between, `change` runs again on theirs, so
    /// two changes of different fields both survive.
    @discardableResult
    public func updateSettings(_ id: String, _ change: (inout ProjectSettings) async throws -> Void) async throws -> Project {
        // A tenant is made by `createTenant` (or, in emulator mode, on first use by the caller's resolution).
        if Realm(key: id).tenantID == nil { try await ensureProject(id) }
        for _ in 0..<Self.updateAttempts {
            guard let current = try await load(id) else { throw FlintError(.tenantNotFound) }
            var settings = current.project.settings
            try await change(&settings)
            let json = String(decoding: try JSONEncoder().encode(settings), as: UTF8.self)
            guard let version = try await store.updateProjectSettings(projectID: id, settings: json, ifVersion: current.version)
            else { continue }
            let project = Project(id: id, settings: settings, signerKey: current.project.signerKey)
            cache.withLockedValue { cache in
                // Our own commit leaves the token where `load` read it.
                if (cache[id]?.version ?? .min) < version { cache[id] = Cached(project: project, version: version, token: current.token) }
            }
            return Realm(key: id).tenantID == nil ? project : try await self.project(id) ?? project
        }
        throw StoreError.contended
    }

    /// The project an API key belongs to. Keys never move between projects, so answers are cached.
    public func projectID(forAPIKey key: String) async throws -> String? {
        if let id = keyCache.withLockedValue({ $0[key] }) { return id }
        guard let id = try await store.projectID(forAPIKey: key) else { return nil }
        keyCache.withLockedValue { $0[key] = id }
        return id
    }

    /// Creates a new API key for the project.
    public func createAPIKey(projectID: String) async throws -> String {
        // The shape of Google API keys: "AIza" and 35 more characters.
        let key = "AIza" + random.string(
            length: 35, alphabet: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        try await store.insertAPIKey(key, projectID: projectID, createdAt: clock.milliseconds)
        return key
    }

    /// The project's first API key, created if it has none.
    public func firstAPIKey(projectID: String) async throws -> String {
        if let key = try await store.apiKeys(projectID: projectID).first { return key }
        return try await createAPIKey(projectID: projectID)
    }
}
