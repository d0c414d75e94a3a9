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

/// Checks RS256 signatures with one public key. Every ID token a server has not seen yet costs one of these.
protocol RS256Verifier: Sendable {
    func isValidSignature(_ signature: Data, for input: Data) -> Bool
}

/// Picks the implementation for each key, once, when the keyring loads it.
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

    /// The fastest verifier this build has for `key`, as for signers.
    static func fastestVerifier(for key: _RSA.Signing.PublicKey) throws -> any RS256Verifier {
        #if canImport(COpenSSL)
        return try OpenSSLRS256Verifier(subjectPublicKeyInfo: key.derRepresentation)
        #else
        return SwiftCryptoRS256Verifier(key: key)
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

/// swift-crypto's (BoringSSL) RS256 verification: the verifier on platforms without the system's OpenSSL.
struct SwiftCryptoRS256Verifier: RS256Verifier {
    let key: _RSA.Signing.PublicKey

    func isValidSignature(_ signature: Data, for input: Data) -> Bool {
        key.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: signature), for: input, padding: .insecurePKCS1v1_5)
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
    // @unchecked: the key is written once, in init, and OpenSSL only reads it afterwards.
    private let key: OpenSSLRSAKey

    /// - Parameter derRepresentation: the private key, PKCS#1 `RSAPrivateKey` or PKCS#8 DER.
    init(derRepresentation: Data) throws {
        key = try OpenSSLRSAKey(der: derRepresentation, reading: "the RSA private key", parse: d2i_AutoPrivateKey)
    }

    func sign(_ input: Data) throws -> Data {
        try key.withDigestContext { context, key, sha256 in
            // PKCS#1 v1.5 is an RSA key's default padding.
            guard EVP_DigestSignInit(context, nil, sha256, nil, key) == 1 else { throw OpenSSLError.last("starting a signature") }
            var signature = Data(count: Int(EVP_PKEY_get_size(key)))
            var length = signature.count
            let signed = signature.withUnsafeMutableBytes { output in
                input.withUnsafeBytes { message in
                    EVP_DigestSign(
                        context, output.bindMemory(to: UInt8.self).baseAddress, &length,
                        message.bindMemory(to: UInt8.self).baseAddress, message.count)
                }
            }
            guard signed == 1 else { throw OpenSSLError.last("signing") }
            return signature.prefix(length)
        }
    }
}

/// RS256 verification through the system's OpenSSL: on these machines several times cheaper than BoringSSL's, and
/// a lookup with a token the server has not seen yet pays one.
final class OpenSSLRS256Verifier: RS256Verifier, @unchecked Sendable {
    // @unchecked: as for the signer.
    private let key: OpenSSLRSAKey

    /// - Parameter subjectPublicKeyInfo: the public key as X.509 `SubjectPublicKeyInfo` DER.
    init(subjectPublicKeyInfo: Data) throws {
        key = try OpenSSLRSAKey(der: subjectPublicKeyInfo, reading: "the RSA public key", parse: d2i_PUBKEY)
    }

    func isValidSignature(_ signature: Data, for input: Data) -> Bool {
        let verified = try? key.withDigestContext { context, key, sha256 -> Bool in
            guard EVP_DigestVerifyInit(context, nil, sha256, nil, key) == 1 else { return false }
            return signature.withUnsafeBytes { signatureBytes in
                input.withUnsafeBytes { message in
                    EVP_DigestVerify(
                        context, signatureBytes.bindMemory(to: UInt8.self).baseAddress, signatureBytes.count,
                        message.bindMemory(to: UInt8.self).baseAddress, message.count) == 1
                }
            }
        }
        // A refused signature leaves OpenSSL's reason on this thread's queue; it is not needed.
        ERR_clear_error()
        return verified ?? false
    }
}

/// An RSA key loaded into OpenSSL with SHA-256 fetched beside it, freed with its owner.
private final class OpenSSLRSAKey {
    let key: OpaquePointer
    let sha256: OpaquePointer

    init(der: Data, reading: String,
         parse: (UnsafeMutablePointer<OpaquePointer?>?, UnsafeMutablePointer<UnsafePointer<UInt8>?>?, Int) -> OpaquePointer?) throws {
        let parsed: OpaquePointer? = der.withUnsafeBytes { bytes in
            var cursor = bytes.bindMemory(to: UInt8.self).baseAddress
            return parse(nil, &cursor, bytes.count)
        }
        guard let parsed else { throw OpenSSLError.last("reading \(reading)") }
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

    /// Runs `body` with a fresh digest context (one per operation, so operations may run concurrently).
    func withDigestContext<T>(_ body: (OpaquePointer, OpaquePointer, OpaquePointer) throws -> T) throws -> T {
        guard let context = EVP_MD_CTX_new() else { throw OpenSSLError.last("allocating a digest context") }
        defer { EVP_MD_CTX_free(context) }
        return try body(context, key, sha256)
    }
}

extension OpenSSLError {
    /// OpenSSL's newest queued error, taken off its (per-thread) queue, with what was being done.
    static func last(_ doing: String) -> OpenSSLError {
        var buffer = [CChar](repeating: 0, count: 256)
        let code = ERR_get_error()
        ERR_error_string_n(code, &buffer, buffer.count)
        ERR_clear_error()
        let text = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return OpenSSLError(description: "OpenSSL failed \(doing): \(String(decoding: text, as: UTF8.self))")
    }
}
#endif
