/// Where Flint reaches Sign in with Apple and Facebook, and which issuers it expects in their ID tokens.
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

    public init() {}

    /// Apple's JWKS address.
    var appleJWKSURL: String { appleBaseURL + "/auth/keys" }
}

extension IdentityProviderEndpoints {
    /// Reads `FLINT_APPLE_BASE_URL`, `FLINT_APPLE_ISSUER`, `FLINT_FACEBOOK_GRAPH_URL`,
    /// `FLINT_FACEBOOK_JWKS_URL` and `FLINT_FACEBOOK_ISSUER` (unset or empty keeps the default; an
    /// issuer variable replaces the whole list with its one value).
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
    }
}
