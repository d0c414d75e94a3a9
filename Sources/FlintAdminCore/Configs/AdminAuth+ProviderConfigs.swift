import FlintWire
import Foundation

/// An OpenID Connect provider (`oidc.*`), as the v2 API gives it (firebase-admin's `OIDCProviderConfig`).
public typealias OIDCProviderConfig = OAuthIdpConfig
/// A SAML provider (`saml.*`), as the v2 API gives it (firebase-admin's `SAMLProviderConfig`).
public typealias SAMLProviderConfig = InboundSamlConfig

extension AdminAuth {
    /// The provider configs of the project, or of this client's tenant: `oauthIdpConfigs` or `inboundSamlConfigs`.
    private func providersPath(_ collection: String) -> String {
        "/v2" + resource.dropFirst("/v1".count) + "/" + collection
    }

    // MARK: OpenID Connect

    public func oidcProviderConfig(id: String) async throws -> OIDCProviderConfig {
        try await connection.call("GET", providersPath("oauthIdpConfigs") + "/" + FormURLEncoding.escape(id),
                                  as: OIDCProviderConfig.self)
    }

    /// A new provider `id` (`oidc.` and a name).
    public func createOIDCProviderConfig(id: String, _ config: OIDCProviderConfig) async throws -> OIDCProviderConfig {
        try await connection.call("POST", providersPath("oauthIdpConfigs") + "?oauthIdpConfigId=" + FormURLEncoding.escape(id),
                                  body: config, as: OIDCProviderConfig.self)
    }

    public func updateOIDCProviderConfig(id: String, _ change: OIDCProviderConfig,
                                         updateMask: [String]? = nil) async throws -> OIDCProviderConfig {
        try await connection.call("PATCH", providersPath("oauthIdpConfigs") + "/" + FormURLEncoding.escape(id)
            + Self.query(updateMask: updateMask ?? change.setFields), body: change, as: OIDCProviderConfig.self)
    }

    public func deleteOIDCProviderConfig(id: String) async throws {
        _ = try await connection.call("DELETE", providersPath("oauthIdpConfigs") + "/" + FormURLEncoding.escape(id),
                                      as: JSONValue.self)
    }

    public func listOIDCProviderConfigs(pageSize: Int = 100) -> Pages<OIDCProviderConfig> {
        Pages { pageToken in
            let page = try await self.connection.call("GET", self.providersPath("oauthIdpConfigs") + Self.pageQuery(pageSize, pageToken),
                                                      as: OAuthIdpConfigList.self)
            return (page.oauthIdpConfigs, page.nextPageToken)
        }
    }

    // MARK: SAML

    public func samlProviderConfig(id: String) async throws -> SAMLProviderConfig {
        try await connection.call("GET", providersPath("inboundSamlConfigs") + "/" + FormURLEncoding.escape(id),
                                  as: SAMLProviderConfig.self)
    }

    /// A new provider `id` (`saml.` and a name).
    public func createSAMLProviderConfig(id: String, _ config: SAMLProviderConfig) async throws -> SAMLProviderConfig {
        try await connection.call("POST", providersPath("inboundSamlConfigs") + "?inboundSamlConfigId=" + FormURLEncoding.escape(id),
                                  body: config, as: SAMLProviderConfig.self)
    }

    public func updateSAMLProviderConfig(id: String, _ change: SAMLProviderConfig,
                                         updateMask: [String]? = nil) async throws -> SAMLProviderConfig {
        try await connection.call("PATCH", providersPath("inboundSamlConfigs") + "/" + FormURLEncoding.escape(id)
            + Self.query(updateMask: updateMask ?? change.setFields), body: change, as: SAMLProviderConfig.self)
    }

    public func deleteSAMLProviderConfig(id: String) async throws {
        _ = try await connection.call("DELETE", providersPath("inboundSamlConfigs") + "/" + FormURLEncoding.escape(id),
                                      as: JSONValue.self)
    }

    public func listSAMLProviderConfigs(pageSize: Int = 100) -> Pages<SAMLProviderConfig> {
        Pages { pageToken in
            let page = try await self.connection.call("GET", self.providersPath("inboundSamlConfigs") + Self.pageQuery(pageSize, pageToken),
                                                      as: InboundSamlConfigList.self)
            return (page.inboundSamlConfigs, page.nextPageToken)
        }
    }

    /// `?pageSize=n[&pageToken=t]`, at most 100 a page as the v2 API takes them.
    private static func pageQuery(_ pageSize: Int, _ pageToken: String?) -> String {
        "?pageSize=\(max(1, min(pageSize, 100)))" + (pageToken.map { "&pageToken=" + FormURLEncoding.escape($0) } ?? "")
    }
}
