import FlintWire
import Foundation
import NIOConcurrencyHelpers

/// Sign-in with any OpenID Connect provider (`oidc.…`) by its ID token. The configured issuer's discovery document
/// (`{issuer}/.well-known/openid-configuration`) must name that same issuer and gives the key set, kept one
/// `JWKSCache` per key set; the token is then checked like Apple's: signature, issuer, audience = the configured
/// client ID, expiry, and the nonce when the token carries one (the raw nonce or its hex SHA-256).
final class OIDCSignIn: Sendable {
    let http: OutsideHTTP
    let clock: any FlintClock
    /// How long a discovery document is trusted before it is read again.
    let discoveryMaxAge: TimeInterval

    /// The key-set address each issuer's discovery document gave, with when it was read; and one cache per key set.
    private let discovered = NIOLockedValueBox<[String: (jwksURI: String, readAt: Date)]>([:])
    private let keySets = NIOLockedValueBox<[String: JWKSCache]>([:])

    init(http: OutsideHTTP, clock: any FlintClock, discoveryMaxAge: TimeInterval = 3600) {
        self.http = http
        self.clock = clock
        self.discoveryMaxAge = discoveryMaxAge
    }

    func verify(_ assertion: IdpAssertion, configuration: ProjectSettings.IdentityProvider) async throws -> ProviderIdentity {
        guard let issuer = configuration.issuer, !issuer.isEmpty, let clientID = configuration.clientID, !clientID.isEmpty else {
            throw FlintError(.invalidProviderConfig, "\(assertion.providerID) needs an issuer and a client ID.")
        }
        guard let idToken = assertion.idToken else {
            throw FlintError(.invalidIDPResponse, "Sign-in with \(assertion.providerID) needs an id_token.")
        }
        let verifier = IdentityTokenVerifier(keys: try await keys(for: issuer), clock: clock)
        let token: VerifiedIdentityToken
        do {
            token = try await verifier.verify(idToken, expectedIssuers: [issuer], audiences: [clientID],
                                              rawNonce: assertion.rawNonce, nonceRule: .plain)
        } catch {
            throw error.flintError
        }
        var identity = ProviderIdentity(providerID: assertion.providerID, rawID: token.subject,
                                        email: token.email?.lowercased(), emailVerified: token.emailVerified ?? false)
        identity.readProfile(fromClaims: token.claims)
        return identity
    }

    /// The key cache of `issuer`'s key set, reading its discovery document when not known or too old.
    private func keys(for issuer: String) async throws -> JWKSCache {
        let now = clock.now()
        let known = discovered.withLockedValue { $0[issuer] }
        let jwksURI: String
        if let known, now.timeIntervalSince(known.readAt) < discoveryMaxAge {
            jwksURI = known.jwksURI
        } else {
            jwksURI = try await discover(issuer)
            discovered.withLockedValue { $0[issuer] = (jwksURI, now) }
        }
        return keySets.withLockedValue { caches in
            if let cache = caches[jwksURI] { return cache }
            let cache = JWKSCache(url: jwksURI, http: http, clock: clock)
            caches[jwksURI] = cache
            return cache
        }
    }

    /// Reads the discovery document; it must be JSON naming the same issuer and a key set.
    private func discover(_ issuer: String) async throws -> String {
        let base = issuer.hasSuffix("/") ? String(issuer.dropLast()) : issuer
        let answer = try await http.providerGET(base + "/.well-known/openid-configuration", from: .oidc)
        guard answer.isSuccess, case .object(let document)? = try? JSONDecoder().decode(JSONValue.self, from: answer.body),
              document["issuer"]?.stringValue == issuer,
              let jwksURI = document["jwks_uri"]?.stringValue, URL(string: jwksURI)?.host != nil
        else {
            throw FlintError(.invalidIDPResponse, "The OpenID provider's discovery document does not describe \(issuer).")
                .withCause("discovery: HTTP \(answer.status): \(answer.bodyText)")
        }
        return jwksURI
    }
}
