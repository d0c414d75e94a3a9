import FlintWire
import Foundation
import NIOConcurrencyHelpers

/// Sign-in with any OpenID Connect provider (`oidc.…`) by its ID token, or by the redirect flow when the configuration
/// has the code flow on. The configured issuer's discovery document (`{issuer}/.well-known/openid-configuration`) must
/// name that same issuer and gives the key set (kept one `JWKSCache` per key set) and the flow's endpoints; the token
/// is then checked like Apple's: signature, issuer, audience = the configured client ID, expiry, and the nonce when
/// the token carries one (the raw nonce or its hex SHA-256).
final class OIDCSignIn: CodeFlowProvider {
    let http: OutsideHTTP
    let clock: any FlintClock
    /// How long a discovery document is trusted before it is read again.
    let discoveryMaxAge: TimeInterval

    /// What an issuer's discovery document says, as far as Flint uses it.
    struct Metadata: Sendable {
        var jwksURI: String
        var authorizationEndpoint: String?
        var tokenEndpoint: String?
    }

    /// Each issuer's metadata with when it was read; and one key cache per key set.
    private let discovered = NIOLockedValueBox<[String: (metadata: Metadata, readAt: Date)]>([:])
    private let keySets = NIOLockedValueBox<[String: JWKSCache]>([:])

    init(http: OutsideHTTP, clock: any FlintClock, discoveryMaxAge: TimeInterval = 3600) {
        self.http = http
        self.clock = clock
        self.discoveryMaxAge = discoveryMaxAge
    }

    func verify(_ assertion: IdpAssertion, configuration: ProjectSettings.IdentityProvider) async throws -> ProviderIdentity {
        guard let idToken = assertion.idToken else {
            throw FlintError(.invalidIDPResponse, "Sign-in with \(assertion.providerID) needs an id_token.")
        }
        return try await verify(idToken: idToken, rawNonce: assertion.rawNonce, providerID: assertion.providerID,
                                configuration: configuration)
    }

    /// Checks an ID token of the provider: from the app, or from the code flow's token endpoint.
    func verify(idToken: String, rawNonce: String?, providerID: String, configuration: ProjectSettings.IdentityProvider)
        async throws -> ProviderIdentity {
        let (issuer, clientID) = try Self.issuerAndClient(providerID, configuration)
        let verifier = IdentityTokenVerifier(keys: keys(for: try await metadata(issuer)), clock: clock)
        return try await verifier.openIDIdentity(idToken, providerID: providerID, issuers: [issuer], audiences: [clientID],
                                                 rawNonce: rawNonce)
    }

    /// The configured issuer and client ID, both required.
    static func issuerAndClient(_ providerID: String, _ configuration: ProjectSettings.IdentityProvider) throws
        -> (issuer: String, clientID: String) {
        guard let issuer = configuration.issuer, !issuer.isEmpty, let clientID = configuration.clientID, !clientID.isEmpty else {
            throw FlintError(.invalidProviderConfig, "\(providerID) needs an issuer and a client ID.")
        }
        return (issuer, clientID)
    }

    // MARK: The code flow

    let baseScopes = ["openid", "email", "profile"]
    let clientAuthentication = TokenEndpointAuthentication.basic
    let outsideService = OutsideService.oidc

    func codeFlowClientID(_ configuration: ProjectSettings.IdentityProvider, providerID: String) throws -> String {
        let (_, clientID) = try Self.issuerAndClient(providerID, configuration)
        guard configuration.codeFlow == true, configuration.sealedClientSecret != nil else {
            throw FlintError(.invalidProviderConfig, "\(providerID) does not have the code flow (responseType.code) on.")
        }
        return clientID
    }

    func endpoints(_ configuration: ProjectSettings.IdentityProvider, providerID: String,
                   customParameters: [String: String]) async throws -> CodeFlowEndpoints {
        let (issuer, _) = try Self.issuerAndClient(providerID, configuration)
        let document = try await metadata(issuer)
        guard let authorization = document.authorizationEndpoint, let token = document.tokenEndpoint else {
            throw FlintError(.invalidIDPResponse, "The OpenID provider names no authorization or token endpoint.")
        }
        return CodeFlowEndpoints(authorization: authorization, token: token)
    }

    func identity(fromTokens tokens: [String: JSONValue], session: AuthorizationCodeFlow.Session,
                  configuration: ProjectSettings.IdentityProvider) async throws -> ProviderIdentity {
        guard let idToken = tokens["id_token"]?.stringValue else {
            throw FlintError(.invalidIDPResponse, "The provider did not exchange the code for an ID token.")
        }
        return try await verify(idToken: idToken, rawNonce: session.nonce, providerID: session.providerID, configuration: configuration)
    }

    /// `issuer`'s metadata, reading its discovery document when not known or too old.
    func metadata(_ issuer: String) async throws -> Metadata {
        let now = clock.now()
        if let known = discovered.withLockedValue({ $0[issuer] }), now.timeIntervalSince(known.readAt) < discoveryMaxAge {
            return known.metadata
        }
        let metadata = try await discover(issuer)
        discovered.withLockedValue { $0[issuer] = (metadata, now) }
        return metadata
    }

    /// The key cache of a key set, one per address.
    private func keys(for metadata: Metadata) -> JWKSCache {
        keySets.withLockedValue { caches in
            if let cache = caches[metadata.jwksURI] { return cache }
            let cache = JWKSCache(url: metadata.jwksURI, http: http, clock: clock)
            caches[metadata.jwksURI] = cache
            return cache
        }
    }

    /// Reads the discovery document; it must be JSON naming the same issuer and a key set.
    private func discover(_ issuer: String) async throws -> Metadata {
        let base = issuer.hasSuffix("/") ? String(issuer.dropLast()) : issuer
        let answer = try await http.providerGET(base + "/.well-known/openid-configuration", from: .oidc)
        guard answer.isSuccess, case .object(let document)? = try? JSONDecoder().decode(JSONValue.self, from: answer.body),
              document["issuer"]?.stringValue == issuer,
              let jwksURI = document["jwks_uri"]?.stringValue, URL(string: jwksURI)?.host != nil
        else {
            throw FlintError(.invalidIDPResponse, "The OpenID provider's discovery document does not describe \(issuer).")
                .withCause("discovery: HTTP \(answer.status): \(answer.bodyText)")
        }
        return Metadata(jwksURI: jwksURI, authorizationEndpoint: document["authorization_endpoint"]?.stringValue,
                        tokenEndpoint: document["token_endpoint"]?.stringValue)
    }
}
