import Crypto
import SwiftASN1
import X509
import _CryptoExtras

/// Attestation statement verification (WebAuthn §8): `none`, and `packed` (§8.2) both as self attestation and with
/// an attestation certificate. A `packed` certificate's chain is not checked against any root (there are no trust
/// anchors to check it against), so such an attestation proves no more about the authenticator's make than self
/// attestation; it is checked so that a statement that claims one is at least consistent.
enum Attestation {
    /// id-fido-gen-ce-aaguid: the AAGUID of the authenticator model, in its attestation certificate.
    private static let aaguidExtension: ASN1ObjectIdentifier = [1, 3, 6, 1, 4, 1, 45724, 1, 1, 4]
    private static let packedKeys: Set<CBORKey> = [.text("alg"), .text("sig"), .text("x5c")]

    /// Verifies statement `statement` of format `format` over `signedData` (authenticator data, then the
    /// clientDataJSON's SHA-256) for the attested `credential`.
    static func verify(format: String, statement: CBORValue, signedData: [UInt8],
                       credential: AuthenticatorData.AttestedCredential) throws(WebAuthnError) {
        guard case .map(let entries) = statement else { throw .malformed("attStmt is not a map") }
        switch format {
        case "none":
            guard entries.isEmpty else { throw .attestationInvalid("a none attestation's statement must be empty") }
        case "packed":
            // No `ecdaaKeyId`: ECDAA was withdrawn from the specification.
            guard Set(entries.keys).isSubset(of: packedKeys) else {
                throw .attestationInvalid("a packed statement has members other than alg, sig and x5c")
            }
            guard let identifier = statement["alg"]?.integerValue, let signature = statement["sig"]?.bytesValue else {
                throw .attestationInvalid("a packed statement needs an integer alg and a byte-string sig")
            }
            let algorithm = try COSEAlgorithm.supported(identifier)
            if let chain = statement["x5c"] {
                let key = try certificateKey(chain, algorithm: algorithm, aaguid: credential.aaguid)
                guard key.isValidSignature(signature, for: signedData) else {
                    throw .attestationInvalid("the signature does not verify with the attestation certificate's key")
                }
            } else {
                guard algorithm == credential.publicKey.algorithm else {
                    throw .attestationInvalid("a self attestation's alg is not the credential key's")
                }
                guard credential.publicKey.key.isValidSignature(signature, for: signedData) else {
                    throw .attestationInvalid("the self attestation's signature does not verify with the credential key")
                }
            }
        default:
            throw .unsupportedAttestationFormat(WebAuthnError.clipped(format))
        }
    }

    /// The key of the attestation certificate, first of `chain` (x5c), once it meets §8.2.1: version 3, a subject with
    /// C, O, CN and OU "Authenticator Attestation", basic constraints saying it is not a CA, and the credential's AAGUID if
    /// it names one.
    private static func certificateKey(_ chain: CBORValue, algorithm: COSEAlgorithm, aaguid: [UInt8])
        throws(WebAuthnError) -> SignatureKey {
        guard case .array(let items) = chain, let first = items.first?.bytesValue, items.allSatisfy({ $0.bytesValue != nil })
        else { throw .attestationInvalid("x5c must be a non-empty array of byte strings") }
        guard let certificate = try? Certificate(derEncoded: first) else {
            throw .attestationInvalid("the attestation certificate is not a DER X.509 certificate")
        }
        guard certificate.version == .v3 else { throw .attestationInvalid("the attestation certificate is not version 3") }
        try checkSubject(certificate.subject)
        switch Result(catching: { try certificate.extensions.basicConstraints }) {
        case .success(.notCertificateAuthority?): break
        case .success(.isCertificateAuthority?): throw .attestationInvalid("the attestation certificate is a CA's")
        case .success(nil): throw .attestationInvalid("the attestation certificate has no basic constraints")
        case .failure: throw .attestationInvalid("the attestation certificate's basic constraints do not parse")
        }
        if let named = certificate.extensions[oid: aaguidExtension] {
            guard !named.critical else { throw .attestationInvalid("the certificate's AAGUID extension is critical") }
            guard let value = try? ASN1OctetString(derEncoded: named.value), Array(value.bytes) == aaguid else {
                throw .attestationInvalid("the certificate's AAGUID is not the authenticator data's")
            }
        }
        let key: SignatureKey? =
            switch algorithm {
            case .es256: P256.Signing.PublicKey(certificate.publicKey).map(SignatureKey.p256)
            case .rs256: _RSA.Signing.PublicKey(certificate.publicKey).flatMap {
                    SignatureKey.rsaModulusBits.contains($0.keySizeInBits) ? .rsa($0) : nil
                }
            case .edDSA: Curve25519.Signing.PublicKey(certificate.publicKey).map(SignatureKey.ed25519)
            }
        guard let key else {
            throw .attestationInvalid("the attestation certificate's key is not one for alg \(algorithm.rawValue)")
        }
        return key
    }

    private static func checkSubject(_ subject: DistinguishedName) throws(WebAuthnError) {
        let attributes = subject.flatMap { $0 }
        func has(_ type: ASN1ObjectIdentifier) -> Bool { attributes.contains { $0.type == type } }
        guard has(.RDNAttributeType.countryName), has(.RDNAttributeType.organizationName), has(.RDNAttributeType.commonName),
              attributes.contains(where: {
                  $0.type == .RDNAttributeType.organizationalUnitName && String($0.value) == "Authenticator Attestation"
              })
        else {
            throw .attestationInvalid(
                "the attestation certificate's subject lacks C, O, CN or OU \"Authenticator Attestation\"")
        }
    }
}
