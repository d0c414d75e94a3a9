#if canImport(Security)
import Foundation
import Security

/// An RSA key held by Security (`SecKey`), which is thread-safe.
final class PlatformRSAKey: @unchecked Sendable {
    // @unchecked: a SecKey is immutable and may be used from any thread.
    private let key: SecKey

    /// The public key of a DER X.509 certificate.
    init(certificateDER der: Data) throws {
        guard let certificate = SecCertificateCreateWithData(nil, der as CFData),
              let key = SecCertificateCopyKey(certificate)
        else { throw RSAKeyError(description: "not an X.509 certificate with a key Security can read") }
        try Self.checkUsable(key)
        self.key = key
    }

    /// A PKCS#1 `RSAPublicKey`.
    convenience init(publicPKCS1 der: Data) throws {
        try self.init(pkcs1: der, keyClass: kSecAttrKeyClassPublic)
    }

    /// A PKCS#1 `RSAPrivateKey`.
    convenience init(privatePKCS1 der: Data) throws {
        try self.init(pkcs1: der, keyClass: kSecAttrKeyClassPrivate)
    }

    private init(pkcs1 der: Data, keyClass: CFString) throws {
        let attributes = [kSecAttrKeyType: kSecAttrKeyTypeRSA, kSecAttrKeyClass: keyClass] as CFDictionary
        var error: Unmanaged<CFError>?
        guard let key = SecKeyCreateWithData(der as CFData, attributes, &error) else {
            throw RSAKeyError(description: "Security cannot read the RSA key: \(String(describing: error?.takeRetainedValue()))")
        }
        try Self.checkUsable(key)
        self.key = key
    }

    /// An RSA key (one Security can use for RS256) of at least `minimumRSAKeyBits`. Asked of the key's algorithms,
    /// not its attributes: macOS reports `kSecAttrKeyType` as a number where iOS gives a string.
    private static func checkUsable(_ key: SecKey) throws {
        let usable = SecKeyIsAlgorithmSupported(key, .verify, .rsaSignatureMessagePKCS1v15SHA256)
            || SecKeyIsAlgorithmSupported(key, .sign, .rsaSignatureMessagePKCS1v15SHA256)
        guard usable, SecKeyGetBlockSize(key) * 8 >= minimumRSAKeyBits else {
            throw RSAKeyError(description: "not an RSA key of at least \(minimumRSAKeyBits) bits")
        }
    }

    func isValidSignature(_ signature: Data, for message: Data) -> Bool {
        SecKeyVerifySignature(key, .rsaSignatureMessagePKCS1v15SHA256, message as CFData, signature as CFData, nil)
    }

    func signature(for message: Data) throws -> Data {
        var error: Unmanaged<CFError>?
        guard let signature = SecKeyCreateSignature(key, .rsaSignatureMessagePKCS1v15SHA256, message as CFData, &error) else {
            throw RSAKeyError(description: "Security cannot sign: \(String(describing: error?.takeRetainedValue()))")
        }
        return signature as Data
    }
}
#endif
