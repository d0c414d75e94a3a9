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
    /// RFC 7591: clients registering themselves at `<issuer>/register` (nil: off).
    public var dynamicRegistration: DynamicRegistration?
    /// Clients named by the https URL of their Client ID Metadata Document, fetched from there (off by default).
    public var clientMetadataDocuments = false

    /// Dynamic registration's policy.
    public struct DynamicRegistration: Codable, Sendable, Equatable {
        /// The kinds of redirect URIs a registration may name.
        public enum RedirectKind: String, Codable, Sendable, CaseIterable {
            case loopback = "LOOPBACK"
            case https = "HTTPS"
            case privateUseScheme = "PRIVATE_USE_SCHEME"
        }

        public var redirectKinds: [RedirectKind]
        /// How long a registered client may go without a token before it is deleted.
        public var unusedLifetimeSeconds: Int64

        public init(redirectKinds: [RedirectKind] = [.loopback, .https], unusedLifetimeSeconds: Int64 = 30 * 86_400) {
            self.redirectKinds = redirectKinds
            self.unusedLifetimeSeconds = unusedLifetimeSeconds
        }
    }

    public init(signInPageURL: String? = nil, brandName: String? = nil, logoURL: String? = nil, accentColor: String? = nil,
                customClaimScopes: [String: [String]] = [:], pageText: [String: [String: String]] = [:],
                dynamicRegistration: DynamicRegistration? = nil, clientMetadataDocuments: Bool = false) {
        self.signInPageURL = signInPageURL
        self.brandName = brandName
        self.logoURL = logoURL
        self.accentColor = accentColor
        self.customClaimScopes = customClaimScopes
        self.pageText = pageText
        self.dynamicRegistration = dynamicRegistration
        self.clientMetadataDocuments = clientMetadataDocuments
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        signInPageURL = try container.decodeIfPresent(String.self, forKey: .signInPageURL)
        brandName = try container.decodeIfPresent(String.self, forKey: .brandName)
        logoURL = try container.decodeIfPresent(String.self, forKey: .logoURL)
        accentColor = try container.decodeIfPresent(String.self, forKey: .accentColor)
        customClaimScopes = try container.decodeIfPresent([String: [String]].self, forKey: .customClaimScopes) ?? [:]
        pageText = try container.decodeIfPresent([String: [String: String]].self, forKey: .pageText) ?? [:]
        dynamicRegistration = try container.decodeIfPresent(DynamicRegistration.self, forKey: .dynamicRegistration)
        clientMetadataDocuments = try container.decodeIfPresent(Bool.self, forKey: .clientMetadataDocuments) ?? false
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
        var dynamicRegistration: DynamicRegistration?
        if let registration = config.dynamicClientRegistration, registration.enabled == true {
            var kinds: [DynamicRegistration.RedirectKind] = []
            for name in registration.allowedRedirectUris ?? ["LOOPBACK", "HTTPS"] {
                guard let kind = DynamicRegistration.RedirectKind(rawValue: name) else {
                    throw FlintError(.invalidArgument,
                                     "oauthServer.dynamicClientRegistration.allowedRedirectUris: \(name) is not LOOPBACK, HTTPS or PRIVATE_USE_SCHEME.")
                }
                if !kinds.contains(kind) { kinds.append(kind) }
            }
            let days = registration.unusedClientLifetimeDays ?? 30
            guard !kinds.isEmpty, (1...365).contains(days) else {
                throw FlintError(.invalidArgument,
                                 "oauthServer.dynamicClientRegistration needs a redirect URI kind, and 1 to 365 days for unused clients.")
            }
            dynamicRegistration = DynamicRegistration(redirectKinds: kinds, unusedLifetimeSeconds: Int64(days) * 86_400)
        }
        let brand = config.brandName.flatMap { $0.isEmpty ? nil : String($0.prefix(100)) }
        return OAuthServerSettings(signInPageURL: try url(config.signInPageUrl, "signInPageUrl"), brandName: brand,
                                   logoURL: try url(config.logoUrl, "logoUrl"), accentColor: color, customClaimScopes: claims,
                                   pageText: pageText, dynamicRegistration: dynamicRegistration,
                                   clientMetadataDocuments: config.clientIdMetadataDocuments?.enabled == true)
    }

    /// As the v2 config shows them.
    var shown: ProjectConfig.OAuthServer {
        ProjectConfig.OAuthServer(signInPageUrl: signInPageURL, brandName: brandName, logoUrl: logoURL, accentColor: accentColor,
                                  customClaimScopes: customClaimScopes, pageText: pageText.isEmpty ? nil : pageText,
                                  dynamicClientRegistration: dynamicRegistration.map {
                                      .init(enabled: true, allowedRedirectUris: $0.redirectKinds.map(\.rawValue),
                                            unusedClientLifetimeDays: Int($0.unusedLifetimeSeconds / 86_400))
                                  },
                                  clientIdMetadataDocuments: clientMetadataDocuments ? .init(enabled: true) : nil)
    }
}
