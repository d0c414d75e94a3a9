import FlintWire
import Foundation
import NIOPosix

/// The password rules every feature that sets or checks a password shares (accounts, action codes): a new password
/// meets Firebase's rule and the project's enforced policy and is hashed with the project's scrypt and a fresh salt;
/// a stored one is checked the way it was made (the project's scrypt, or the algorithm it was imported with).
struct PasswordRules: Sendable {
    let hasher: PasswordHasher
    /// Checks passwords imported with other hash algorithms.
    let imported: ImportedPasswords
    let clock: any FlintClock
    let random: any RandomSource
    /// Whether the official emulator's fake hashes stay as imported (`ModePolicy.acceptsEmulatorFakePasswordHashes`).
    let keepsEmulatorFakeHashes: Bool

    init(core: ServerCore) {
        hasher = PasswordHasher()
        imported = ImportedPasswords(secrets: core.secrets, threadPool: .singleton)
        clock = core.clock
        random = core.random
        keepsEmulatorFakeHashes = core.policy.acceptsEmulatorFakePasswordHashes
    }

    /// The credential for a password an end user (or an admin, who is not held to the policy) sets.
    func newPassword(_ password: String?, by caller: Caller) async throws -> StoredPassword {
        try await stored(try Validation.newPassword(password, by: caller), project: caller.project)
    }

    /// A password credential for `password`, hashed with the project's scrypt and a fresh salt.
    func stored(_ password: String, project: Project) async throws -> StoredPassword {
        let salt = Data(random.bytes(12))
        let hash = try await hasher.hash(password: password, salt: salt, project: project)
        return StoredPassword(hash: hash.base64EncodedString(), salt: salt.base64EncodedString(), updatedAt: clock.milliseconds)
    }

    /// Checks a password against the user's hash: the project's scrypt, or how an imported hash was made.
    func matches(_ password: String, hash: String, salt: String, of user: UserAccount, project: Project) async throws -> Bool {
        if let importedHash = user.importedPasswordHash {
            return try await imported.verify(password: password, hash: hash, salt: salt, parameters: importedHash,
                                             projectID: project.id)
        }
        return try await hasher.verify(password: password, hash: hash, salt: salt, project: project)
    }

    /// What a sign-in with the right `password` stores in place of an imported hash: the project's own scrypt hash,
    /// now that the password is known; nil to keep the hash as it is (the project's own already, or an emulator fake
    /// hash where the mode keeps them, so an emulator data folder's seed comes back byte for byte).
    func rehashed(_ password: String, of user: UserAccount, project: Project) async throws -> StoredPassword? {
        guard let imported = user.importedPasswordHash, !(imported.algorithm == .emulatorFake && keepsEmulatorFakeHashes) else {
            return nil
        }
        return try await stored(password, project: project)
    }

    /// The work of a real check, spent on a password no account has (at most `PasswordHasher.maximumLength` bytes of
    /// it), so response times do not reveal which emails exist.
    func checkNothing(_ password: String, project: Project) async throws {
        let bounded = String(decoding: password.utf8.prefix(PasswordHasher.maximumLength), as: UTF8.self)
        _ = try await hasher.hash(password: bounded, salt: Data(random.bytes(12)), project: project)
    }
}
