import _CryptoExtras
import Crypto
import Foundation
import Logging
import NIOConcurrencyHelpers
import SwiftASN1
import X509

/// The RS256 keys that sign Flint's ID tokens. Keys live in the store (private halves sealed with the
/// master key) and are opened once into memory, so signing never decrypts per request. The newest key
/// signs; every stored key verifies, so tokens survive a rotation. Before signing or publishing, a node
/// asks the store whether another node may have written (`Store.externalChangeToken`, free on SQLite) and
/// then which key is newest (one indexed lookup), and loads the keys again when another node or `flint keys
/// rotate` added one: every node signs with, and publishes, the same keys at once.
public final class SigningKeyring: Sendable {
    struct Key: Sendable {
        let kid: String
        let privateKey: _RSA.Signing.PrivateKey
        let publicKey: _RSA.Signing.PublicKey
        let certificatePEM: String
        /// base64url of this key's JWS header, computed once.
        let encodedHeader: String
    }

    struct State: Sendable {
        var keys: [String: Key] = [:]
        /// Keys by the exact header segment they sign with: a token carrying one needs no header decoding.
        var keysByEncodedHeader: [String: Key] = [:]
        var signingKid: String?
        var documents = PublishedKeyDocuments.empty
    }

    private let store: Store
    private let secrets: SecretBox
    private let clock: any FlintClock
    private let logger: Logger
    private let state = NIOLockedValueBox(State())
    /// The store's external-change token when the newest key was last checked.
    private let checkedToken = NIOLockedValueBox<Int64?>(nil)

    public init(store: Store, secrets: SecretBox, clock: any FlintClock, logger: Logger) {
        self.store = store
        self.secrets = secrets
        self.clock = clock
        self.logger = logger
    }

    /// Loads the stored keys, creating the first one if there is none.
    public func start() async throws {
        if try await store.signingKeys().isEmpty { try await rotate() }
        try await reload()
    }

    /// Adds a new signing key; it signs from now on, and older keys keep verifying.
    @discardableResult
    public func rotate() async throws -> String {
        let privateKey = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let kid = Base64URL.encode(Data(SHA256.hash(data: privateKey.publicKey.derRepresentation).prefix(20)))
        let now = clock.now()
        // Strictly after every stored key, so "newest signs" holds even for two rotations in one second.
        let newest = try await store.signingKeys().last?.createdAt ?? .min
        let record = SigningKeyRecord(
            kid: kid,
            publicKeyPEM: privateKey.publicKey.pemRepresentation,
            certificatePEM: try Self.selfSignedCertificate(for: privateKey, now: now),
            sealedPrivateKey: try secrets.seal(privateKey.derRepresentation, context: "signing-key:\(kid)"),
            createdAt: max(Int64(now.timeIntervalSince1970), newest + 1))
        try await store.insertSigningKey(record)
        try await reload()
        logger.info("Added signing key", metadata: ["kid": "\(kid)"])
        return kid
    }

    /// Re-reads the stored keys (other nodes may have rotated).
    public func reload() async throws {
        let records = try await store.signingKeys()
        let known = state.withLockedValue { $0.keys }
        var keys: [String: Key] = [:]
        for record in records {
            if let key = known[record.kid] {
                keys[record.kid] = key
                continue
            }
            let der = try secrets.open(record.sealedPrivateKey, context: "signing-key:\(record.kid)")
            let privateKey = try _RSA.Signing.PrivateKey(derRepresentation: der)
            let header = try JSONEncoder().encode(CompactJWT.Header(alg: "RS256", kid: record.kid, typ: "JWT"))
            keys[record.kid] = Key(
                kid: record.kid, privateKey: privateKey, publicKey: privateKey.publicKey,
                certificatePEM: record.certificatePEM, encodedHeader: Base64URL.encode(header))
        }
        let newest = records.last?.kid
        let ordered = records.compactMap { keys[$0.kid] }
        let documents = try PublishedKeyDocuments(keys: ordered)
        state.withLockedValue { state in
            state.keys = keys
            state.keysByEncodedHeader = Dictionary(uniqueKeysWithValues: keys.values.map { ($0.encodedHeader, $0) })
            state.signingKid = newest
            state.documents = documents
        }
    }

    /// Signs `payload` (claims JSON) as a compact RS256 JWS with the current key.
    public func sign(payload: Data) async throws -> String {
        try await reloadIfRotated()
        guard let key = state.withLockedValue({ state in state.signingKid.flatMap { state.keys[$0] } }) else {
            throw SigningKeyringError.noSigningKey
        }
        let signingInput = key.encodedHeader + "." + Base64URL.encode(payload)
        let signature = try key.privateKey.signature(for: Data(signingInput.utf8), padding: .insecurePKCS1v1_5)
        return signingInput + "." + Base64URL.encode(signature.rawRepresentation)
    }

    /// Checks that `token` is RS256-signed by one of the keys. Returns the claims JSON, or nil for a
    /// token that is malformed, uses another algorithm (`none`, HS256, …) or fails the signature.
    public func verify(_ token: String) async -> Data? {
        guard let jwt = CompactJWT(token), let key = await key(for: jwt) else { return nil }
        let signature = _RSA.Signing.RSASignature(rawRepresentation: jwt.signature)
        guard key.publicKey.isValidSignature(signature, for: Data(jwt.signingInput.utf8), padding: .insecurePKCS1v1_5)
        else { return nil }
        return jwt.payload
    }

    /// The key a token claims to be signed with, if it is one of ours and the algorithm is RS256.
    private func key(for jwt: CompactJWT) async -> Key? {
        if let key = state.withLockedValue({ $0.keysByEncodedHeader[String(jwt.encodedHeader)] }) { return key }
        guard let header = jwt.header(), header.alg == "RS256", let kid = header.kid else { return nil }
        if let key = state.withLockedValue({ $0.keys[kid] }) { return key }
        // Possibly a key another node added since our last look (a forged kid costs one lookup).
        try? await reloadIfRotated()
        return state.withLockedValue { $0.keys[kid] }
    }

    /// The JWKS, X.509 and key-id documents, prebuilt.
    public var documents: PublishedKeyDocuments {
        get async throws {
            try await reloadIfRotated()
            return state.withLockedValue { $0.documents }
        }
    }

    public var keyIDs: [String] { state.withLockedValue { Array($0.keys.keys).sorted() } }

    /// Loads the keys again when the store's newest key is not the one this node signs with.
    private func reloadIfRotated() async throws {
        let token = try await store.externalChangeToken()
        if let token, token == checkedToken.withLockedValue({ $0 }) { return }
        let newest = try await store.newestSigningKeyID()
        if newest != state.withLockedValue({ $0.signingKid }) { try await reload() }
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

public enum SigningKeyringError: Error {
    case noSigningKey
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
