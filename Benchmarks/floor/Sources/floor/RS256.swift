import COpenSSL
import Foundation

/// One RSA-2048 key, generated at start, that makes and checks RS256 signatures (RSASSA-PKCS1-v1_5 with SHA-256)
/// through OpenSSL's EVP interface, as Flint's `OpenSSLRS256Signer` does on Linux: the key and SHA-256 are
/// loaded once, and each operation takes a fresh digest context, so any number of tasks may use the key at once.
final class RS256Key: @unchecked Sendable {
    // @unchecked: the key is written once, in init, and OpenSSL only reads it afterwards.
    private let key: OpaquePointer
    private let sha256: OpaquePointer

    init() throws(FloorError) {
        guard let context = EVP_PKEY_CTX_new_id(EVP_PKEY_RSA, nil) else { throw .openSSL("allocating a key context") }
        defer { EVP_PKEY_CTX_free(context) }
        var generated: OpaquePointer?
        guard EVP_PKEY_keygen_init(context) == 1, EVP_PKEY_CTX_set_rsa_keygen_bits(context, 2048) == 1,
              EVP_PKEY_generate(context, &generated) == 1, let generated
        else { throw .openSSL("generating an RSA-2048 key") }
        guard let sha256 = EVP_MD_fetch(nil, "SHA256", nil) else {
            EVP_PKEY_free(generated)
            throw .openSSL("fetching SHA-256")
        }
        key = generated
        self.sha256 = sha256
    }

    deinit {
        EVP_PKEY_free(key)
        EVP_MD_free(sha256)
    }

    func sign(_ input: some ContiguousBytes) throws(FloorError) -> Data {
        let context = try newContext()
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit(context, nil, sha256, nil, key) == 1 else { throw .openSSL("starting a signature") }
        var signature = Data(count: Int(EVP_PKEY_get_size(key)))
        var length = signature.count
        let signed = signature.withUnsafeMutableBytes { output in
            input.withUnsafeBytes { message in
                EVP_DigestSign(
                    context, output.bindMemory(to: UInt8.self).baseAddress, &length,
                    message.bindMemory(to: UInt8.self).baseAddress, message.count)
            }
        }
        guard signed == 1 else { throw .openSSL("signing") }
        return signature.prefix(length)
    }

    func isValidSignature(_ signature: Data, for input: some ContiguousBytes) throws(FloorError) -> Bool {
        let context = try newContext()
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, sha256, nil, key) == 1 else { throw .openSSL("starting a verification") }
        let verified = signature.withUnsafeBytes { signatureBytes in
            input.withUnsafeBytes { message in
                EVP_DigestVerify(
                    context, signatureBytes.bindMemory(to: UInt8.self).baseAddress, signatureBytes.count,
                    message.bindMemory(to: UInt8.self).baseAddress, message.count)
            }
        }
        // A refused signature leaves OpenSSL's reason on this thread's queue; it is not needed.
        ERR_clear_error()
        return verified == 1
    }

    private func newContext() throws(FloorError) -> OpaquePointer {
        guard let context = EVP_MD_CTX_new() else { throw .openSSL("allocating a digest context") }
        return context
    }
}
