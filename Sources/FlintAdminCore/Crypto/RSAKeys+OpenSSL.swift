#if canImport(CFlintAdminCrypto) && !canImport(Security)
import CFlintAdminCrypto
import Foundation

/// An RSA key held by OpenSSL 3's libcrypto, freed with its owner. OpenSSL allows any number of threads to use a key
/// nobody modifies, and each operation takes a digest context of its own.
final class PlatformRSAKey: @unchecked Sendable {
    // @unchecked: `key` is set once, in init, and only read afterwards.
    private let key: OpaquePointer

    /// The public key of a DER X.509 certificate.
    convenience init(certificateDER der: Data) throws {
        let certificate: OpaquePointer? = der.withUnsafeBytes { bytes in
            var cursor = bytes.bindMemory(to: UInt8.self).baseAddress
            return d2i_X509(nil, &cursor, bytes.count)
        }
        guard let certificate else { throw Self.failure("reading the certificate") }
        defer { X509_free(certificate) }
        guard let key = X509_get_pubkey(certificate) else { throw Self.failure("reading the certificate's key") }
        try self.init(owning: key)
    }

    /// A PKCS#1 `RSAPublicKey`.
    convenience init(publicPKCS1 der: Data) throws {
        try self.init(owning: Self.parse(der, type: EVP_PKEY_RSA, with: d2i_PublicKey, reading: "the public key"))
    }

    /// A PKCS#1 `RSAPrivateKey`.
    convenience init(privatePKCS1 der: Data) throws {
        try self.init(owning: Self.parse(der, type: EVP_PKEY_RSA, with: d2i_PrivateKey, reading: "the private key"))
    }

    private init(owning key: OpaquePointer) throws {
        guard EVP_PKEY_is_a(key, "RSA") == 1, EVP_PKEY_get_bits(key) >= minimumRSAKeyBits else {
            EVP_PKEY_free(key)
            throw RSAKeyError(description: "not an RSA key of at least \(minimumRSAKeyBits) bits")
        }
        self.key = key
    }

    deinit { EVP_PKEY_free(key) }

    private static func parse(
        _ der: Data, type: Int32,
        with parse: (Int32, UnsafeMutablePointer<OpaquePointer?>?, UnsafeMutablePointer<UnsafePointer<UInt8>?>?, Int) -> OpaquePointer?,
        reading what: String
    ) throws -> OpaquePointer {
        let key: OpaquePointer? = der.withUnsafeBytes { bytes in
            var cursor = bytes.bindMemory(to: UInt8.self).baseAddress
            return parse(type, nil, &cursor, bytes.count)
        }
        guard let key else { throw failure("reading \(what)") }
        return key
    }

    func isValidSignature(_ signature: Data, for message: Data) -> Bool {
        defer { ERR_clear_error() }
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        // PKCS#1 v1.5 is an RSA key's default padding.
        guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, key) == 1 else { return false }
        return signature.withUnsafeBytes { signatureBytes in
            message.withUnsafeBytes { messageBytes in
                EVP_DigestVerify(context, signatureBytes.bindMemory(to: UInt8.self).baseAddress, signatureBytes.count,
                                 messageBytes.bindMemory(to: UInt8.self).baseAddress, messageBytes.count) == 1
            }
        }
    }

    func signature(for message: Data) throws -> Data {
        guard let context = EVP_MD_CTX_new() else { throw Self.failure("allocating a digest context") }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, key) == 1 else { throw Self.failure("starting a signature") }
        var signature = Data(count: Int(EVP_PKEY_get_size(key)))
        var length = signature.count
        let signed = signature.withUnsafeMutableBytes { output in
            message.withUnsafeBytes { messageBytes in
                EVP_DigestSign(context, output.bindMemory(to: UInt8.self).baseAddress, &length,
                               messageBytes.bindMemory(to: UInt8.self).baseAddress, messageBytes.count)
            }
        }
        guard signed == 1 else { throw Self.failure("signing") }
        return signature.prefix(length)
    }

    /// OpenSSL's newest queued error (taken off this thread's queue) with what was being done.
    private static func failure(_ doing: String) -> RSAKeyError {
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(ERR_get_error(), &buffer, buffer.count)
        ERR_clear_error()
        let reason = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return RSAKeyError(description: "OpenSSL failed \(doing): \(reason)")
    }
}
#endif
