import FlintWire
import _CryptoExtras
import Crypto
import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOPosix
import SwiftASN1
import X509

/// The RS256 keys that sign Flint's ID tokens. Keys live in the store (private halves sealed with the
/// master key) and are opened once into memory, so signing never decrypts per request. The newest key
/// signs; every stored key verifies, so tokens survive a rotation, until `flint keys retire` removes the key.
/// Before signing, verifying or publishing, a node asks the store whether another node may have written
/// (`Store.externalChangeToken`, free on SQLite) and then for the key set's version (count and newest, one
/// aggregate over a few rows), and loads the keys again when another node or `flint keys rotate|retire` changed
/// them: every node signs with, accepts and publishes the same keys at once.
public final class SigningKeyring: Sendable {
    struct Key: Sendable {
        let kid: String
        /// The fastest signer for the private key (`RS256Signers.fastest`).
        let signer: any RS256Signer
        /// The fastest verifier for the public key (`RS256Signers.fastestVerifier`).
        let verifier: any RS256Verifier
        let publicKey: _RSA.Signing.PublicKey
        let certificatePEM: String
        /// base64url of this key's JWS header for each token type (`typ`) it signs, computed once.
        let encodedHeaders: [TokenType: String]
    }

    /// The `typ` of what the keys sign, so no kind of token is taken for another: ID tokens and session cookies are
    /// `JWT`, as Firebase's are; the OpenID provider's access tokens `at+jwt` (RFC 9068).
    public enum TokenType: String, Sendable, CaseIterable {
        case jwt = "JWT"
        case accessToken = "at+jwt"
    }

    struct State: Sendable {
        var keys: [String: Key] = [:]
        /// Keys by the exact header segments they sign with, with the type each names: a token carrying one needs no
        /// header decoding.
        var keysByEncodedHeader: [String: (key: Key, type: TokenType)] = [:]
        var signingKid: String?
        var documents = PublishedKeyDocuments.empty
        var version = SigningKeySetVersion(count: 0, newest: nil)
    }

    /// How long after a key stopped signing a token it signed may still be valid: the longest lifetime of what
    /// the keys sign (session cookies; ID tokens live an hour), plus the clock skew a node may have, since each
    /// token's expiry comes from the clock of the node that signed it.
    public static let retirementDelay =
        max(TokenService.idTokenLifetime, TokenService.sessionCookieDurations.upperBound) + TokenService.allowedClockSkew

    private let keys: SigningKeyStore
    private let secrets: SecretBox
    private let clock: any FlintClock
    private let rsaKeys: any RSAKeySource
    private let signingThreads: NIOThreadPool?
    private let logger: Logger
    private let state = NIOLockedValueBox(State())
    /// The store's external-change token when the newest key was last checked.
    private let checkedToken = NIOLockedValueBox<Int64?>(nil)

    init(core: ServerCore) {
        keys = core.store.signingKeys
        secrets = core.secrets
        clock = core.clock
        rsaKeys = core.rsaKeys
        signingThreads = core.signingThreads
        logger = core.logger
    }

    /// Loads the stored keys, creating the first one if there is none.
    public func start() async throws {
        if try await keys.signingKeys().isEmpty { try await rotate() }
        try await reload()
    }

    /// Adds a new signing key; it signs from now on, and older keys keep verifying.
    @discardableResult
    public func rotate() async throws -> String {
        let privateKey = try rsaKeys.makeKey()
        let kid = Base64URL.encode(Data(SHA256.hash(data: privateKey.publicKey.derRepresentation).prefix(20)))
        let now = clock.now()
        // Strictly after every stored key, so "newest signs" holds even for two rotations in one second.
        let newest = try await keys.signingKeys().last?.createdAt ?? .min
        let record = SigningKeyRecord(
            kid: kid,
            publicKeyPEM: privateKey.publicKey.pemRepresentation,
            certificatePEM: try Self.selfSignedCertificate(for: privateKey, now: now),
            sealedPrivateKey: try secrets.seal(privateKey.derRepresentation, context: "signing-key:\(kid)"),
            createdAt: max(Int64(now.timeIntervalSince1970), newest + 1))
        try await keys.insertSigningKey(record)
        try await reload()
        logger.info("Added signing key", metadata: ["kid": "\(kid)"])
        return kid
    }

    /// Removes a key, so it is no longer published and tokens it signed no longer verify, on every node.
    /// Refused for the current key, and, unless `force` (for a compromised key: tokens it signed stop working at
    /// once), until the key that replaced it has signed for `retirementDelay`, when everything it signed expired.
    public func retire(_ kid: String, force: Bool = false) async throws {
        guard let key = try await keys().first(where: { $0.kid == kid }) else { throw SigningKeyringError.unknownKey(kid) }
        guard let retirableAt = key.retirableAt else { throw SigningKeyringError.currentKey(kid) }
        if !force && !key.retirable {
            throw SigningKeyringError.mayHaveSignedLiveTokens(
                kid, retirableAt: Date(timeIntervalSince1970: TimeInterval(retirableAt)))
        }
        try await keys.deleteSigningKey(kid: kid)
        try await reload()
        logger.notice("Retired signing key", metadata: ["kid": "\(kid)", "forced": "\(force && !key.retirable)"])
    }

    /// The stored keys, oldest first, with when each may be retired.
    public func keys() async throws -> [SigningKeyInfo] {
        let records = try await keys.signingKeys()
        let now = clock.seconds
        return records.indices.map { index in
            // A key stopped signing when the next newer one was added.
            let retirableAt = index + 1 < records.count ? records[index + 1].createdAt + Self.retirementDelay : nil
            return SigningKeyInfo(kid: records[index].kid, createdAt: records[index].createdAt, retirableAt: retirableAt,
                                  retirable: retirableAt.map { now >= $0 } ?? false)
        }
    }

    /// Re-reads the stored keys (other nodes may have rotated or retired one).
    public func reload() async throws {
        let records = try await keys.signingKeys()
        let known = state.withLockedValue { $0.keys }
        var keys: [String: Key] = [:]
        for record in records {
            if let key = known[record.kid] {
                keys[record.kid] = key
                continue
            }
            let der = try secrets.open(record.sealedPrivateKey, context: "signing-key:\(record.kid)")
            let privateKey = try _RSA.Signing.PrivateKey(derRepresentation: der)
            var headers: [TokenType: String] = [:]
            for type in TokenType.allCases {
                headers[type] = Base64URL.encode(try JSONEncoder().encode(
                    CompactJWT.Header(alg: "RS256", kid: record.kid, typ: type.rawValue)))
            }
            keys[record.kid] = Key(
                kid: record.kid, signer: try RS256Signers.fastest(for: privateKey),
                verifier: try RS256Signers.fastestVerifier(for: privateKey.publicKey), publicKey: privateKey.publicKey,
                certificatePEM: record.certificatePEM, encodedHeaders: headers)
        }
        let newest = records.last?.kid
        let ordered = records.compactMap { keys[$0.kid] }
        let documents = try PublishedKeyDocuments(keys: ordered)
        state.withLockedValue { state in
            state.keys = keys
            state.keysByEncodedHeader = Dictionary(uniqueKeysWithValues: keys.values.flatMap { key in
                key.encodedHeaders.map { ($0.value, (key, $0.key)) }
            })
            state.signingKid = newest
            state.documents = documents
            state.version = SigningKeySetVersion(records)
        }
    }

    /// Signs `payload` (claims JSON) as a compact RS256 JWS of `type` with the current key.
    public func sign(payload: Data, type: TokenType = .jwt) async throws -> String {
        try await reloadIfChanged()
        guard let key = state.withLockedValue({ state in state.signingKid.flatMap { state.keys[$0] } }) else {
            throw SigningKeyringError.noSigningKey
        }
        let signingInput = (key.encodedHeaders[type] ?? "") + "." + Base64URL.encode(payload)
        let input = Data(signingInput.utf8)
        let signature = if let signingThreads {
            try await signingThreads.runIfActive { try key.signer.sign(input) }
        } else {
            try key.signer.sign(input)
        }
        return signingInput + "." + Base64URL.encode(signature)
    }

    /// A token's claims JSON and the key that signed it.
    public struct Verified: Sendable {
        public let payload: Data
        public let kid: String
    }

    /// Checks that `token` is an RS256 JWS of `type` signed by one of the keys. Returns the claims JSON, or nil for a
    /// token that is malformed, of another type, uses another algorithm (`none`, HS256, …) or fails the signature.
    public func verify(_ token: String, type: TokenType = .jwt) async -> Verified? {
        guard let jwt = CompactJWT(token), let (key, signedType) = await key(for: jwt), signedType == type else { return nil }
        guard key.verifier.isValidSignature(jwt.signature, for: Data(jwt.signingInput.utf8)) else { return nil }
        return Verified(payload: jwt.payload, kid: key.kid)
    }

    /// Whether `kid` still verifies (another node may have retired it since this one last looked).
    public func hasKey(_ kid: String) async -> Bool {
        // If the store cannot be asked, the keys loaded last are the best answer there is.
        try? await reloadIfChanged()
        return state.withLockedValue { $0.keys[kid] != nil }
    }

    /// The key a token claims to be signed with, if it is one of ours and the algorithm is RS256, and the type its
    /// header names (a header without `typ` is taken as `JWT`, as RFC 7519 allows).
    private func key(for jwt: CompactJWT) async -> (Key, TokenType)? {
        try? await reloadIfChanged()
        if let known = state.withLockedValue({ $0.keysByEncodedHeader[String(jwt.encodedHeader)] }) { return known }
        guard let header = jwt.header(), header.alg == "RS256", let kid = header.kid,
              let type = TokenType(rawValue: header.typ ?? TokenType.jwt.rawValue),
              let key = state.withLockedValue({ $0.keys[kid] })
        else { return nil }
        return (key, type)
    }

    /// The JWKS, X.509 and key-id documents, prebuilt. What is published is what outside verifiers trust, and they ask
    /// seldom (they keep it as its Cache-Control says), so the key set's version is read from the store on every ask:
    /// the change token alone can lag a key another node added a moment ago, until this node's PostgreSQL listener has
    /// read the notification (`PostgresGenerationListener`), and a verifier would then keep the old set for its max-age.
    public var documents: PublishedKeyDocuments {
        get async throws {
            if try await keys.signingKeySetVersion() != state.withLockedValue({ $0.version }) { try await reload() }
            return state.withLockedValue { $0.documents }
        }
    }

    public var keyIDs: [String] { state.withLockedValue { Array($0.keys.keys).sorted() } }

    /// Loads the keys again when the stored key set is not the one this node loaded.
    private func reloadIfChanged() async throws {
        let token = try await keys.externalChangeToken()
        if let token, token == checkedToken.withLockedValue({ $0 }) { return }
        let version = try await keys.signingKeySetVersion()
        if version != state.withLockedValue({ $0.version }) { try await reload() }
        checkedToken.withLockedValue { $0 = token }
    }

    /// A self-signed certificate for the key, published in Google's X.509 map format.
    private static func selfSignedCertificate(for key: _RSA.Signing.PrivateKey, now: Date) throws -> String {
        let privateKey = Certificate.PrivateKey(key)
        let name = try DistinguishedName { CommonName("flint-securetoken") }
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: privateKey.publicKey,
            notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(5 * 365 * 86400),
            issuer: name, subject: name, signatureAlgorithm: .sha256WithRSAEncryption,
            extensions: try Certificate.Extensions { Critical(BasicConstraints.notCertificateAuthority) },
            issuerPrivateKey: privateKey)
        return try certificate.serializeAsPEM().pemString
    }
}

/// A stored signing key and when `flint keys retire` accepts it.
public struct SigningKeyInfo: Sendable, Equatable {
    public let kid: String
    /// Epoch seconds.
    public let createdAt: Int64
    /// Epoch seconds from which the key may be retired; nil for the current key, which signs.
    public let retirableAt: Int64?
    /// Whether `retirableAt` has come.
    public let retirable: Bool

    public var isCurrent: Bool { retirableAt == nil }
}

public enum SigningKeyringError: Error, Equatable, CustomStringConvertible {
    case noSigningKey
    case unknownKey(String)
    case currentKey(String)
    /// Tokens the key signed may still be valid until `retirableAt`.
    case mayHaveSignedLiveTokens(String, retirableAt: Date)

    public var description: String {
        switch self {
        case .noSigningKey:
            "there is no signing key"
        case .unknownKey(let kid):
            "there is no signing key \(kid)"
        case .currentKey(let kid):
            "\(kid) is the current signing key; rotate first, then retire it once the new key has signed long enough"
        case .mayHaveSignedLiveTokens(let kid, let retirableAt):
            "tokens signed by \(kid) may still be valid (session cookies live up to "
                + "\(TokenService.sessionCookieDurations.upperBound / 86_400) days); it can be retired from "
                + "\(retirableAt.formatted(.iso8601)) on, or now with --force, which makes those tokens stop verifying at once"
        }
    }
}

/// The public key material as standard JWT libraries fetch it, encoded once per key change.
public struct PublishedKeyDocuments: Sendable {
    /// `{"keys":[{kty, alg, use, kid, n, e}]}`.
    public let jwks: Data
    /// `{kid: PEM certificate}` — Google's `robot/v1/metadata/x509` format.
    public let x509: Data

    static let empty = PublishedKeyDocuments(jwks: Data(#"{"keys":[]}"#.utf8), x509: Data("{}".utf8))

    private init(jwks: Data, x509: Data) {
        self.jwks = jwks
        self.x509 = x509
    }

    init(keys: [SigningKeyring.Key]) throws {
        struct JWK: Encodable {
            let kty = "RSA", alg = "RS256", use = "sig"
            let kid: String, n: String, e: String
        }
        struct JWKS: Encodable { let keys: [JWK] }
        let jwks = try keys.map { key in
            let primitives = try key.publicKey.getKeyPrimitives()
            return JWK(kid: key.kid, n: Base64URL.encode(primitives.modulus), e: Base64URL.encode(primitives.publicExponent))
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        self.jwks = try encoder.encode(JWKS(keys: jwks))
        self.x509 = try encoder.encode(Dictionary(uniqueKeysWithValues: keys.map { ($0.kid, $0.certificatePEM) }))
    }
}
