import _CryptoExtras
import Crypto
import Foundation
import NIOPosix

/// Firebase's modified scrypt, so hashes imported from Firebase verify and ours could be exported:
/// `key = scrypt(password, salt ‖ saltSeparator, N = 2^memoryCost, r = rounds, p = 1, 64 bytes)`, then
/// `hash = AES-256-CTR(key[0..<32], counter 0).encrypt(signerKey)`.
///
/// One hash costs tens of milliseconds of CPU, so it runs on NIO's blocking thread pool rather than
/// on the cooperative pool that serves every other request.
public struct PasswordHasher: Sendable {
    /// Firebase's minimum (`WEAK_PASSWORD` below it).
    public static let minimumLength = 6
    /// Longer inputs are refused before hashing, so a request cannot buy unbounded CPU.
    public static let maximumLength = 4096

    private let threadPool: NIOThreadPool

    public init(threadPool: NIOThreadPool = .singleton) {
        self.threadPool = threadPool
    }

    public func hash(password: String, salt: Data, project: Project) async throws -> Data {
        let parameters = project.settings.passwordHash
        guard let separator = Data(base64Encoded: parameters.saltSeparator) else { throw FlintError.internalError }
        let signerKey = project.signerKey
        return try await threadPool.runIfActive {
            let derived = try KDF.Scrypt.deriveKey(
                from: Data(password.utf8), salt: salt + separator, outputByteCount: 64,
                rounds: 1 << parameters.memoryCost, blockSize: parameters.rounds, parallelism: 1)
            let aesKey = derived.withUnsafeBytes { SymmetricKey(data: Data($0.prefix(32))) }
            return try AES._CTR.encrypt(signerKey, using: aesKey, nonce: AES._CTR.Nonce(nonceBytes: [UInt8](repeating: 0, count: 16)))
        }
    }

    /// Whether `password` matches the stored hash, compared in constant time.
    public func verify(password: String, hash: String, salt: String, project: Project) async throws -> Bool {
        guard let expected = Data(base64Encoded: hash), let saltBytes = Data(base64Encoded: salt) else { return false }
        let actual = try await self.hash(password: password, salt: saltBytes, project: project)
        return constantTimeEquals(actual, expected)
    }
}

/// Compares two byte strings without an early exit, so timing reveals nothing about where they differ.
func constantTimeEquals(_ lhs: Data, _ rhs: Data) -> Bool {
    guard lhs.count == rhs.count else { return false }
    var difference: UInt8 = 0
    for (a, b) in zip(lhs, rhs) { difference |= a ^ b }
    return difference == 0
}
