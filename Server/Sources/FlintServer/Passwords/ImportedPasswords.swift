import _CryptoExtras
import CBcrypt
import Crypto
import FlintWire
import Foundation
import NIOPosix

/// How an imported user's password hash was made, kept until the user's first sign-in: the password is
/// then checked this way, and re-hashed with the project's own Firebase scrypt (the import parameters are
/// dropped). A key (Firebase's signer key, an HMAC key) is sealed with the master key.
public struct ImportedPasswordHash: Codable, Sendable, Equatable {
    public enum Algorithm: String, Codable, Sendable, CaseIterable {
        /// Firebase's modified scrypt (`SCRYPT` in the Admin API).
        case firebaseScrypt = "SCRYPT"
        case standardScrypt = "STANDARD_SCRYPT"
        case pbkdf2SHA256 = "PBKDF2_SHA256"
        /// PBKDF2 with HMAC-SHA1 (Firebase's name drops the 2).
        case pbkdfSHA1 = "PBKDF_SHA1"
        case hmacSHA256 = "HMAC_SHA256"
        case hmacSHA512 = "HMAC_SHA512"
        case hmacSHA1 = "HMAC_SHA1"
        case hmacMD5 = "HMAC_MD5"
        case sha256 = "SHA256"
        case sha512 = "SHA512"
        case sha1 = "SHA1"
        case md5 = "MD5"
        /// The hash is the whole modular-crypt string (`$2b$10$…`, also `$2a$`/`$2y$`) as bytes; it carries its
        /// own salt and cost.
        case bcrypt = "BCRYPT"
        /// The official emulator's stand-in, `fakeHash:salt=<salt>:password=<password>`, kept verbatim (not
        /// base64) with its salt as given; taken without a `hashAlgorithm` where the policy allows
        /// (`acceptsEmulatorFakePasswordHashes`), never named by a request.
        case emulatorFake = "EMULATOR_FAKE"
    }

    public var algorithm: Algorithm
    public var sealedKey: String?
    /// Base64.
    public var saltSeparator: String?
    public var rounds: Int?
    public var memoryCost: Int?
    public var cpuMemCost: Int?
    public var blockSize: Int?
    public var parallelization: Int?
    public var dkLen: Int?
    /// The password before the salt (`PASSWORD_AND_SALT`); by default the salt comes first.
    public var passwordFirst: Bool
}

/// Reads the import parameters of `accounts:batchCreate` and checks passwords against imported hashes.
struct ImportedPasswords: Sendable {
    let secrets: SecretBox
    let threadPool: NIOThreadPool

    /// Limits that keep one sign-in's hashing bounded.
    static let maximumRounds = 1_000_000
    static let maximumBcryptCost = 16

    /// The parameters of an import request, checked; `INVALID_HASH_*` errors name what is wrong.
    func parameters(of request: BatchCreateRequest, projectID: String) throws -> ImportedPasswordHash {
        guard let name = request.hashAlgorithm, let algorithm = ImportedPasswordHash.Algorithm(rawValue: name),
              algorithm != .emulatorFake
        else {
            throw FlintError(.invalidArgument, "Unsupported hashAlgorithm \(request.hashAlgorithm ?? "(none)")")
        }
        var key: Data?
        if let signerKey = request.signerKey {
            guard let decoded = Self.bytes(signerKey) else { throw FlintError(.invalidArgument, "signerKey is not base64") }
            key = decoded
        }
        switch algorithm {
        case .firebaseScrypt:
            guard key != nil, let rounds = request.rounds, (1...8).contains(rounds),
                  let memoryCost = request.memoryCost, (1...14).contains(memoryCost)
            else { throw FlintError(.invalidArgument, "SCRYPT needs signerKey, rounds (1-8) and memoryCost (1-14)") }
        case .standardScrypt:
            guard let n = request.cpuMemCost, n > 1, n & (n - 1) == 0, n <= 1 << 20,
                  let r = request.blockSize, (1...32).contains(r), let p = request.parallelization, (1...16).contains(p),
                  let length = request.dkLen, (16...128).contains(length)
            else { throw FlintError(.invalidArgument, "STANDARD_SCRYPT needs cpuMemCost (a power of 2), blockSize, parallelization, dkLen") }
        case .hmacSHA256, .hmacSHA512, .hmacSHA1, .hmacMD5:
            guard key?.isEmpty == false else { throw FlintError(.invalidArgument, "\(name) needs signerKey (the HMAC key)") }
        case .bcrypt, .emulatorFake:
            break
        case .pbkdf2SHA256, .pbkdfSHA1, .sha256, .sha512, .sha1, .md5:
            guard let rounds = request.rounds, (0...Self.maximumRounds).contains(rounds) else {
                throw FlintError(.invalidArgument, "\(name) needs rounds (0-\(Self.maximumRounds))")
            }
        }
        if let separator = request.saltSeparator, Self.bytes(separator) == nil {
            throw FlintError(.invalidArgument, "saltSeparator is not base64")
        }
        return ImportedPasswordHash(
            algorithm: algorithm,
            sealedKey: try key.map { try secrets.seal($0, context: Self.keyContext(projectID)) },
            saltSeparator: request.saltSeparator.flatMap(Self.bytes)?.base64EncodedString(),
            rounds: request.rounds, memoryCost: request.memoryCost, cpuMemCost: request.cpuMemCost,
            blockSize: request.blockSize, parallelization: request.parallelization, dkLen: request.dkLen,
            passwordFirst: request.passwordHashOrder == "PASSWORD_AND_SALT")
    }

    /// How the official emulator's fake hashes begin.
    private static let emulatorFakePrefix = "fakeHash:"

    /// An imported emulator fake hash, stored as given; nil if `hash` is not one.
    static func emulatorFakePassword(_ hash: String, salt: String?, updatedAt: Int64) -> StoredPassword? {
        guard hash.hasPrefix(emulatorFakePrefix) else { return nil }
        return StoredPassword(hash: hash, salt: salt ?? "", updatedAt: updatedAt,
                              imported: ImportedPasswordHash(algorithm: .emulatorFake, passwordFirst: false))
    }

    /// Whether `password` matches an imported hash (constant-time comparison).
    func verify(password: String, hash: String, salt: String?, parameters: ImportedPasswordHash, projectID: String)
        async throws -> Bool {
        if parameters.algorithm == .emulatorFake {
            let expected = "\(Self.emulatorFakePrefix)salt=\(salt ?? ""):password=\(password)"
            return constantTimeEquals(Data(expected.utf8), Data(hash.utf8))
        }
        guard let expected = Self.bytes(hash) else { return false }
        if parameters.algorithm == .bcrypt {
            return try await threadPool.runIfActive { Self.bcryptMatches(password, hash: expected) }
        }
        let saltBytes = salt.flatMap(Self.bytes) ?? Data()
        let key = try parameters.sealedKey.map { try openKey($0, projectID: projectID) }
        // PBKDF2 derives as many bytes as the source system kept (16 to 64).
        let isPBKDF2 = parameters.algorithm == .pbkdf2SHA256 || parameters.algorithm == .pbkdfSHA1
        guard !isPBKDF2 || (16...64).contains(expected.count) else { return false }
        let actual = try await threadPool.runIfActive {
            try Self.hash(Data(password.utf8), salt: saltBytes, key: key, parameters: parameters, length: expected.count)
        }
        return constantTimeEquals(actual, expected)
    }

    /// The hash of `password` as `parameters` say, `length` bytes where the algorithm lets the length be chosen (PBKDF2).
    private static func hash(_ password: Data, salt: Data, key: Data?, parameters: ImportedPasswordHash, length: Int) throws -> Data {
        let salted = parameters.passwordFirst ? password + salt : salt + password
        switch parameters.algorithm {
        case .firebaseScrypt:
            let separator = parameters.saltSeparator.flatMap { Data(base64Encoded: $0) } ?? Data()
            let derived = try KDF.Scrypt.deriveKey(
                from: password, salt: salt + separator, outputByteCount: 64,
                rounds: 1 << (parameters.memoryCost ?? 14), blockSize: parameters.rounds ?? 8, parallelism: 1)
            let aesKey = derived.withUnsafeBytes { SymmetricKey(data: Data($0.prefix(32))) }
            return try AES._CTR.encrypt(key ?? Data(), using: aesKey, nonce: AES._CTR.Nonce(nonceBytes: [UInt8](repeating: 0, count: 16)))
        case .standardScrypt:
            let derived = try KDF.Scrypt.deriveKey(
                from: password, salt: salt, outputByteCount: parameters.dkLen ?? 64, rounds: parameters.cpuMemCost ?? 16384,
                blockSize: parameters.blockSize ?? 8, parallelism: parameters.parallelization ?? 1)
            return derived.withUnsafeBytes { Data($0) }
        case .pbkdf2SHA256, .pbkdfSHA1:
            let derived = try KDF.Insecure.PBKDF2.deriveKey(
                from: password, salt: salt, using: parameters.algorithm == .pbkdfSHA1 ? .insecureSHA1 : .sha256,
                outputByteCount: length, unsafeUncheckedRounds: max(parameters.rounds ?? 1, 1))
            return derived.withUnsafeBytes { Data($0) }
        case .hmacSHA256:
            return Data(HMAC<SHA256>.authenticationCode(for: salted, using: SymmetricKey(data: key ?? Data())))
        case .hmacSHA512:
            return Data(HMAC<SHA512>.authenticationCode(for: salted, using: SymmetricKey(data: key ?? Data())))
        case .hmacSHA1:
            return Data(HMAC<Insecure.SHA1>.authenticationCode(for: salted, using: SymmetricKey(data: key ?? Data())))
        case .hmacMD5:
            return Data(HMAC<Insecure.MD5>.authenticationCode(for: salted, using: SymmetricKey(data: key ?? Data())))
        case .sha256:
            return iterate(salted, rounds: parameters.rounds ?? 1) { Data(SHA256.hash(data: $0)) }
        case .sha512:
            return iterate(salted, rounds: parameters.rounds ?? 1) { Data(SHA512.hash(data: $0)) }
        case .sha1:
            return iterate(salted, rounds: parameters.rounds ?? 1) { Data(Insecure.SHA1.hash(data: $0)) }
        case .md5:
            return iterate(salted, rounds: parameters.rounds ?? 1) { Data(Insecure.MD5.hash(data: $0)) }
        case .bcrypt, .emulatorFake:
            // Checked by `bcryptMatches` (the hash carries its own salt and cost) or compared as text in
            // `verify`; never derived here.
            throw FlintError.internalError
        }
    }

    /// Whether `password` gives the bcrypt string `hash` (`$2a$`, `$2b$` or `$2y$`, cost at most
    /// `maximumBcryptCost`). The hash is recomputed with the stored salt and compared in constant time.
    static func bcryptMatches(_ password: String, hash: Data) -> Bool {
        guard var stored = String(data: hash, encoding: .utf8), stored.utf8.count == 60, !password.utf8.contains(0) else {
            return false
        }
        // PHP's $2y$ is the same algorithm as $2b$.
        if stored.hasPrefix("$2y$") { stored = "$2b$" + stored.dropFirst(4) }
        let parts = stored.split(separator: "$", omittingEmptySubsequences: true)
        guard parts.count == 3, ["2a", "2b"].contains(parts[0]), let cost = Int(parts[1]),
              (4...maximumBcryptCost).contains(cost)
        else { return false }
        var output = [CChar](repeating: 0, count: Int(BCRYPT_HASHSPACE) + 1)
        guard c_hb_bcrypt_hashpass(password, stored, &output, Int(BCRYPT_HASHSPACE)) == 0 else { return false }
        let computed = output.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return constantTimeEquals(Data(computed), Data(stored.utf8))
    }

    /// Firebase's `SHA*` with `rounds`: the digest applied `rounds` times (at least once).
    private static func iterate(_ input: Data, rounds: Int, _ digest: (Data) -> Data) -> Data {
        var value = digest(input)
        for _ in 1..<max(rounds, 1) { value = digest(value) }
        return value
    }

    /// Standard or URL-safe base64, padded or not.
    static func bytes(_ text: String) -> Data? {
        if let data = Data(base64Encoded: text) { return data }
        let trimmed = text.replacingOccurrences(of: "=", with: "")
        return Base64URL.decode(trimmed.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_"))
    }

    /// An import's key (`sealedKey`), opened.
    func openKey(_ sealedKey: String, projectID: String) throws -> Data {
        try secrets.open(sealedKey, context: Self.keyContext(projectID))
    }

    private static func keyContext(_ projectID: String) -> String { "imported-password-key:\(projectID)" }
}
