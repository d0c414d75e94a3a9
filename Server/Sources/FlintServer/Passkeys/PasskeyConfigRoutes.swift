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
                let current = caller.project.settings.passkeys
                guard let rpID = body.rpId ?? current?.rpID else {
                    throw FlintError(.invalidArgument, "rpId is required to set up passkeys.")
                }
                let settings = try PasskeySettings.validated(
                    rpID: rpID, expectedOrigins: body.expectedOrigins ?? current?.expectedOrigins ?? [])
                return Self.config(try await projects.updateSettings(caller.projectID) { $0.passkeys = settings })
            },
        ]
    }

    private static func config(_ project: Project) -> PasskeyConfig {
        PasskeyConfig(
            name: "projects/\(project.id)/passkeyConfig", rpId: project.settings.passkeys?.rpID,
            expectedOrigins: project.settings.passkeys?.expectedOrigins)
    }
}
