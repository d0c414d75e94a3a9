/// Where Flint reaches Sign in with Apple, Facebook, Google, GitHub and Microsoft, and which issuers it expects in their
/// ID tokens.
/// The defaults are the providers' own; tests (and proxies) point the URLs elsewhere. The issuers stay
/// the real ones unless set explicitly, so pointing a URL at a proxy does not loosen token checks.
public struct IdentityProviderEndpoints: Sendable, Equatable {
    /// Apple's base URL: Flint uses `/auth/keys` (JWKS), `/auth/token` and `/auth/revoke` under it.
    public var appleBaseURL = "https://appleid.apple.com"
    /// Apple has issued `https://appleid.apple.com` and has begun issuing `https://account.apple.com`.
    public var appleIssuers = ["https://appleid.apple.com", "https://account.apple.com"]
    /// The Graph API's base URL (`/debug_token`, `/me`).
    public var facebookGraphURL = "https://graph.facebook.com"
    /// The JWKS of Facebook Limited Login's ID tokens.
    public var facebookJWKSURL = "https://limited.facebook.com/.well-known/oauth/openid/jwks/"
    /// Limited Login's issuer (its OpenID configuration names `https://www.facebook.com`; the
    /// `limited.facebook.com` host is accepted as well).
    public var facebookIssuers = ["https://www.facebook.com", "https://limited.facebook.com"]
    /// The JWKS of Google's ID tokens.
    public var googleJWKSURL = "https://www.googleapis.com/oauth2/v3/certs"
    /// Google issues ID tokens under both spellings.
    public var googleIssuers = ["https://accounts.google.com", "accounts.google.com"]
    /// Google's token-info endpoint, for access tokens.
    public var googleTokenInfoURL = "https://oauth2.googleapis.com/tokeninfo"
    /// Google's OpenID user-info endpoint, for access tokens.
    public var googleUserInfoURL = "https://openidconnect.googleapis.com/v1/userinfo"
    /// Google's sign-in page, where the redirect flow sends the browser.
    public var googleAuthorizationURL = "https://accounts.google.com/o/oauth2/v2/auth"
    /// Google's token endpoint, where the redirect flow exchanges its code.
    public var googleTokenURL = "https://oauth2.googleapis.com/token"
    /// GitHub's web base URL: `/login/oauth/authorize` and `/login/oauth/access_token` under it.
    public var gitHubURL = "https://github.com"
    /// GitHub's REST API (`/user`, `/user/emails`, `/applications/{client_id}/token`).
    public var gitHubAPIURL = "https://api.github.com"
    /// The Microsoft identity platform: `/{tenant}/oauth2/v2.0/authorize|token` and `/common/discovery/v2.0/keys`.
    public var microsoftLoginURL = "https://login.microsoftonline.com"
    /// Microsoft's issuer, with `{tenantid}` standing for the tenant the token names in `tid`.
    public var microsoftIssuerTemplate = "https://login.microsoftonline.com/{tenantid}/v2.0"

    public init() {}

    /// Apple's JWKS address.
    var appleJWKSURL: String { appleBaseURL + "/auth/keys" }
    /// The keys of every Microsoft tenant's ID tokens.
    var microsoftJWKSURL: String { microsoftLoginURL + "/common/discovery/v2.0/keys" }
}

extension IdentityProviderEndpoints {
    /// Reads `FLINT_APPLE_BASE_URL`, `FLINT_APPLE_ISSUER`, `FLINT_FACEBOOK_GRAPH_URL`, `FLINT_FACEBOOK_JWKS_URL`,
    /// `FLINT_FACEBOOK_ISSUER`, `FLINT_GOOGLE_JWKS_URL`, `FLINT_GOOGLE_TOKENINFO_URL`, `FLINT_GOOGLE_USERINFO_URL`,
    /// `FLINT_GOOGLE_AUTHORIZATION_URL`, `FLINT_GOOGLE_TOKEN_URL`, `FLINT_GOOGLE_ISSUER`, `FLINT_GITHUB_URL`,
    /// `FLINT_GITHUB_API_URL`, `FLINT_MICROSOFT_LOGIN_URL` and `FLINT_MICROSOFT_ISSUER` (unset or empty keeps the
    /// default; an issuer variable replaces the whole list with its one value; Microsoft's must contain `{tenantid}`).
    public init(environment: [String: String]) throws {
        let variables = EnvironmentReader(environment)
        self.init()
        appleBaseURL = try variables.url("FLINT_APPLE_BASE_URL", because: "Apple", default: appleBaseURL)
        while appleBaseURL.hasSuffix("/") { appleBaseURL.removeLast() }
        facebookGraphURL = try variables.url("FLINT_FACEBOOK_GRAPH_URL", because: "Facebook", default: facebookGraphURL)
        while facebookGraphURL.hasSuffix("/") { facebookGraphURL.removeLast() }
        facebookJWKSURL = try variables.url("FLINT_FACEBOOK_JWKS_URL", because: "Facebook", default: facebookJWKSURL)
        if let issuer = variables["FLINT_APPLE_ISSUER"] { appleIssuers = [issuer] }
        if let issuer = variables["FLINT_FACEBOOK_ISSUER"] { facebookIssuers = [issuer] }
        googleJWKSURL = try variables.url("FLINT_GOOGLE_JWKS_URL", because: "Google", default: googleJWKSURL)
        googleTokenInfoURL = try variables.url("FLINT_GOOGLE_TOKENINFO_URL", because: "Google", default: googleTokenInfoURL)
        googleUserInfoURL = try variables.url("FLINT_GOOGLE_USERINFO_URL", because: "Google", default: googleUserInfoURL)
        googleAuthorizationURL = try variables.url("FLINT_GOOGLE_AUTHORIZATION_URL", because: "Google", default: googleAuthorizationURL)
        googleTokenURL = try variables.url("FLINT_GOOGLE_TOKEN_URL", because: "Google", default: googleTokenURL)
        if let issuer = variables["FLINT_GOOGLE_ISSUER"] { googleIssuers = [issuer] }
        gitHubURL = try variables.url("FLINT_GITHUB_URL", because: "GitHub", default: gitHubURL)
        while gitHubURL.hasSuffix("/") { gitHubURL.removeLast() }
        gitHubAPIURL = try variables.url("FLINT_GITHUB_API_URL", because: "GitHub", default: gitHubAPIURL)
        while gitHubAPIURL.hasSuffix("/") { gitHubAPIURL.removeLast() }
        microsoftLoginURL = try variables.url("FLINT_MICROSOFT_LOGIN_URL", because: "Microsoft", default: microsoftLoginURL)
        while microsoftLoginURL.hasSuffix("/") { microsoftLoginURL.removeLast() }
        if let template = variables["FLINT_MICROSOFT_ISSUER"] {
            guard template.contains("{tenantid}") else {
                throw DeliveryConfigurationError.invalid(setting: "FLINT_MICROSOFT_ISSUER", reason: "it must contain {tenantid}")
            }
            microsoftIssuerTemplate = template
        }
    }
}
