import Crypto
import _CryptoExtras

/// The COSE algorithms (RFC 9053, RFC 8812) a credential may use. Nothing SHA-1 based (RS1, -65535) and nothing
/// else: a relying party that checks fewer algorithms has fewer ways to be wrong.
enum COSEAlgorithm: Int, Sendable {
    /// ECDSA on P-256 with SHA-256; WebAuthn sends its signatures DER-encoded.
    case es256 = -7
    /// RSASSA-PKCS1-v1_5 with SHA-256.
    case rs256 = -257
    /// EdDSA; on Ed25519, the only curve accepted.
    case edDSA = -8

    /// The algorithm of COSE identifier `identifier`, if supported.
    static func supported(_ identifier: Int64) throws(WebAuthnError) -> COSEAlgorithm {
        guard let value = Int(exactly: identifier), let algorithm = COSEAlgorithm(rawValue: value) else {
            throw .unsupportedAlgorithm(Int(clamping: identifier))
        }
        return algorithm
    }
}

/// A public key that checks signatures of one algorithm, with swift-crypto doing the arithmetic.
enum SignatureKey: Sendable {
    case p256(P256.Signing.PublicKey)
    case rsa(_RSA.Signing.PublicKey)
    case ed25519(Curve25519.Signing.PublicKey)

    /// RSA moduli accepted, in bits: below 2048 is too weak, above 8192 only makes verifying slow.
    static let rsaModulusBits = 2048 ... 8192

    var algorithm: COSEAlgorithm {
        switch self {
        case .p256: .es256
        case .rsa: .rs256
        case .ed25519: .edDSA
        }
    }

    /// Whether `signature` (in WebAuthn's encoding of this algorithm) signs `message`. Never throws: a signature
    /// that does not parse does not verify.
    func isValidSignature(_ signature: [UInt8], for message: [UInt8]) -> Bool {
        switch self {
        case .p256(let key):
            guard let parsed = try? P256.Signing.ECDSASignature(derRepresentation: signature) else { return false }
            return key.isValidSignature(parsed, for: message)
        case .rsa(let key):
            let parsed = _RSA.Signing.RSASignature(rawRepresentation: signature)
            // PKCS #1 v1.5 is RS256's padding; the "insecure" in the name warns against it for new designs.
            return key.isValidSignature(parsed, for: message, padding: .insecurePKCS1v1_5)
        case .ed25519(let key):
            return key.isValidSignature(signature, for: message)
        }
    }
}

/// A credential public key in COSE_Key form (RFC 9052 §7), as authenticators encode it: EC2 on P-256 for ES256, RSA
/// for RS256, OKP on Ed25519 for EdDSA. The algorithm label is required and must match the key's type and curve;
/// labels other than those read are ignored (COSE allows more, e.g. `kid`).
struct COSEKey: Sendable {
    let key: SignatureKey
    var algorithm: COSEAlgorithm { key.algorithm }

    // Labels (RFC 9052 §7.1, RFC 9053 §7): common ones are positive, type-specific ones negative.
    private static let keyTypeLabel: Int64 = 1
    private static let algorithmLabel: Int64 = 3
    private static let curveLabel: Int64 = -1, xLabel: Int64 = -2, yLabel: Int64 = -3
    private static let modulusLabel: Int64 = -1, exponentLabel: Int64 = -2
    private static let okp: Int64 = 1, ec2: Int64 = 2, rsa: Int64 = 3
    private static let p256: Int64 = 1, ed25519: Int64 = 6

    /// The key `bytes` encode, alone.
    init(bytes: [UInt8]) throws(WebAuthnError) {
        let value: CBORValue
        do { value = try CBORDecoder.decode(bytes) } catch {
            throw .malformed("the COSE key is not valid CBOR: \(error.reason)")
        }
        try self.init(value)
    }

    init(_ value: CBORValue) throws(WebAuthnError) {
        guard case .map = value else { throw .malformed("the COSE key is not a map") }
        guard let identifier = value[Self.algorithmLabel]?.integerValue else {
            throw .malformed("the COSE key has no integer algorithm (3)")
        }
        let algorithm = try COSEAlgorithm.supported(identifier)
        guard let keyType = value[Self.keyTypeLabel]?.integerValue else {
            throw .malformed("the COSE key has no integer key type (1)")
        }
        let curve = value[Self.curveLabel]?.integerValue
        switch algorithm {
        case .es256:
            guard keyType == Self.ec2, curve == Self.p256 else {
                throw .malformed("an ES256 key must be EC2 (kty 2) on P-256 (crv 1)")
            }
            guard let x = value[Self.xLabel]?.bytesValue, let y = value[Self.yLabel]?.bytesValue, x.count == 32, y.count == 32
            else { throw .malformed("an ES256 key's x and y must be 32-byte strings") }
            // Refuses a point not on the curve.
            guard let key = try? P256.Signing.PublicKey(rawRepresentation: x + y) else {
                throw .keyRejected("not a point of P-256")
            }
            self.key = .p256(key)
        case .rs256:
            guard keyType == Self.rsa else { throw .malformed("an RS256 key must be RSA (kty 3)") }
            guard let n = value[Self.modulusLabel]?.bytesValue, let e = value[Self.exponentLabel]?.bytesValue,
                  !n.isEmpty, !e.isEmpty, e.count <= 8
            else { throw .malformed("an RS256 key's n and e must be byte strings (e at most 8 bytes)") }
            guard let key = try? _RSA.Signing.PublicKey(n: n, e: e), SignatureKey.rsaModulusBits.contains(key.keySizeInBits)
            else { throw .keyRejected("not an RSA key of 2048 to 8192 bits") }
            self.key = .rsa(key)
        case .edDSA:
            guard keyType == Self.okp, curve == Self.ed25519 else {
                throw .malformed("an EdDSA key must be OKP (kty 1) on Ed25519 (crv 6)")
            }
            guard let x = value[Self.xLabel]?.bytesValue, x.count == 32 else {
                throw .malformed("an EdDSA key's x must be a 32-byte string")
            }
            guard let key = try? Curve25519.Signing.PublicKey(rawRepresentation: x) else {
                throw .keyRejected("not an Ed25519 key")
            }
            self.key = .ed25519(key)
        }
    }
}
