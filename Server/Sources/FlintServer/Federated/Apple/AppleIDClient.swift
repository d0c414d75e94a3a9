import Crypto
import FlintWire
import Foundation

/// Apple's Sign in with Apple REST API, for token revocation: a client secret (an ES256 JWT signed with
/// the team's .p8 key) authenticates Flint; an authorization code is exchanged for tokens at
/// `/auth/token`, and those tokens are revoked at `/auth/revoke`. The base URL is Apple's unless
/// `FLINT_APPLE_BASE_URL` names another (tests, proxies).
struct AppleIDClient: Sendable {
    /// Apple's team, key and app, as the project configures them.
    struct Credentials: Sendable {
        var teamID: String
        var keyID: String
        var clientID: String
        var privateKeyPEM: String
    }

    let baseURL: String
    let http: OutsideHTTP
    let clock: any FlintClock

    /// The audience Apple expects in client secrets, whatever the base URL.
    static let audience = "https://appleid.apple.com"

    private struct ClientSecretClaims: Encodable {
        var iss: String
        var iat: Int64
        var exp: Int64
        var aud: String
        var sub: String
    }

    /// A client secret valid for five minutes (Apple allows up to six months; Flint makes one per use).
    func clientSecret(_ credentials: Credentials) throws -> String {
        let key: P256.Signing.PrivateKey
        do {
            key = try P256.Signing.PrivateKey(pemRepresentation: credentials.privateKeyPEM)
        } catch {
            throw FlintError(.invalidProviderConfig, "The Apple private key is not a P-256 key in PEM")
        }
        let now = clock.seconds
        return try ES256.sign(
            kid: credentials.keyID,
            claims: ClientSecretClaims(iss: credentials.teamID, iat: now, exp: now + 300, aud: Self.audience,
                                       sub: credentials.clientID),
            key: key)
    }

    /// Apple did not take the authorization code for this client (`invalid_grant` or `invalid_client`):
    /// the code is bad, spent, or was issued to another of the project's client IDs.
    struct CodeRejected: Error {
        var reason: String
    }

    /// Exchanges an authorization code, then revokes what it yields (the refresh token, else the access token).
    /// Apple's answers go to the log only (as the cause of the error), never to the client.
    func revoke(authorizationCode code: String, credentials: Credentials) async throws {
        let secret = try clientSecret(credentials)
        let exchanged = try await post("/auth/token", [
            ("client_id", credentials.clientID), ("client_secret", secret), ("code", code),
            ("grant_type", "authorization_code"),
        ])
        guard exchanged.isSuccess else {
            if let reason = exchanged.jsonString("error"), ["invalid_grant", "invalid_client"].contains(reason) {
                throw CodeRejected(reason: reason)
            }
            throw Self.refusal(exchanged, "Apple refused the authorization code.")
        }
        let (token, hint) = if let refresh = exchanged.jsonString("refresh_token") {
            (refresh, "refresh_token")
        } else if let access = exchanged.jsonString("access_token") {
            (access, "access_token")
        } else {
            throw Self.refusal(exchanged, "Apple's token answer carries no token.")
        }
        let revoked = try await post("/auth/revoke", [
            ("client_id", credentials.clientID), ("client_secret", secret), ("token", token), ("token_type_hint", hint),
        ])
        guard revoked.isSuccess else { throw Self.refusal(revoked, "Apple refused the revocation.") }
    }

    /// The error for an answer Apple should not have given: a server error is an outage (503), anything else
    /// `INVALID_IDP_RESPONSE` with `message`; the answer itself is the cause, for the log.
    private static func refusal(_ answer: DeliveryHTTP.Answer, _ message: String) -> FlintError {
        let cause = DeliveryError.rejected(status: answer.status, detail: answer.bodyText)
        guard answer.status < 500 else { return FlintError.unavailable("Apple", cause: cause) }
        return FlintError(.invalidIDPResponse, message).withCause("Apple: \(cause)")
    }

    private func post(_ path: String, _ fields: [(String, String)]) async throws -> DeliveryHTTP.Answer {
        let body = Data(FormURLEncoding.encode(fields).utf8)
        do {
            return try await http.send(
                DeliveryHTTP.post(baseURL + path, contentType: "application/x-www-form-urlencoded", body: body), to: .apple)
        } catch {
            throw FlintError.unavailable("Apple", cause: error)
        }
    }
}
