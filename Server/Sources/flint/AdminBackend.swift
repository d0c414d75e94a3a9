import ArgumentParser
import FlintServer
import FlintWire
import Foundation

/// Where the admin commands (`users`, `test-numbers`, `projects show|config`) act: on the server's database
/// directly (the default; it works while no server runs), or on a running server through the Admin REST
/// API (`--server`), the way the Admin SDKs call it. Both take the same wire requests, so a command reads
/// the same either way, and the server applies the same checks.
protocol AdminBackend: Sendable {
    /// The project the commands act on. Its tenant's accounts, with `--tenant`, are what the account calls act on; its
    /// settings are the project's (tenants hash passwords with their project's key).
    var projectID: String { get }
    func createUser(_ request: SignUpRequest) async throws -> String
    func lookup(_ request: LookupRequest) async throws -> [UserRecord]
    func list(maxResults: Int, pageToken: String?) async throws -> BatchGetResponse
    func update(_ request: UpdateAccountRequest) async throws
    func deleteUser(_ localID: String) async throws
    func batchCreate(_ request: BatchCreateRequest) async throws -> BatchCreateResponse
    func config(of projectID: String) async throws -> ProjectConfig
    /// A PATCH of the config; without a mask it changes the fields present in `change`.
    func updateConfig(of projectID: String, _ change: ProjectConfig, updateMask: String?) async throws -> ProjectConfig
    func createTenant(_ config: TenantConfig) async throws -> TenantConfig
    /// Every tenant of the project.
    func tenants() async throws -> [TenantConfig]
    func deleteTenant(_ tenantID: String) async throws
    /// The project's users, its tenants' and its emulator config, as an emulator data folder.
    func emulatorData() async throws -> EmulatorDataFolder
    /// The SAML providers of the project, or of its tenant with `--tenant` (see `SAMLProvidersCommand.swift`): a page
    /// after `pageToken`, one, a new one, a change of the fields `updateMask` names, a deletion.
    func samlProviders(pageToken: String?) async throws -> InboundSamlConfigList
    func samlProvider(_ providerID: String) async throws -> InboundSamlConfig
    func createSAMLProvider(_ providerID: String, _ config: InboundSamlConfig) async throws -> InboundSamlConfig
    func updateSAMLProvider(_ providerID: String, _ change: InboundSamlConfig, updateMask: String) async throws -> InboundSamlConfig
    func deleteSAMLProvider(_ providerID: String) async throws
    /// The OpenID provider's clients of the project, or of its tenant with `--tenant` (see `OAuthClientsCommand.swift`).
    func oauthClients(pageToken: String?) async throws -> ListOAuthClientsResponse
    func oauthClient(_ clientID: String) async throws -> OAuthClient
    func createOAuthClient(_ config: OAuthClient) async throws -> OAuthClient
    func updateOAuthClient(_ clientID: String, _ change: OAuthClient, updateMask: String) async throws -> OAuthClient
    func rotateOAuthClientSecret(_ clientID: String) async throws -> OAuthClient
    func deleteOAuthClient(_ clientID: String) async throws
    /// The protected resources of the project's OpenID provider (see `OAuthResourcesCommand.swift`): every one, one, a
    /// new one, a change of the fields `updateMask` names, a deletion.
    func oauthResources() async throws -> [OAuthResource]
    func oauthResource(_ resourceID: String) async throws -> OAuthResource
    func createOAuthResource(_ config: OAuthResource) async throws -> OAuthResource
    func updateOAuthResource(_ resourceID: String, _ change: OAuthResource, updateMask: String) async throws -> OAuthResource
    func deleteOAuthResource(_ resourceID: String) async throws
    /// A user's living sessions, and the end of one (`SESSION_NOT_FOUND` if the user has none of that ID); see
    /// `UserSessionsCommand.swift`.
    func sessions(of localID: String) async throws -> [FlintWire.UserSession]
    func endSession(_ sessionID: String, of localID: String) async throws
    /// A page of the audit trail of the project, or of its tenant with `--tenant`: the first `pageSize` (1 to 1,000)
    /// events `filter` keeps, the newest first, older than the event `pageToken` (a page's `nextPageToken`) names; see
    /// `AuditCommand.swift`.
    func auditEvents(_ filter: AuditFilter, pageSize: Int, pageToken: String?) async throws -> ListAuditEventsResponse
}

extension AdminBackend {
    /// The user `identifier` names (uid, email or +phone); `USER_NOT_FOUND` when there is none.
    func record(matching identifier: String) async throws -> UserRecord {
        guard let user = try await lookup(LookupRequest(identifying: identifier)).first else { throw FlintError(.userNotFound) }
        return user
    }

    /// Every item of a listing the admin API gives in pages: `page` answers a page's items and the next page's token
    /// (an empty page ends it, whatever its token says).
    func allPages<Item>(_ page: (_ pageToken: String?) async throws -> (items: [Item], next: String?)) async throws -> [Item] {
        var all: [Item] = []
        var pageToken: String?
        repeat {
            let (items, next) = try await page(pageToken)
            all += items
            pageToken = items.isEmpty ? nil : next
        } while pageToken != nil
        return all
    }

    /// Up to `limit` users in uid order, read a page at a time.
    func records(limit: Int = .max) async throws -> [UserRecord] {
        var records: [UserRecord] = []
        try await forEachPage(limit: limit) { records += $0 }
        return records
    }

    /// The users of the project (or tenant) in pages of up to 1,000 as `list` gives them, the first `limit`.
    func forEachPage(limit: Int = .max, _ body: ([UserRecord]) throws -> Void) async throws {
        var (pageToken, seen): (String?, Int) = (nil, 0)
        repeat {
            let page = try await list(maxResults: min(limit - seen, AccountService.maximumBatch), pageToken: pageToken)
            try body(page.users ?? [])
            seen += page.users?.count ?? 0
            pageToken = page.nextPageToken
        } while pageToken != nil && seen < limit
    }

    /// The fictional numbers of the project, mapped to their codes.
    func testNumbers() async throws -> [String: String] {
        try await config(of: projectID).signIn?.phoneNumber?.testPhoneNumbers ?? [:]
    }

    /// Replaces the project's fictional numbers through the v2 config, which checks them.
    func setTestNumbers(_ numbers: [String: String]) async throws {
        let change = ProjectConfig(signIn: .init(phoneNumber: .init(testPhoneNumbers: numbers)))
        _ = try await updateConfig(of: projectID, change, updateMask: "signIn.phoneNumber.testPhoneNumbers")
    }

    /// The flags `flint users import` and `firebase auth:import` take for the project's password hashes.
    func passwordHashFlags() async throws -> String {
        guard let hash = try await config(of: projectID).signIn?.hashConfig, let key = hash.signerKey else {
            return "(the server did not say how it hashes passwords)"
        }
        return "--hash-algo=\(hash.algorithm ?? "SCRYPT") --hash-key=\(key) --salt-separator=\(hash.saltSeparator ?? "")"
            + " --rounds=\(hash.rounds ?? 8) --mem-cost=\(hash.memoryCost ?? 14)"
    }
}

/// The database, opened in this process: an `AuthServer` that serves nothing, and an admin caller.
struct LocalBackend: AdminBackend {
    let server: AuthServer
    let projectID: String
    /// An admin of the project, or of the tenant the commands act on.
    let caller: Caller

    func createUser(_ request: SignUpRequest) async throws -> String {
        try await server.accounts.signUp(request, caller: caller).localId
    }

    func lookup(_ request: LookupRequest) async throws -> [UserRecord] {
        try await server.accounts.lookup(request, caller: caller).users ?? []
    }

    func list(maxResults: Int, pageToken: String?) async throws -> BatchGetResponse {
        try await server.accounts.list(maxResults: maxResults, pageToken: pageToken, caller: caller)
    }

    func update(_ request: UpdateAccountRequest) async throws {
        _ = try await server.accounts.update(request, caller: caller)
    }

    func deleteUser(_ localID: String) async throws {
        _ = try await server.accounts.delete(DeleteAccountRequest(localId: localID), caller: caller)
    }

    func batchCreate(_ request: BatchCreateRequest) async throws -> BatchCreateResponse {
        try await server.accounts.batchCreate(request, caller: caller)
    }

    func config(of projectID: String) async throws -> ProjectConfig {
        guard let config = try await server.projectConfig(projectID) else { throw FlintError(.projectNotFound, projectID) }
        return config
    }

    func updateConfig(of projectID: String, _ change: ProjectConfig, updateMask: String?) async throws -> ProjectConfig {
        _ = try await config(of: projectID)
        return try await server.updateProjectConfig(projectID, change, updateMask: updateMask)
    }

    func createTenant(_ config: TenantConfig) async throws -> TenantConfig {
        try await server.createTenant(config, projectID: projectID)
    }

    func tenants() async throws -> [TenantConfig] {
        try await server.tenants(projectID: projectID)
    }

    func deleteTenant(_ tenantID: String) async throws {
        try await server.deleteTenant(tenantID, projectID: projectID)
    }

    func emulatorData() async throws -> EmulatorDataFolder {
        try await server.emulatorData()
    }
}
