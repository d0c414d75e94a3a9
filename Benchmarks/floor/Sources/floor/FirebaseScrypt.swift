import COpenSSL
import Foundation

/// Firebase's modified scrypt, with Flint's default parameters: `key = scrypt(password, salt ‖ separator, N = 2^14,
/// r = 8, p = 1, 64 bytes)`, then `AES-256-CTR(key[0..<32], counter 0)` of a 64-byte signer key. Flint computes it with
/// swift-crypto (BoringSSL's scrypt); the floor, which links only OpenSSL, with OpenSSL's `EVP_PBE_scrypt` and EVP's
/// AES-256-CTR: the same algorithm in C, from the same original code.
struct FirebaseScrypt: Sendable {
    /// What Flint's projects are made with (ProjectDirectory): a one-byte separator, 2^14 and 8.
    static let memoryCost: UInt64 = 1 << 14
    static let blockSize: UInt64 = 8
    let signerKey: [UInt8]
    let saltAndSeparator: [UInt8]

    init() {
        signerKey = (0..<64).map { _ in UInt8.random(in: .min ... .max) }
        saltAndSeparator = (0..<16).map { _ in UInt8.random(in: .min ... .max) } + [0x07]
    }

    /// The hash of `password` (the floor stores nothing of it: the cost is what it is for).
    func hash(_ password: String) throws(FloorError) -> [UInt8] {
        var derived = [UInt8](repeating: 0, count: 64)
        // 128·N·r bytes of scratch (16 MiB), under the 64 MiB allowed here.
        let derivedOK = password.withCString { text in
            EVP_PBE_scrypt(text, strlen(text), saltAndSeparator, saltAndSeparator.count,
                           Self.memoryCost, Self.blockSize, 1, 64 << 20, &derived, derived.count) == 1
        }
        guard derivedOK else { throw .openSSL("deriving a scrypt key") }
        guard let context = EVP_CIPHER_CTX_new() else { throw .openSSL("allocating a cipher context") }
        defer { EVP_CIPHER_CTX_free(context) }
        let counter = [UInt8](repeating: 0, count: 16)
        var output = [UInt8](repeating: 0, count: signerKey.count)
        var length: Int32 = 0
        guard EVP_EncryptInit_ex(context, EVP_aes_256_ctr(), nil, derived, counter) == 1,
              EVP_EncryptUpdate(context, &output, &length, signerKey, Int32(signerKey.count)) == 1
        else { throw .openSSL("AES-256-CTR") }
        return output
    }
}
