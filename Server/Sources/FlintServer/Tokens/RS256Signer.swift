import _CryptoExtras
import Foundation

#if canImport(COpenSSL)
import COpenSSL
#endif

/// Makes RS256 signatures (RSASSA-PKCS1-v1_5 with SHA-256) with one private key. Every sign-in, sign-up and refresh
/// costs one of these, so it is the server's hottest piece of work.
///
/// PKCS#1 v1.5 signatures are deterministic: every implementation gives the same bytes for the same key and
/// input, which is how the tests check one against the other.
protocol RS256Signer: Sendable {
    func sign(_ input: Data) throws -> Data
}

enum RS256Signers {
    /// The fastest signer this build has for `key`: the system's OpenSSL where it is linked (Linux), swift-crypto's
    /// otherwise. Made once per key when the keyring loads it, never per signature.
    static func fastest(for key: _RSA.Signing.PrivateKey) throws -> any RS256Signer {
        #if canImport(COpenSSL)
        return try OpenSSLRS256Signer(derRepresentation: key.derRepresentation)
        #else
        return SwiftCryptoRS256Signer(key: key)
        #endif
    }
}

/// swift-crypto's (BoringSSL) RS256: the signer on platforms without the system's OpenSSL.
struct SwiftCryptoRS256Signer: RS256Signer {
    let key: _RSA.Signing.PrivateKey

    func sign(_ input: Data) throws -> Data {
        try key.signature(for: input, padding: .insecurePKCS1v1_5).rawRepresentation
    }
}

/// Why OpenSSL refused.
struct OpenSSLError: Error, CustomStringConvertible {
    let description: String
}

#if canImport(COpenSSL)
/// RS256 through the system's OpenSSL 3 libcrypto. On these machines its RSA-2048 signing is about 2.3 times as fast
/// per core as BoringSSL's (see BENCHMARKS.md).
///
/// The key and the digest are loaded once; each signature takes a fresh digest context, so any number of tasks may
/// sign at once (OpenSSL allows concurrent use of a key that is not modified). Signing runs on the task that asks,
/// which Swift's concurrent executor (one thread per core) runs off the NIO event loops.
final class OpenSSLRS256Signer: RS256Signer, @unchecked Sendable {
    // @unchecked: both pointers are written once, in init, and OpenSSL only reads them afterwards.
    private let key: OpaquePointer
    private let sha256: OpaquePointer

    /// - Parameter derRepresentation: the private key, PKCS#1 `RSAPrivateKey` or PKCS#8 DER.
    init(derRepresentation: Data) throws {
        let parsed: OpaquePointer? = derRepresentation.withUnsafeBytes { bytes in
            var cursor = bytes.bindMemory(to: UInt8.self).baseAddress
            return d2i_AutoPrivateKey(nil, &cursor, bytes.count)
        }
        guard let parsed else { throw Self.lastError("reading the RSA key") }
        guard EVP_PKEY_is_a(parsed, "RSA") == 1, let sha256 = EVP_MD_fetch(nil, "SHA256", nil) else {
            EVP_PKEY_free(parsed)
            throw OpenSSLError(description: "not an RSA key, or no SHA-256 in this OpenSSL")
        }
        key = parsed
        self.sha256 = sha256
    }

    deinit {
        EVP_PKEY_free(key)
        EVP_MD_free(sha256)
    }

    func sign(_ input: Data) throws -> Data {
        guard let context = EVP_MD_CTX_new() else { throw Self.lastError("allocating a digest context") }
        defer { EVP_MD_CTX_free(context) }
        // PKCS#1 v1.5 is an RSA key's default padding.
        guard EVP_DigestSignInit(context, nil, sha256, nil, key) == 1 else { throw Self.lastError("starting a signature") }
        var signature = Data(count: Int(EVP_PKEY_get_size(key)))
        var length = signature.count
        let signed = signature.withUnsafeMutableBytes { output in
            input.withUnsafeBytes { message in
                EVP_DigestSign(
                    context, output.bindMemory(to: UInt8.self).baseAddress, &length,
                    message.bindMemory(to: UInt8.self).baseAddress, message.count)
            }
        }
        guard signed == 1 else { throw Self.lastError("signing") }
        return signature.prefix(length)
    }

    /// OpenSSL's newest queued error, taken off its (per-thread) queue, with what was being done.
    private static func lastError(_ doing: String) -> OpenSSLError {
        var buffer = [CChar](repeating: 0, count: 256)
        let code = ERR_get_error()
        ERR_error_string_n(code, &buffer, buffer.count)
        ERR_clear_error()
        let text = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return OpenSSLError(description: "OpenSSL failed \(doing): \(String(decoding: text, as: UTF8.self))")
    }
}
#endif
