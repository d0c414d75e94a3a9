import FlintWire
import Foundation

/// Admin CRUD of OpenID Connect providers (`/v2/projects/{p}/oauthIdpConfigs[/{oidc.…}]`), as the Admin SDKs'
/// `create_oidc_provider_config`, `get_…`, `list_…`, `update_…` and `delete_…` call it. The client secret (for the
/// code flow) is sealed with the master key and never returned.
struct OIDCProviderConfigService: ProviderConfigKind {
    static let collection = "oauthIdpConfigs"
    static let idParameter = "oauthIdpConfigId"

    let projects: ProjectDirectory
    let secrets: SecretBox

    init(core: ServerCore) {
        projects = core.projects
        secrets = core.secrets
    }

    static func isOfThisKind(_ id: String) -> Bool { id.hasPrefix(ProviderID.oidcPrefix) }

    /// `oidc.` and a name, as Identity Platform takes them.
    static func providerID(_ raw: String?) throws -> String {
        try namedProviderID(raw, prefix: ProviderID.oidcPrefix, problem: "An OpenID Connect provider's id is oidc. and a name.")
    }

    static func config(_ provider: ProjectSettings.IdentityProvider, id: String, projectID: String) -> OAuthIdpConfig {
        OAuthIdpConfig(
            name: "projects/\(projectID)/oauthIdpConfigs/\(id)", clientId: provider.clientID, issuer: provider.issuer,
            displayName: provider.displayName, enabled: provider.enabled,
            clientSecret: provider.sealedClientSecret == nil ? nil : "REDACTED",
            responseType: .init(idToken: !(provider.codeFlow ?? false), code: provider.codeFlow ?? false))
    }

    static func page(_ configs: [OAuthIdpConfig], nextPageToken: String?) -> OAuthIdpConfigList {
        OAuthIdpConfigList(oauthIdpConfigs: configs, nextPageToken: nextPageToken)
    }

    func save(_ id: String, _ body: OAuthIdpConfig, mask: UpdateMask?, caller: Caller) async throws -> OAuthIdpConfig {
        if let issuer = body.issuer, URL(string: issuer)?.host == nil {
            throw FlintError(.invalidArgument, "issuer must be a URL.")
        }
        let clientSecret = try body.clientSecret.map {
            try IdentityProviderConfigService.seal($0, with: secrets, projectID: caller.projectID, providerID: id)
        }
        let project = try await projects.updateSettings(caller.projectID) { settings in
            var provider = settings.identityProviders[id] ?? ProjectSettings.IdentityProvider(enabled: false)
            if mask.covers("enabled", present: body.enabled != nil) { provider.enabled = body.enabled ?? false }
            if mask.covers("clientId", present: body.clientId != nil) { provider.clientID = body.clientId }
            if mask.covers("issuer", present: body.issuer != nil) { provider.issuer = body.issuer }
            if mask.covers("displayName", present: body.displayName != nil) { provider.displayName = body.displayName }
            if mask.covers("clientSecret", present: body.clientSecret != nil) { provider.sealedClientSecret = clientSecret }
            if mask.covers("responseType.code", present: body.responseType?.code != nil) { provider.codeFlow = body.responseType?.code }
            guard provider.clientID?.isEmpty == false, provider.issuer?.isEmpty == false else {
                throw FlintError(.invalidProviderConfig, "\(id) needs clientId and issuer.")
            }
            if provider.codeFlow == true, provider.sealedClientSecret == nil {
                throw FlintError(.invalidProviderConfig, "The code flow needs clientSecret.")
            }
            settings.identityProviders[id] = provider
        }
        return Self.config(project.settings.identityProviders[id] ?? .init(), id: id, projectID: project.id)
    }
}
