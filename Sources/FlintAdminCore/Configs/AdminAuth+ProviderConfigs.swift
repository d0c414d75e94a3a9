import FlintWire
import Foundation

/// An OpenID Connect provider (`oidc.*`), as the v2 API gives it (firebase-admin's `OIDCProviderConfig`).
public typealias OIDCProviderConfig = OAuthIdpConfig
/// A SAML provider (`saml.*`), as the v2 API gives it (firebase-admin's `SAMLProviderConfig`).
public typealias SAMLProviderConfig = InboundSamlConfig

extension AdminAuth {
    static let oidcProviders = ProviderConfigs<OIDCProviderConfig>(collection: "oauthIdpConfigs", idParameter: "oauthIdpConfigId",
                                                                   idPrefix: "oidc.")
    static let samlProviders = ProviderConfigs<SAMLProviderConfig>(collection: "inboundSamlConfigs",
                                                                   idParameter: "inboundSamlConfigId", idPrefix: "saml.")

    // MARK: OpenID Connect

    public func oidcProviderConfig(id: String) async throws -> OIDCProviderConfig {
        try await Self.oidcProviders.get(id, on: self)
    }

    /// A new provider `id` (`oidc.` and a name).
    public func createOIDCProviderConfig(id: String, _ config: OIDCProviderConfig) async throws -> OIDCProviderConfig {
        try await Self.oidcProviders.create(id, config, on: self)
    }

    public func updateOIDCProviderConfig(id: String, _ change: OIDCProviderConfig,
                                         updateMask: [String]? = nil) async throws -> OIDCProviderConfig {
        try await Self.oidcProviders.update(id, change, updateMask: updateMask, on: self)
    }

    public func deleteOIDCProviderConfig(id: String) async throws {
        try await Self.oidcProviders.delete(id, on: self)
    }

    public func listOIDCProviderConfigs(pageSize: Int = 100) -> Pages<OIDCProviderConfig> {
        Self.oidcProviders.list(pageSize: pageSize, on: self, as: OAuthIdpConfigList.self) { ($0.oauthIdpConfigs, $0.nextPageToken) }
    }

    // MARK: SAML

    public func samlProviderConfig(id: String) async throws -> SAMLProviderConfig {
        try await Self.samlProviders.get(id, on: self)
    }

    /// A new provider `id` (`saml.` and a name).
    public func createSAMLProviderConfig(id: String, _ config: SAMLProviderConfig) async throws -> SAMLProviderConfig {
        try await Self.samlProviders.create(id, config, on: self)
    }

    public func updateSAMLProviderConfig(id: String, _ change: SAMLProviderConfig,
                                         updateMask: [String]? = nil) async throws -> SAMLProviderConfig {
        try await Self.samlProviders.update(id, change, updateMask: updateMask, on: self)
    }

    public func deleteSAMLProviderConfig(id: String) async throws {
        try await Self.samlProviders.delete(id, on: self)
    }

    public func listSAMLProviderConfigs(pageSize: Int = 100) -> Pages<SAMLProviderConfig> {
        Self.samlProviders.list(pageSize: pageSize, on: self, as: InboundSamlConfigList.self) { ($0.inboundSamlConfigs, $0.nextPageToken) }
    }
}

/// One collection of provider configs of the v2 API (`oauthIdpConfigs`, `inboundSamlConfigs`) of the project or of
/// the client's tenant, and its five calls; the public methods above name the collection and the types. An ID
/// without the collection's prefix is `invalidProviderID` (an empty one `missingProviderID` when creating), and a page
/// of 1 to 100 configs is all the API gives (`invalidArgument` past that), as firebase-admin checks them.
struct ProviderConfigs<Config: Codable & Sendable>: Sendable {
    /// The collection's path segment, and the query parameter that names a new config.
    let collection: String
    let idParameter: String
    /// What every ID of the collection starts with.
    let idPrefix: String

    /// `/v2/projects/{p}[/tenants/{t}]/{collection}`.
    private func path(on auth: AdminAuth) -> String { "/v2/" + auth.resourceName + "/" + collection }

    private func path(_ id: String, on auth: AdminAuth) throws -> String {
        try Check.providerConfigID(id, prefix: idPrefix)
        return path(on: auth) + "/" + FormURLEncoding.escape(id)
    }

    func get(_ id: String, on auth: AdminAuth) async throws -> Config {
        try await auth.connection.call("GET", try path(id, on: auth), as: Config.self)
    }

    func create(_ id: String, _ config: Config, on auth: AdminAuth) async throws -> Config {
        try Check.providerConfigID(id, prefix: idPrefix, emptyIsMissing: true)
        return try await auth.connection.call("POST", path(on: auth) + "?\(idParameter)=" + FormURLEncoding.escape(id), body: config,
                                       as: Config.self)
    }

    func update(_ id: String, _ change: Config, updateMask: [String]?, on auth: AdminAuth) async throws -> Config {
        try await auth.connection.call("PATCH", try path(id, on: auth) + AdminAuth.query(updateMask: updateMask ?? change.setFields),
                                       body: change, as: Config.self)
    }

    func delete(_ id: String, on auth: AdminAuth) async throws {
        _ = try await auth.connection.call("DELETE", try path(id, on: auth), as: JSONValue.self)
    }

    /// Pages of `pageSize` (1 to 100, as the v2 API gives them); `page` takes a list answer apart.
    func list<List: Decodable & Sendable>(pageSize: Int, on auth: AdminAuth, as list: List.Type,
                                          page: @escaping @Sendable (List) -> ([Config], String?)) -> Pages<Config> {
        Pages { pageToken in
            try Check.pageSize(pageSize, atMost: Check.maximumProviderConfigPage)
            let query = AdminAuth.pageQuery(pageSize: pageSize, pageToken: pageToken)
            return page(try await auth.connection.call("GET", path(on: auth) + query, as: List.self))
        }
    }
}
