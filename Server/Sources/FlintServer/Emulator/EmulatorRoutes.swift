import FlintWire
import Hummingbird

/// The Firebase Auth emulator's own endpoints (emulator mode only; they need no credentials, as there).
struct EmulatorRoutes: Sendable {
    let accounts: AccountStore
    let codes: CodeStore
    let projects: ProjectDirectory
    let projectConfig: ProjectConfigService

    init(core: ServerCore, projectConfig: ProjectConfigService) {
        accounts = core.store.accounts
        codes = core.store.codes
        projects = core.projects
        self.projectConfig = projectConfig
    }

    var endpoints: [Endpoint] {
        [
            Endpoint(method: .delete, paths: Self.paths("accounts"),
                     contract: .init(credentials: .none, response: .anyJSONObject)) { _, context in
                let projectID = try Self.projectID(context)
                try await projects.ensureProject(projectID)
                try await accounts.deleteAllAccounts(projectID: projectID)
                return JSONBody.response(data: Data("{}".utf8))
            },
            Endpoint(method: .get, paths: Self.paths("verificationCodes"),
                     contract: .init(credentials: .none, response: .json(VerificationCodesResponse.self))) { _, context in
                let projectID = try Self.projectID(context)
                let codes = try await codes.emulatorVerificationCodes(projectID: projectID).compactMap { record in
                    record.emulatorSessionInfo.flatMap { sessionInfo in
                        record.emulatorCode.map {
                            VerificationCodesResponse.Entry(phoneNumber: record.phoneNumber, sessionInfo: sessionInfo, code: $0)
                        }
                    }
                }
                return try JSONBody.response(VerificationCodesResponse(verificationCodes: codes))
            },
            Endpoint(method: .get, paths: Self.paths("oobCodes"),
                     contract: .init(credentials: .none, response: .json(OobCodesResponse.self))) { _, context in
                let codes = try await codes.emulatorOobCodes(projectID: try Self.projectID(context)).compactMap { record in
                    record.emulatorCode.flatMap { code in
                        record.emulatorLink.map {
                            OobCodesResponse.Entry(email: record.email, requestType: record.requestType, oobCode: code,
                                                   oobLink: $0, newEmail: record.newEmail)
                        }
                    }
                }
                return try JSONBody.response(OobCodesResponse(oobCodes: codes))
            },
            Endpoint(method: .get, paths: ["/emulator/v1/projects/:projectId/config"],
                     contract: .init(credentials: .none, response: .json(EmulatorConfig.self))) { _, context in
                try JSONBody.response(Self.config(try await projects.ensureProject(try Self.projectID(context)).settings))
            },
            Endpoint(method: .patch, paths: ["/emulator/v1/projects/:projectId/config"], contract: .init(
                credentials: .none, request: [.json(EmulatorConfig.self)], response: .json(EmulatorConfig.self))) { request, context in
                let body = try await JSONBody.decode(EmulatorConfig.self, from: request)
                let project = try await projects.ensureProject(try Self.projectID(context))
                return try JSONBody.response(Self.config(try await Self.update(project, with: body, projectConfig: projectConfig).settings))
            },
        ]
    }

    /// Applies the emulator's config PATCH `body`. As in the official emulator, the mask names the settings the body
    /// sets, so a body that sets neither is an empty mask: the full update a v2 PATCH without a mask is.
    static func update(_ project: Project, with body: EmulatorConfig, projectConfig: ProjectConfigService) async throws -> Project {
        let change = ProjectConfig(
            signIn: .init(allowDuplicateEmails: body.signIn?.allowDuplicateEmails),
            emailPrivacyConfig: .init(enableImprovedEmailPrivacy: body.emailPrivacyConfig?.enableImprovedEmailPrivacy))
        return try await projectConfig.update(project, with: change, mask: projectConfig.mask(UpdateMask(paths: change.presentFieldPaths), for: change))
    }

    /// The emulator's config, as `GET` answers it.
    static func config(_ settings: ProjectSettings) -> EmulatorConfig {
        EmulatorConfig(
            signIn: .init(allowDuplicateEmails: settings.signIn.allowDuplicateEmails),
            emailPrivacyConfig: .init(enableImprovedEmailPrivacy: settings.improvedEmailPrivacy))
    }

    /// A project's address and its tenants' (`/emulator/v1/projects/{p}/tenants/{t}/…`).
    private static func paths(_ name: String) -> [String] {
        ["/emulator/v1/projects/:projectId/\(name)", "/emulator/v1/projects/:projectId/tenants/:tenantId/\(name)"]
    }

    /// The store key of the project, or of the tenant, the path names.
    private static func projectID(_ context: FlintRequestContext) throws -> String {
        guard let id = context.parameters.get("projectId"), !id.isEmpty, !id.contains("/") else { throw FlintError.notFound }
        guard let tenantID = context.parameters.get("tenantId") else { return id }
        guard Realm.isValidTenantID(tenantID) else { throw FlintError.notFound }
        return Realm(projectID: id, tenantID: tenantID).key
    }
}

import Foundation
