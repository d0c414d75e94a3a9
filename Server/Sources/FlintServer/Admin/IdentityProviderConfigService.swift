import FlintWire
import Foundation
import Hummingbird

/// Admin CRUD of the built-in identity providers' configuration
/// (`/v2/projects/{p}/defaultSupportedIdpConfigs[/{idpId}]`), the Identity Toolkit v2 shape. Secrets
/// (Facebook's app secret, the OAuth clients' secrets, Apple's .p8 key) are sealed with the master key and never returned.
struct IdentityProviderConfigService: ProviderConfigKind {
    static let collection = "defaultSupportedIdpConfigs"
    static let idParameter = "idpId"

    let projects: ProjectDirectory
    let secrets: SecretBox

    init(core: ServerCore) {
        projects = core.projects
        secrets = core.secrets
    }

    /// The providers Flint verifies tokens of.
    static let supported: Set<String> = [ProviderID.apple, ProviderID.facebook, ProviderID.google, ProviderID.gitHub, ProviderID.microsoft]
    /// Providers that cannot verify anything without a client ID, and what the ID is to them.
    static let requiredClientID = [
        ProviderID.facebook: "the app ID", ProviderID.google: "the OAuth client ID", ProviderID.gitHub: "the OAuth app's client ID",
        ProviderID.microsoft: "the application (client) ID",
    ]

    static func isOfThisKind(_ id: String) -> Bool { supported.contains(id) }

    static func page(_ configs: [DefaultSupportedIdpConfig], nextPageToken: String?) -> DefaultSupportedIdpConfigList {
        DefaultSupportedIdpConfigList(defaultSupportedIdpConfigs: configs, nextPageToken: nextPageToken)
    }

    func save(_ id: String, _ body: DefaultSupportedIdpConfig, mask: UpdateMask?, caller: Caller) async throws
        -> DefaultSupportedIdpConfig {
        // Sealed once, outside the compare-and-swap (which may run the change again).
        let clientSecret = try body.clientSecret.map { try seal($0, id: id, caller: caller) }
        let privateKey = try body.appleSignInConfig?.codeFlowConfig?.privateKey.map { try seal($0, id: id, caller: caller) }
        let project = try await projects.updateSettings(caller.projectID) { settings in
            var provider = settings.identityProviders[id] ?? ProjectSettings.IdentityProvider()
            if mask.covers("enabled", present: body.enabled != nil) { provider.enabled = body.enabled ?? false }
            if mask.covers("clientId", present: body.clientId != nil) { provider.clientID = body.clientId }
            if mask.covers("clientSecret", present: body.clientSecret != nil) { provider.sealedClientSecret = clientSecret }
            if mask.covers("additionalClientIds", present: body.additionalClientIds != nil) {
                provider.additionalClientIDs = body.additionalClientIds.flatMap { $0.isEmpty ? nil : $0 }
            }
            let apple = body.appleSignInConfig
            if mask.covers("appleSignInConfig.bundleIds", present: apple?.bundleIds != nil) { provider.bundleIDs = apple?.bundleIds ?? [] }
            let codeFlow = apple?.codeFlowConfig
            if mask.covers("appleSignInConfig.codeFlowConfig.teamId", present: codeFlow?.teamId != nil) { provider.teamID = codeFlow?.teamId }
            if mask.covers("appleSignInConfig.codeFlowConfig.keyId", present: codeFlow?.keyId != nil) { provider.keyID = codeFlow?.keyId }
            if mask.covers("appleSignInConfig.codeFlowConfig.privateKey", present: codeFlow?.privateKey != nil) {
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
        try Self.seal(secret, with: secrets, projectID: caller.projectID, providerID: id)
    }

    /// A provider's secret sealed with the master key under `secretContext` (every kind of provider uses this).
    static func seal(_ secret: String, with secrets: SecretBox, projectID: String, providerID: String) throws -> String {
        try secrets.seal(Data(secret.utf8), context: secretContext(projectID: projectID, providerID: providerID))
    }

    /// A provider's secret that `seal` sealed.
    static func openSecret(_ sealed: String, with secrets: SecretBox, projectID: String, providerID: String) throws -> String {
        String(decoding: try secrets.open(sealed, context: secretContext(projectID: projectID, providerID: providerID)),
               as: UTF8.self)
    }

    /// The context a provider's secrets are sealed under, so a sealed value cannot move between slots.
    private static func secretContext(projectID: String, providerID: String) -> String {
        "idp-secret:\(projectID):\(providerID)"
    }

    static func config(_ provider: ProjectSettings.IdentityProvider, id: String, projectID: String) -> DefaultSupportedIdpConfig {
        DefaultSupportedIdpConfig(
            name: "projects/\(projectID)/defaultSupportedIdpConfigs/\(id)", enabled: provider.enabled,
            clientId: provider.clientID, clientSecret: provider.sealedClientSecret == nil ? nil : "REDACTED",
            appleSignInConfig: id == ProviderID.apple
                ? .init(bundleIds: provider.bundleIDs,
                        codeFlowConfig: .init(teamId: provider.teamID, keyId: provider.keyID))
                : nil,
            additionalClientIds: provider.additionalClientIDs)
    }

    static func providerID(_ raw: String?) throws -> String {
        guard let raw, supported.contains(raw) else {
            throw FlintError(.invalidProviderID, "Flint supports \(supported.sorted().joined(separator: ", "))")
        }
        return raw
    }
}
