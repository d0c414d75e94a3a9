import FlintWire
import Foundation
import Hummingbird

/// Admin CRUD of the built-in identity providers' configuration
/// (`/v2/projects/{p}/defaultSupportedIdpConfigs[/{idpId}]`), the Identity Toolkit v2 shape. Secrets
/// (Facebook's app secret, Apple's .p8 key) are sealed with the master key; the .p8 key is never returned.
struct IdentityProviderConfigService: Sendable {
    let projects: ProjectDirectory
    let secrets: SecretBox

    /// The providers Flint verifies tokens of.
    static let supported: Set<String> = [ProviderID.apple, ProviderID.facebook, ProviderID.google]
    /// Providers that cannot verify anything without a client ID, and what the ID is to them.
    static let requiredClientID = [ProviderID.facebook: "the app ID", ProviderID.google: "the OAuth client ID"]

    func endpoints(callers: CallerResolver) -> [Endpoint] {
        let collection = Endpoint.identityToolkitPaths(version: "v2", "projects/:projectId/defaultSupportedIdpConfigs")
        let item = Endpoint.identityToolkitPaths(version: "v2", "projects/:projectId/defaultSupportedIdpConfigs/:idpId")
        return [
            .get(collection, access: .admin, callers: callers) { _, caller in
                DefaultSupportedIdpConfigList(defaultSupportedIdpConfigs: caller.project.settings.identityProviders
                    .sorted { $0.key < $1.key }.map { Self.config($0.value, id: $0.key, projectID: caller.projectID) })
            },
            Endpoint(method: .post, paths: collection, contract: Self.contract(query: ["idpId"])) { request, context in
                let caller = try await callers.resolve(request, context: context, access: .admin)
                let id = try Self.providerID(request.uri.queryParameters.get("idpId"))
                let body = try await JSONBody.decode(DefaultSupportedIdpConfig.self, from: request)
                if caller.project.settings.identityProviders[id] != nil {
                    throw FlintError(sentence: "DUPLICATE_IDP_CONFIG", status: .conflict, reason: "alreadyExists")
                }
                return try JSONBody.response(try await save(id, body, mask: nil, caller: caller))
            },
            Endpoint(method: .get, paths: item, contract: Self.contract(body: false)) { request, context in
                let caller = try await callers.resolve(request, context: context, access: .admin)
                let id = try Self.providerID(context.parameters.get("idpId"))
                guard let provider = caller.project.settings.identityProviders[id] else {
                    throw FlintError(.configurationNotFound, status: .notFound)
                }
                return try JSONBody.response(Self.config(provider, id: id, projectID: caller.projectID))
            },
            Endpoint(method: .patch, paths: item, contract: Self.contract(query: ["updateMask"])) { request, context in
                let caller = try await callers.resolve(request, context: context, access: .admin)
                let id = try Self.providerID(context.parameters.get("idpId"))
                let body = try await JSONBody.decode(DefaultSupportedIdpConfig.self, from: request)
                guard caller.project.settings.identityProviders[id] != nil else {
                    throw FlintError(.configurationNotFound, status: .notFound)
                }
                let mask = request.uri.queryParameters.get("updateMask").map(UpdateMask.init(_:))
                return try JSONBody.response(try await save(id, body, mask: mask, caller: caller))
            },
            Endpoint(method: .delete, paths: item, contract: EndpointContract(credentials: .admin, response: .anyJSONObject)) { request, context in
                let caller = try await callers.resolve(request, context: context, access: .admin)
                let id = try Self.providerID(context.parameters.get("idpId"))
                guard caller.project.settings.identityProviders[id] != nil else {
                    throw FlintError(.configurationNotFound, status: .notFound)
                }
                try await projects.updateSettings(caller.projectID) { $0.identityProviders[id] = nil }
                return JSONBody.response(data: Data("{}".utf8))
            },
        ]
    }

    /// An admin call that answers with a provider's configuration (and takes one, with `body`).
    private static func contract(query: [String] = [], body: Bool = true) -> EndpointContract {
        EndpointContract(credentials: .admin, query: query, request: body ? [.json(DefaultSupportedIdpConfig.self)] : [],
                         response: .json(DefaultSupportedIdpConfig.self))
    }

    /// Creates or changes a provider: every field present in `body`, or those `mask` names.
    func save(_ id: String, _ body: DefaultSupportedIdpConfig, mask: UpdateMask?, caller: Caller) async throws
        -> DefaultSupportedIdpConfig {
        func changes(_ field: String, present: Bool) -> Bool { mask?.covers(field) ?? present }
        // Sealed once, outside the compare-and-swap (which may run the change again).
        let clientSecret = try body.clientSecret.map { try seal($0, id: id, caller: caller) }
        let privateKey = try body.appleSignInConfig?.codeFlowConfig?.privateKey.map { try seal($0, id: id, caller: caller) }
        let project = try await projects.updateSettings(caller.projectID) { settings in
            var provider = settings.identityProviders[id] ?? ProjectSettings.IdentityProvider()
            if changes("enabled", present: body.enabled != nil) { provider.enabled = body.enabled ?? false }
            if changes("clientId", present: body.clientId != nil) { provider.clientID = body.clientId }
            if changes("clientSecret", present: body.clientSecret != nil) { provider.sealedClientSecret = clientSecret }
            let apple = body.appleSignInConfig
            if changes("appleSignInConfig.bundleIds", present: apple?.bundleIds != nil) { provider.bundleIDs = apple?.bundleIds ?? [] }
            let codeFlow = apple?.codeFlowConfig
            if changes("appleSignInConfig.codeFlowConfig.teamId", present: codeFlow?.teamId != nil) { provider.teamID = codeFlow?.teamId }
            if changes("appleSignInConfig.codeFlowConfig.keyId", present: codeFlow?.keyId != nil) { provider.keyID = codeFlow?.keyId }
            if changes("appleSignInConfig.codeFlowConfig.privateKey", present: codeFlow?.privateKey != nil) {
                provider.sealedPrivateKey = privateKey
            }
            if let meaning = Self.requiredClientID[id], provider.enabled, provider.clientID?.isEmpty ?? true {
                throw FlintError(.invalidProviderConfig, "\(id) needs clientId (\(meaning))")
            }
            settings.identityProviders[id] = provider
        }
        return Self.config(project.settings.identityProviders[id] ?? .init(), id: id, projectID: project.id)
    }

    private func seal(_ secret: String, id: String, caller: Caller) throws -> String {
        try secrets.seal(Data(secret.utf8), context: Self.secretContext(projectID: caller.projectID, providerID: id))
    }

    /// The context a provider's secrets are sealed under, so a sealed value cannot move between slots.
    static func secretContext(projectID: String, providerID: String) -> String {
        "idp-secret:\(projectID):\(providerID)"
    }

    static func config(_ provider: ProjectSettings.IdentityProvider, id: String, projectID: String) -> DefaultSupportedIdpConfig {
        DefaultSupportedIdpConfig(
            name: "projects/\(projectID)/defaultSupportedIdpConfigs/\(id)", enabled: provider.enabled,
            clientId: provider.clientID, clientSecret: provider.sealedClientSecret == nil ? nil : "REDACTED",
            appleSignInConfig: id == ProviderID.apple
                ? .init(bundleIds: provider.bundleIDs,
                        codeFlowConfig: .init(teamId: provider.teamID, keyId: provider.keyID))
                : nil)
    }

    static func providerID(_ raw: String?) throws -> String {
        guard let raw, supported.contains(raw) else {
            throw FlintError(.invalidProviderID, "Flint supports \(supported.sorted().joined(separator: ", "))")
        }
        return raw
    }
}
