import FlintWire
import Foundation

/// Loads an emulator data folder (`EmulatorDataFolder`) into a project and makes one from it: `flint serve --import`,
/// `--export-on-exit` and `flint export --emulator-format`. Users go through the checks of `accounts:batchCreate` and
/// come out as `accounts:batchGet` shows them; the config goes through the emulator's config PATCH and GET.
///
/// A load is all or nothing, by *validate all, then write*: every file and every entry is read and checked first
/// (`EmulatorDataFolder.read`, then each entry as `batchCreate` checks it) with nothing written; then the users of every
/// file are written in one transaction, which a clash with an account outside the folder (an email, a phone number or
/// a provider account it holds) rolls back whole. Only then are the folder's tenants made (in emulator mode, as the
/// official emulator makes them on first use) and its config applied: writes that can fail only with the database,
/// and that a second load completes.
struct EmulatorDataTransfer: Sendable {
    let projects: ProjectDirectory
    let store: AccountStore
    let accounts: AccountService
    let projectConfig: ProjectConfigService
    let passwords: PasswordRules

    init(core: ServerCore, accounts: AccountService, projectConfig: ProjectConfigService) {
        projects = core.projects
        store = core.store.accounts
        self.accounts = accounts
        self.projectConfig = projectConfig
        passwords = PasswordRules(core: core)
    }

    /// `GET /emulator/v1/projects/{p}/export` (Flint's own, admin only): the folder `export` makes, as JSON, for
    /// `flint export --emulator-format --server`, which writes it where the command runs.
    var endpoints: [Endpoint] {
        [.get(["/emulator/v1/projects/:projectId/export"], access: .admin) { _, caller in try await export(projectID: caller.project.id) }]
    }

    // MARK: Export

    /// The project's users and its tenants' (in local-id order, as `accounts:batchGet` lists them, passwords in their
    /// portable form, see `PasswordRules.portableHash`; TOTP factors left out, as the official emulator has none and
    /// their secrets stay sealed here; passkeys as an admin's `passkeyInfo`, with Flint's key and counter fields, which
    /// loads read back) and its emulator config.
    func export(projectID: String) async throws -> EmulatorDataFolder {
        let project = try await projects.ensureProject(projectID)
        var realms = [project]
        var page = try await projects.tenants(of: projectID, after: nil, limit: AccountService.maximumBatch)
        while let last = page.last {
            realms += page
            page = try await projects.tenants(of: projectID, after: last.realm.tenantID, limit: AccountService.maximumBatch)
        }
        var files: [EmulatorDataFolder.Accounts] = []
        for realm in realms {
            files.append(.init(tenantId: realm.realm.tenantID, users: try await records(of: realm)))
        }
        return EmulatorDataFolder(accounts: files, config: EmulatorRoutes.config(project.settings))
    }

    private func records(of realm: Project) async throws -> [UserRecord] {
        var records: [UserRecord] = []
        var page = try await store.users(projectID: realm.id, afterLocalID: nil, limit: AccountService.maximumBatch)
        while let last = page.last {
            records += try page.map { user in try record(of: user, in: realm) }
            page = try await store.users(projectID: realm.id, afterLocalID: last.localID, limit: AccountService.maximumBatch)
        }
        return records
    }

    /// A user as `batchGet` shows it, with its password hash in the portable form.
    private func record(of user: UserAccount, in realm: Project) throws -> UserRecord {
        var user = user
        user.mfaFactors.removeAll { $0.kind == .totp }
        var record = UserRecord(user, revealPasswordHash: true)
        record.passwordHash = try passwords.portableHash(of: user, project: realm)
        return record
    }

    // MARK: Import

    /// Loads `folder` into the project (see the type's comment for how it is all or nothing). Each user replaces the
    /// account of its `localId`; one the folder holds as stored is left alone, sessions and all, so loading a folder
    /// twice changes nothing.
    func load(_ folder: EmulatorDataFolder, projectID: String) async throws {
        let project = try await projects.ensureProject(projectID)
        var changed: [(file: String, index: Int, user: UserAccount)] = []
        for file in folder.accounts {
            let realm = try await realm(file.tenantId, of: project)
            let fileName = "\(folder.authPath)/\(file.fileName)"
            guard !file.users.isEmpty else { continue }
            var request = BatchCreateRequest(users: file.users)
            request.allowOverwrite = true
            let imported: [Result<UserAccount, FlintError>]
            do {
                imported = try await accounts.importedUsers(request, caller: Caller(project: realm, isAdmin: true))
            } catch let error as FlintError {
                throw EmulatorDataFault.malformed(file: fileName, reason: error.message)
            }
            for (index, (record, result)) in zip(file.users, imported).enumerated() {
                let user: UserAccount
                switch result {
                case .success(let account): user = Self.keepingFolderFields(of: record, in: account)
                case .failure(let error):
                    throw EmulatorDataFault.entry(file: fileName, index: index, localID: record.localId,
                                                  problem: AccountService.importMessage(error))
                }
                let stored = try await store.user(projectID: realm.id, localID: user.localID)
                if let stored, try unchanged(stored, user, in: realm) { continue }
                changed.append((fileName, index, stored.map { Self.keepingWhatFoldersLack(of: $0, in: user) } ?? user))
            }
        }
        do {
            try await store.replaceUsers(changed.map(\.user))
        } catch let conflict as AccountStore.BatchConflict {
            let entry = changed[conflict.index]
            throw EmulatorDataFault.entry(file: entry.file, index: entry.index, localID: entry.user.localID,
                                          problem: "its \(Self.name(conflict.field)) belongs to another account already stored")
        }
        for tenantID in folder.accounts.compactMap(\.tenantId) {
            try await projects.ensureProject(Realm(projectID: projectID, tenantID: tenantID).key)
        }
        if let config = folder.config { _ = try await EmulatorRoutes.update(project, with: config, projectConfig: projectConfig) }
    }

    /// The tenant's project as it is, or for a tenant not made yet a stand-in with its project's password-hash key and
    /// settings, all an entry's checks read (the tenant itself is made once every entry has passed).
    private func realm(_ tenantID: String?, of project: Project) async throws -> Project {
        guard let tenantID else { return project }
        let key = Realm(projectID: project.id, tenantID: tenantID).key
        return try await projects.project(key) ?? Project(id: key, settings: project.settings, signerKey: project.signerKey)
    }

    /// `account` with what a folder keeps that an Admin API import makes up or leaves out: when the password was set,
    /// `validSince`, the last refresh and whether the user signed in by email link.
    private static func keepingFolderFields(of record: UserRecord, in account: UserAccount) -> UserAccount {
        var account = account
        if account.hasPassword, let updatedAt = record.passwordUpdatedAt { account.passwordUpdatedAt = Int64(updatedAt) }
        if let validSince = record.validSince.flatMap({ Int64($0) }) { account.validSince = validSince }
        account.lastRefreshAt = record.lastRefreshAt.flatMap(UserRecord.milliseconds(iso8601:))
        account.emailLinkSignin = record.emailLinkSignin ?? false
        return account
    }

    /// `user` with the TOTP factors and passkeys `stored` has: a folder does not carry them (see `export`; the official
    /// emulator's import drops passkeys), so a load keeps them.
    private static func keepingWhatFoldersLack(of stored: UserAccount, in user: UserAccount) -> UserAccount {
        var user = user
        user.mfaFactors += stored.mfaFactors.filter { $0.kind == .totp }
        user.passkeys = stored.passkeys
        return user
    }

    /// Whether loading `user` would store what is stored already: the same fields (what the account's own use wrote
    /// since, its sign-in and refresh times and session epoch, aside), the same TOTP factors kept, and the same
    /// password, compared in the portable form (an import's key is sealed anew each time; an entry without
    /// `passwordUpdatedAt` is given the load's time).
    private func unchanged(_ stored: UserAccount, _ user: UserAccount, in realm: Project) throws -> Bool {
        var user = Self.keepingWhatFoldersLack(of: stored, in: user)
        user.sessionEpoch = stored.sessionEpoch
        user.lastLoginAt = stored.lastLoginAt
        user.lastRefreshAt = stored.lastRefreshAt
        if try passwords.portableHash(of: user, project: realm) == passwords.portableHash(of: stored, project: realm) {
            user.importedPasswordHash = stored.importedPasswordHash
            user.passwordUpdatedAt = stored.passwordUpdatedAt
        }
        return user == stored
    }

    private static func name(_ field: UniqueField) -> String {
        switch field {
        case .email: "email"
        case .phoneNumber: "phone number"
        case .federatedIdentity: "provider account"
        case .localID: "localId"
        case .passkeyCredential: "passkey"
        }
    }
}
