/// The identity providers Flint verifies, each at the endpoints the configuration names (the real ones by
/// default; local fakes in tests), reached through the outside-call client.
struct ProviderClients: Sendable {
    let apple: AppleSignIn
    let facebook: FacebookSignIn
    /// Google, GitHub, Microsoft and `oidc.…` providers, which have the redirect flow too.
    let codeFlow: CodeFlowProviders
    /// Apple's token and revocation endpoints.
    let appleID: AppleIDClient
    let http: OutsideHTTP

    init(endpoints: IdentityProviderEndpoints, http: OutsideHTTP, clock: any FlintClock) {
        func verifier(keysAt url: String) -> IdentityTokenVerifier {
            IdentityTokenVerifier(keys: JWKSCache(url: url, http: http, clock: clock), clock: clock)
        }
        apple = AppleSignIn(verifier: verifier(keysAt: endpoints.appleJWKSURL), issuers: endpoints.appleIssuers)
        facebook = FacebookSignIn(
            graph: FacebookGraphClient(baseURL: endpoints.facebookGraphURL, http: http),
            limitedLogin: verifier(keysAt: endpoints.facebookJWKSURL), issuers: endpoints.facebookIssuers)
        codeFlow = CodeFlowProviders(
            google: GoogleSignIn(
                verifier: verifier(keysAt: endpoints.googleJWKSURL), issuers: endpoints.googleIssuers,
                oauth: GoogleOAuthClient(
                    tokenInfoURL: endpoints.googleTokenInfoURL, userInfoURL: endpoints.googleUserInfoURL, http: http),
                authorizationURL: endpoints.googleAuthorizationURL, tokenURL: endpoints.googleTokenURL),
            gitHub: GitHubSignIn(webURL: endpoints.gitHubURL, apiURL: endpoints.gitHubAPIURL, http: http),
            microsoft: MicrosoftSignIn(loginURL: endpoints.microsoftLoginURL, issuerTemplate: endpoints.microsoftIssuerTemplate,
                                       verifier: verifier(keysAt: endpoints.microsoftJWKSURL)),
            oidc: OIDCSignIn(http: http, clock: clock))
        appleID = AppleIDClient(baseURL: endpoints.appleBaseURL, http: http, clock: clock)
        self.http = http
    }
}
