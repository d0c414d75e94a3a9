import _CryptoExtras
import Crypto
import Foundation

/// Firebase's modified scrypt, with Flint's default parameters: `key = scrypt(password, salt ‖ separator, N = 2^14,
/// r = 8, p = 1, 64 bytes)`, then `AES-256-CTR(key[0..<32], counter 0)` of a 64-byte signer key. Computed as Flint
/// computes it (`PasswordHasher`): swift-crypto's `KDF.Scrypt` and `AES._CTR`, over BoringSSL.
struct FirebaseScrypt: Sendable {
    /// What Flint's projects are made with (ProjectDirectory): a one-byte separator, 2^14 and 8.
    static let memoryCost = 1 << 14
    static let blockSize = 8
    let signerKey: Data
    let saltAndSeparator: Data

    init() {
        signerKey = Data((0..<64).map { _ in UInt8.random(in: .min ... .max) })
        saltAndSeparator = Data((0..<16).map { _ in UInt8.random(in: .min ... .max) } + [0x07])
    }

    /// The hash of `password` (the floor stores nothing of it: the cost is what it is for).
    func hash(_ password: String) throws(FloorError) -> Data {
        do {
            let derived = try KDF.Scrypt.deriveKey(from: Data(password.utf8), salt: saltAndSeparator, outputByteCount: 64,
                                                   rounds: Self.memoryCost, blockSize: Self.blockSize, parallelism: 1)
            let aesKey = derived.withUnsafeBytes { SymmetricKey(data: Data($0.prefix(32))) }
            return try AES._CTR.encrypt(signerKey, using: aesKey, nonce: AES._CTR.Nonce(nonceBytes: [UInt8](repeating: 0, count: 16)))
        } catch {
            throw .crypto("hashing a password: \(error)")
        }
    }
}
