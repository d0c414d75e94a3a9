import FlintWire
import Foundation

/// A project's OpenID provider as configured (the v2 config's `oauthServer`): where users sign in, how the page looks,
/// and which custom claims each scope releases. Its tenants' providers use the same settings (see `tenantView`).
public struct OAuthServerSettings: Codable, Sendable, Equatable {
    /// The team's own sign-in page: the authorization endpoint sends the browser there with `?authorization_id=…`, and
    /// the page approves or denies through `v2/oauth/authorizations:approve|deny`. Nil: Flint's own page.
    public var signInPageURL: String?
    /// Shown at the top of Flint's sign-in and consent pages (default: the project's ID).
    public var brandName: String?
    /// An https image shown beside the name.
    public var logoURL: String?
    /// A CSS colour (`#1a73e8`) for the pages' buttons and links.
    public var accentColor: String?
    /// Custom claims (`setCustomUserClaims`) that each scope releases into ID tokens and userinfo.
    public var customClaimScopes: [String: [String]] = [:]
    /// The project's words for the pages, by language and field (see `ProviderPageText.overridden(by:)`).
    public var pageText: [String: [String: String]] = [:]

    public init(signInPageURL: String? = nil, brandName: String? = nil, logoURL: String? = nil, accentColor: String? = nil,
                customClaimScopes: [String: [String]] = [:], pageText: [String: [String: String]] = [:]) {
        self.signInPageURL = signInPageURL
        self.brandName = brandName
        self.logoURL = logoURL
        self.accentColor = accentColor
        self.customClaimScopes = customClaimScopes
        self.pageText = pageText
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        signInPageURL = try container.decodeIfPresent(String.self, forKey: .signInPageURL)
        brandName = try container.decodeIfPresent(String.self, forKey: .brandName)
        logoURL = try container.decodeIfPresent(String.self, forKey: .logoURL)
        accentColor = try container.decodeIfPresent(String.self, forKey: .accentColor)
        customClaimScopes = try container.decodeIfPresent([String: [String]].self, forKey: .customClaimScopes) ?? [:]
        pageText = try container.decodeIfPresent([String: [String: String]].self, forKey: .pageText) ?? [:]
    }
}

extension OAuthServerSettings {
    /// The settings an admin sends (`oauthServer` of the v2 config), checked; nil clears them.
    static func validated(_ config: ProjectConfig.OAuthServer?) throws -> OAuthServerSettings? {
        guard let config else { return nil }
        func url(_ value: String?, _ field: String) throws -> String? {
            guard let value, !value.isEmpty else { return nil }
            do { try RedirectURI.checkWebURL(value, field: field) } catch { throw FlintError(.invalidArgument, "oauthServer.\(field) must be an https URL.") }
            return value
        }
        let color = config.accentColor.flatMap { $0.isEmpty ? nil : $0 }
        if let color, ProviderPages.Brand.checkedColor(color) == nil {
            throw FlintError(.invalidArgument, "oauthServer.accentColor must be #rgb or #rrggbb.")
        }
        let claims = config.customClaimScopes ?? [:]
        for (scope, names) in claims {
            guard Scopes.isScopeToken(scope), !OAuthClientRegistry.defaultScopes.contains(scope) || scope == "profile",
                  names.allSatisfy({ !$0.isEmpty && !OAuthTokens.registeredClaims.contains($0) })
            else {
                throw FlintError(.invalidArgument, "oauthServer.customClaimScopes: \(scope) must be a scope, and its claims not registered ones.")
            }
        }
        let pageText = config.pageText ?? [:]
        for (language, texts) in pageText {
            guard ProviderPageText.isLanguage(language) else {
                throw FlintError(.invalidArgument, "oauthServer.pageText: \(language) must be a language code (en, fr, de…).")
            }
            if let problem = ProviderPageText.problem(with: texts) {
                throw FlintError(.invalidArgument, "oauthServer.pageText.\(language): \(problem)")
            }
        }
        let brand = config.brandName.flatMap { $0.isEmpty ? nil : String($0.prefix(100)) }
        return OAuthServerSettings(signInPageURL: try url(config.signInPageUrl, "signInPageUrl"), brandName: brand,
                                   logoURL: try url(config.logoUrl, "logoUrl"), accentColor: color, customClaimScopes: claims,
                                   pageText: pageText)
    }

    /// As the v2 config shows them.
    var shown: ProjectConfig.OAuthServer {
        ProjectConfig.OAuthServer(signInPageUrl: signInPageURL, brandName: brandName, logoUrl: logoURL, accentColor: accentColor,
                                  customClaimScopes: customClaimScopes, pageText: pageText.isEmpty ? nil : pageText)
    }
}
