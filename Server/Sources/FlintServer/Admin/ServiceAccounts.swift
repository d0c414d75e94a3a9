import _CryptoExtras
import Crypto
import FlintWire
import Foundation
import NIOConcurrencyHelpers

/// Production mode's admin credentials, as Google's: a service account is an RSA key pair per project.
/// The operator gets the private key once, in a key file of Google's format (`flint service-accounts
/// create`); Flint keeps only the public half. An Admin SDK then proves itself either with a JWT it signs
/// itself (`Authorization: Bearer <JWT>`), or by exchanging such a JWT at the key file's `token_uri`
/// (`/token`, the OAuth JWT-bearer grant) for a short-lived access token, as Google's client libraries do.
/// The same keys sign custom tokens (`accounts:signInWithCustomToken`).
public struct ServiceAccounts: Sendable {
    let store: ServiceAccountStore
    let secrets: SecretBox
    let clock: any FlintClock
    let random: any RandomSource
    let rsaKeys: any RSAKeySource
    let address: PublicAddress
    /// Verifiers of the accounts' public keys, made once per key: parsing the PEM on every custom token or admin call
    /// cost more than the RSA check itself. The record is still read each time, so a revoked key stops at once.
    private let verifiers = VerifierCache()

    init(core: ServerCore) {
        store = core.store.serviceAccounts
        secrets = core.secrets
        clock = core.clock
        random = core.random
        rsaKeys = core.rsaKeys
        address = core.address
    }

    /// The audience of custom tokens (Firebase's).
    public static let customTokenAudience = "https://identitytoolkit.googleapis.com/google.identity.identitytoolkit.v1.IdentityToolkit"
    /// Audiences of self-signed admin JWTs (Google's client libraries use the API's root URL).
    static let apiAudiences: Set<String> = ["https://identitytoolkit.googleapis.com/", "https://identitytoolkit.googleapis.com"]
    /// Google's token endpoint: its client libraries put it in every grant assertion, whatever the key
    /// file's `token_uri` (the keys are Flint's own, so such an assertion can only have been meant for Flint).
    static let googleTokenAudience = "https://oauth2.googleapis.com/token"
    /// The longest a JWT assertion or an access token may live (Google's limit).
    static let maximumLifetime: Int64 = 3600
    static let accessTokenPrefix = "flint."

    /// A key file in Google's service-account format.
    public struct KeyFile: Codable, Sendable {
        public var type = "service_account"
        public var project_id: String
        public var private_key_id: String
        public var private_key: String
        public var client_email: String
        public var client_id: String
        public var auth_uri: String
        public var token_uri: String
    }

    var tokenURI: String { address.url + "/token" }

    /// Makes a key for `projectID` and returns its key file (the only copy of the private key).
    public func create(projectID: String) async throws -> KeyFile {
        let key = try rsaKeys.makeKey()
        let keyID = Hex.encode(random.bytes(20))
        let clientEmail = "flint-admin-\(keyID.prefix(8))@\(projectID).iam.flint"
        try await store.insertServiceAccount(ServiceAccountRecord(
            keyID: keyID, projectID: projectID, clientEmail: clientEmail, publicKeyPEM: key.publicKey.pemRepresentation,
            createdAt: clock.seconds))
        return KeyFile(project_id: projectID, private_key_id: keyID, private_key: key.pkcs8PEMRepresentation,
                       client_email: clientEmail, client_id: String(keyID.prefix(21)),
                       auth_uri: address.url + "/o/oauth2/auth", token_uri: tokenURI)
    }

    /// Claims of a JWT a service account signed.
    struct Assertion: Decodable {
        var iss: String
        var sub: String?
        var aud: String?
        var iat: Int64
        var exp: Int64
        var uid: String?
        var claims: [String: JSONValue]?
        /// A custom token's tenant (`tenant_id`), set by the Admin SDKs' tenant-aware auth.
        var tenantID: String?
        /// The console's login challenge.
        var nonce: String?

        enum CodingKeys: String, CodingKey {
            case iss, sub, aud, iat, exp, uid, claims, nonce
            case tenantID = "tenant_id"
        }
    }

    /// Verifies a JWT signed by an active key: RS256 with the key its `kid` names (or the issuer's only
    /// key), `iss` the key's account, an audience in `audiences`, and a lifetime of at most an hour that
    /// has begun and not ended. Returns the key and the claims, or nil.
    func verify(_ token: String, audiences: Set<String>) async throws -> (ServiceAccountRecord, Assertion)? {
        guard let jwt = CompactJWT(token), let header = jwt.header(), header.alg == "RS256",
              let assertion = try? JSONDecoder().decode(Assertion.self, from: jwt.payload)
        else { return nil }
        let record: ServiceAccountRecord?
        if let kid = header.kid {
            record = try await store.serviceAccount(keyID: kid)
        } else {
            record = nil
        }
        guard let record, record.revokedAt == nil, record.clientEmail == assertion.iss,
              assertion.sub == nil || assertion.sub == assertion.iss,
              let audience = assertion.aud, audiences.contains(audience),
              let verifier = verifiers.verifier(for: record),
              verifier.isValidSignature(jwt.signature, for: Data(jwt.signingInput.utf8))
        else { return nil }
        let now = clock.seconds
        let (lifetime, overflowed) = assertion.exp.subtractingReportingOverflow(assertion.iat)
        guard assertion.iat <= now + 60, assertion.exp > now, !overflowed, lifetime <= Self.maximumLifetime else {
            return nil
        }
        return (record, assertion)
    }

    // MARK: Admin calls

    /// What an access token carries (sealed with the master key, so only Flint nodes can read or make one).
    private struct AccessToken: Codable {
        var keyID: String
        var expiresAt: Int64
    }

    private static let accessTokenContext = "admin-access-token"

    /// The OAuth 2.0 JWT-bearer grant at `/token`: a JWT the service account signed, audience the token
    /// URI (or Google's), for an access token good for an hour. Errors use OAuth's names.
    func exchange(grantType: String?, assertion: String?) async throws -> [String: JSONValue] {
        guard grantType == "urn:ietf:params:oauth:grant-type:jwt-bearer" else {
            throw FlintError(sentence: "unsupported_grant_type", status: .badRequest, reason: "unsupported_grant_type")
        }
        guard let assertion, let (record, _) = try await verify(assertion, audiences: [tokenURI, Self.googleTokenAudience]) else {
            throw FlintError(sentence: "invalid_grant", status: .badRequest, reason: "invalid_grant")
        }
        let token = try secrets.sealToken(AccessToken(keyID: record.keyID, expiresAt: clock.seconds + Self.maximumLifetime),
                                          context: Self.accessTokenContext)
        return ["access_token": .string(Self.accessTokenPrefix + token), "token_type": .string("Bearer"),
                "expires_in": .number(Double(Self.maximumLifetime))]
    }

    /// The project a bearer credential administers, and the service account's key ID: an access token from `/token`,
    /// or a self-signed JWT. Nil when it is neither (or its key is revoked).
    func administeredProject(bearer token: String) async throws -> (projectID: String, keyID: String)? {
        if token.hasPrefix(Self.accessTokenPrefix) {
            guard let opened = secrets.openToken(token.dropFirst(Self.accessTokenPrefix.count), as: AccessToken.self,
                                                 context: Self.accessTokenContext),
                  opened.expiresAt > clock.seconds,
                  let record = try await store.serviceAccount(keyID: opened.keyID), record.revokedAt == nil
            else { return nil }
            return (record.projectID, record.keyID)
        }
        return try await verify(token, audiences: Self.apiAudiences.union([tokenURI])).map { ($0.0.projectID, $0.0.keyID) }
    }
}

/// The RS256 verifier of each service-account key, by key ID and PEM (a key ID whose PEM changed gets a new one).
private final class VerifierCache: Sendable {
    private let verifiers = NIOLockedValueBox([String: (pem: String, verifier: any RS256Verifier)]())
    /// Bound on the cache; it is emptied when full (a refill costs one PEM parse per key).
    private static let capacity = 1024

    func verifier(for record: ServiceAccountRecord) -> (any RS256Verifier)? {
        if let cached = verifiers.withLockedValue({ $0[record.keyID] }), cached.pem == record.publicKeyPEM {
            return cached.verifier
        }
        guard let key = try? _RSA.Signing.PublicKey(pemRepresentation: record.publicKeyPEM),
              let verifier = try? RS256Signers.fastestVerifier(for: key)
        else { return nil }
        verifiers.withLockedValue { cache in
            if cache.count >= Self.capacity { cache.removeAll(keepingCapacity: true) }
            cache[record.keyID] = (record.publicKeyPEM, verifier)
        }
        return verifier
    }
}
