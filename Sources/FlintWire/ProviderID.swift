/// Provider ids as they appear on the wire (`providerId`, `firebase.sign_in_provider`, identities).
public enum ProviderID {
    public static let password = "password"
    public static let phone = "phone"
    public static let anonymous = "anonymous"
    /// A WebAuthn passkey (the tokens' `sign_in_provider`).
    public static let passkey = "passkey"
    public static let custom = "custom"
    public static let apple = "apple.com"
    public static let facebook = "facebook.com"
    public static let google = "google.com"
    public static let gitHub = "github.com"
    public static let microsoft = "microsoft.com"
    /// What every OpenID Connect provider's id starts with (`oidc.okta`, `oidc.entra`, …).
    public static let oidcPrefix = "oidc."
    /// What every SAML provider's id starts with (`saml.okta`, `saml.entra`, …).
    public static let samlPrefix = "saml."
    /// The `signinMethods` value for email-link accounts.
    public static let emailLinkSignInMethod = "emailLink"
}
