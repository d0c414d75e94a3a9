import FlintWire
import Foundation

/// What the authorization-code flow (`AuthorizationCodeFlow`) needs to know of one provider: where its sign-in page
/// and token endpoint are, what it asks for, and how the token endpoint's answer becomes an identity. Google,
/// Microsoft and `oidc.…` providers answer with an OpenID Connect ID token; GitHub with an access token for its API.
protocol CodeFlowProvider: Sendable {
    /// Scopes every authorization request asks for; the app's scopes are added to them.
    var baseScopes: [String] { get }
    /// Whether the provider speaks OpenID Connect: the request carries a nonce the ID token must return.
    var sendsNonce: Bool { get }
    /// How the client proves itself at the token endpoint.
    var clientAuthentication: TokenEndpointAuthentication { get }
    /// The service the token endpoint is counted under.
    var outsideService: OutsideService { get }

    /// The configured client ID, once the configuration allows the code flow (a client ID and a secret at least).
    func codeFlowClientID(_ configuration: ProjectSettings.IdentityProvider, providerID: String) throws -> String

    /// The sign-in page and token endpoint for this configuration and request.
    func endpoints(_ configuration: ProjectSettings.IdentityProvider, providerID: String,
                   customParameters: [String: String]) async throws -> CodeFlowEndpoints

    /// The identity behind the token endpoint's answer (`tokens`) for the sign-in `session` started.
    func identity(fromTokens tokens: [String: JSONValue], session: AuthorizationCodeFlow.Session,
                  configuration: ProjectSettings.IdentityProvider) async throws -> ProviderIdentity
}

/// Where a provider's code flow happens.
struct CodeFlowEndpoints: Sendable {
    var authorization: String
    var token: String
    /// The directory tenant the sign-in is limited to (Microsoft's `tenant` parameter), checked again on return.
    var tenant: String?
}

/// RFC 6749 §2.3.1: how a client sends its ID and secret to the token endpoint.
enum TokenEndpointAuthentication: Sendable {
    /// HTTP Basic with the form-encoded ID and secret (`client_secret_basic`).
    case basic
    /// `client_id` and `client_secret` in the form (`client_secret_post`; GitHub takes only this).
    case post
}

extension CodeFlowProvider {
    var sendsNonce: Bool { true }
    var clientAuthentication: TokenEndpointAuthentication { .post }

    func codeFlowClientID(_ configuration: ProjectSettings.IdentityProvider, providerID: String) throws -> String {
        guard let clientID = configuration.clientID, !clientID.isEmpty, configuration.sealedClientSecret != nil else {
            throw FlintError(.invalidProviderConfig, "\(providerID) needs a client ID and a client secret for the redirect flow.")
        }
        return clientID
    }
}

/// The providers that have a code flow, by provider ID.
struct CodeFlowProviders: Sendable {
    let google: GoogleSignIn
    let gitHub: GitHubSignIn
    let microsoft: MicrosoftSignIn
    let oidc: OIDCSignIn

    /// Whether `providerID` has a code flow (`provider(for:)` is not nil; keep the two together).
    static func hasCodeFlow(_ providerID: String) -> Bool {
        [ProviderID.google, ProviderID.gitHub, ProviderID.microsoft].contains(providerID) || providerID.hasPrefix(ProviderID.oidcPrefix)
    }

    func provider(for providerID: String) -> (any CodeFlowProvider)? {
        switch providerID {
        case ProviderID.google: google
        case ProviderID.gitHub: gitHub
        case ProviderID.microsoft: microsoft
        case let id where id.hasPrefix(ProviderID.oidcPrefix): oidc
        default: nil
        }
    }
}
