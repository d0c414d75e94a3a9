import FlintWire

/// The relying party of a project or tenant, as firebase-admin's `PasskeyConfigManager` reads and writes it:
/// `GET` and `PATCH v2/projects/{p}/passkeyConfig` (and `…/tenants/{t}/passkeyConfig`). A tenant that has none shows
/// and uses its project's.
struct PasskeyConfigRoutes: Sendable {
    let projects: ProjectDirectory

    var endpoints: [Endpoint] {
        let paths = Endpoint.projectPaths(version: "v2", "passkeyConfig")
        return [
            .get(paths, access: .admin) { _, caller in Self.config(caller.project) },
            // Creating and changing are one operation: the fields present are set (`rpId`, `expectedOrigins`).
            .json(method: .patch, paths, access: .admin, query: ["updateMask", "passkey_config.rp_id"]) { (body: PasskeyConfig, caller) in
                try await save(body, in: caller.project)
            },
        ]
    }

    /// Creates or changes the relying party of `project` (a project or tenant): the fields present in `change`.
    func save(_ change: PasskeyConfig, in project: Project) async throws -> PasskeyConfig {
        let current = project.settings.passkeys
        guard let rpID = change.rpId ?? current?.rpID else { throw FlintError(.invalidArgument, "rpId is required to set up passkeys.") }
        let settings = try PasskeySettings.validated(
            rpID: rpID, expectedOrigins: change.expectedOrigins ?? current?.expectedOrigins ?? [])
        return Self.config(try await projects.updateSettings(project.id) { $0.passkeys = settings })
    }

    private static func config(_ project: Project) -> PasskeyConfig {
        PasskeyConfig(
            name: "projects/\(project.id)/passkeyConfig", rpId: project.settings.passkeys?.rpID,
            expectedOrigins: project.settings.passkeys?.expectedOrigins)
    }
}
