import FlintWire
import Foundation

/// The provider's endpoints, each under its issuer (`<issuer>/token`), and the hosted pages it sends browsers to.
enum ProviderEndpoints {
    static let authorize = "/authorize"
    static let token = "/token"
    static let userinfo = "/userinfo"
    /// RFC 8628: where a device asks for a code, and the page where its user types the code.
    static let deviceAuthorization = "/device_authorization"
    static let device = "/device"
    /// RFC 7591: where clients register themselves, where the project allows it.
    static let register = "/register"
    static let revoke = "/revoke"
    static let introspect = "/introspect"
    static let logout = "/logout"

    /// The router paths of an endpoint under every issuer: a project's and a tenant's.
    static func paths(_ endpoint: String) -> [String] {
        ["/:projectId\(endpoint)", "/:projectId/tenants/:tenantId\(endpoint)"]
    }

    /// Flint's own sign-in and consent pages (not under `/__/auth/`, which the project's apps claim as universal links).
    static let signInPage = "/__/oauth/signin"
    static let sessionEndpoint = "/__/oauth/session"
    static let consentPage = "/__/oauth/consent"
    /// A proof-of-work challenge for the sign-in page, before it asks for an SMS.
    static let challengeEndpoint = "/__/oauth/challenge"
}

/// The provider's metadata: OpenID Connect Discovery's document and RFC 8414's, which are the same JSON.
enum ProviderMetadata {
    /// The metadata of `realm`'s provider, `issuer` its issuer.
    static func document(issuer: String, jwksURI: String, scopes: [String], registration: Bool,
                         metadataDocuments: Bool) -> [String: JSONValue] {
        func strings(_ values: [String]) -> JSONValue { .array(values.map(JSONValue.string)) }
        let clientAuthentication = ["client_secret_basic", "client_secret_post", "private_key_jwt", "none"]
        var document: [String: JSONValue] = [
            "issuer": .string(issuer),
            "authorization_endpoint": .string(issuer + ProviderEndpoints.authorize),
            "token_endpoint": .string(issuer + ProviderEndpoints.token),
            "userinfo_endpoint": .string(issuer + ProviderEndpoints.userinfo),
            "revocation_endpoint": .string(issuer + ProviderEndpoints.revoke),
            "introspection_endpoint": .string(issuer + ProviderEndpoints.introspect),
            "end_session_endpoint": .string(issuer + ProviderEndpoints.logout),
            "device_authorization_endpoint": .string(issuer + ProviderEndpoints.deviceAuthorization),
            "jwks_uri": .string(jwksURI),
            "scopes_supported": strings(scopes),
            "response_types_supported": strings(["code"]),
            "response_modes_supported": strings(["query"]),
            "grant_types_supported": strings(OAuthClientRegistry.supportedGrantTypes),
            "code_challenge_methods_supported": strings(["S256"]),
            "token_endpoint_auth_methods_supported": strings(clientAuthentication),
            "revocation_endpoint_auth_methods_supported": strings(clientAuthentication),
            "introspection_endpoint_auth_methods_supported": strings(clientAuthentication.filter { $0 != "none" }),
            "token_endpoint_auth_signing_alg_values_supported": strings(["RS256", "ES256"]),
            "subject_types_supported": strings(["public"]),
            "id_token_signing_alg_values_supported": strings(["RS256"]),
            "userinfo_signing_alg_values_supported": strings([]),
            "claims_supported": strings([
                "sub", "iss", "aud", "exp", "iat", "auth_time", "nonce", "acr", "amr", "azp", "at_hash", "sid", "email",
                "email_verified", "phone_number", "phone_number_verified", "name", "picture", "tenant",
            ]),
            "prompt_values_supported": strings(["none", "login", "consent", "select_account"]),
            "acr_values_supported": strings(AuthenticationLevel.allCases.map(\.rawValue)),
            "claims_parameter_supported": .bool(false),
            "request_parameter_supported": .bool(false),
            "request_uri_parameter_supported": .bool(false),
            "authorization_response_iss_parameter_supported": .bool(true),
            "frontchannel_logout_supported": .bool(false),
            "backchannel_logout_supported": .bool(false),
        ]
        if registration { document["registration_endpoint"] = .string(issuer + ProviderEndpoints.register) }
        if metadataDocuments { document["client_id_metadata_document_supported"] = .bool(true) }
        return document
    }
}

/// The authentication levels a client may ask for in `acr_values` (and the ID token's `acr` names): one factor, or
/// two (the account's second factor, SMS or TOTP, passed in this sign-in; a passkey counts as two).
enum AuthenticationLevel: String, CaseIterable, Sendable {
    case singleFactor = "urn:flint:acr:1fa"
    case multiFactor = "urn:flint:acr:mfa"

    /// The level of a sign-in with these RFC 8176 methods.
    init(amr: [String]) { self = amr.contains("mfa") ? .multiFactor : .singleFactor }
}
