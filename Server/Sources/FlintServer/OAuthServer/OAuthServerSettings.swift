import FlintWire
import Foundation

/// A realm's OpenID provider as configured (the v2 config's `oauthServer`): where users sign in, how the page looks,
/// and which custom claims each scope releases.
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

    public init(signInPageURL: String? = nil, brandName: String? = nil, logoURL: String? = nil, accentColor: String? = nil,
                customClaimScopes: [String: [String]] = [:]) {
        self.signInPageURL = signInPageURL
        self.brandName = brandName
        self.logoURL = logoURL
        self.accentColor = accentColor
        self.customClaimScopes = customClaimScopes
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        signInPageURL = try container.decodeIfPresent(String.self, forKey: .signInPageURL)
        brandName = try container.decodeIfPresent(String.self, forKey: .brandName)
        logoURL = try container.decodeIfPresent(String.self, forKey: .logoURL)
        accentColor = try container.decodeIfPresent(String.self, forKey: .accentColor)
        customClaimScopes = try container.decodeIfPresent([String: [String]].self, forKey: .customClaimScopes) ?? [:]
    }
}
