import FlintWire
import Foundation

/// Password hashes in a form that says how they were made, so an emulator data folder (`EmulatorDataFolder`) carries
/// them to another Flint (another master key, another project key) and back, in an import without a `hashAlgorithm`:
///
///     flintHash:algorithm=SCRYPT:signerKey=…:saltSeparator=Bw==:rounds=8:memoryCost=14:hash=…
///
/// beside the user's base64 `salt`, as the official emulator's own `fakeHash:salt=…:password=…` names its salt and
/// password (which stays as it is). The parameters are those of `accounts:batchCreate` (base64 values, which hold no
/// `:`), so the import checks them as it checks a request's. The password itself is never in it: a hash of Flint's
/// stays a scrypt hash at rest and in the file; the official emulator loads such an entry but cannot check it.
extension PasswordRules {
    private static let portablePrefix = "flintHash:"

    /// The user's password hash as a data folder carries it (nil without a password): an emulator fake hash as it
    /// is, any other with the parameters it was made with (the project's own scrypt, or an import's).
    func portableHash(of user: UserAccount, project: Project) throws -> String? {
        guard let hash = user.passwordHash else { return nil }
        guard let imported = user.importedPasswordHash else {
            let own = project.settings.passwordHash
            return Self.portable([
                ("algorithm", ImportedPasswordHash.Algorithm.firebaseScrypt.rawValue),
                ("signerKey", project.signerKey.base64EncodedString()), ("saltSeparator", own.saltSeparator),
                ("rounds", String(own.rounds)), ("memoryCost", String(own.memoryCost)), ("hash", hash),
            ])
        }
        if imported.algorithm == .emulatorFake { return hash }
        let key = try imported.sealedKey.map { try self.imported.openKey($0, projectID: user.projectID) }
        let fields: [(String, String?)] = [
            ("algorithm", imported.algorithm.rawValue), ("signerKey", key?.base64EncodedString()),
            ("saltSeparator", imported.saltSeparator), ("rounds", imported.rounds.map(String.init)),
            ("memoryCost", imported.memoryCost.map(String.init)), ("cpuMemCost", imported.cpuMemCost.map(String.init)),
            ("blockSize", imported.blockSize.map(String.init)), ("parallelization", imported.parallelization.map(String.init)),
            ("dkLen", imported.dkLen.map(String.init)), ("passwordHashOrder", imported.passwordFirst ? "PASSWORD_AND_SALT" : nil),
            ("hash", hash),
        ]
        return Self.portable(fields.compactMap { name, value in value.map { (name, $0) } })
    }

    private static func portable(_ fields: [(String, String)]) -> String {
        portablePrefix + fields.map { "\($0)=\($1)" }.joined(separator: ":")
    }

    /// The credential an import entry's hash stands for when it names how it was made (nil for any other hash): an
    /// emulator fake hash, kept as it is, or a `flintHash:` one, checked as a request's parameters are. One made with
    /// `project`'s own scrypt is stored as the project's own; any other stays an import until the first sign-in.
    func portablePassword(_ hash: String, salt: String?, project: Project, updatedAt: Int64) throws -> StoredPassword? {
        if let fake = ImportedPasswords.emulatorFakePassword(hash, salt: salt, updatedAt: updatedAt) { return fake }
        guard hash.hasPrefix(Self.portablePrefix) else { return nil }
        var fields: [String: String] = [:]
        for field in hash.dropFirst(Self.portablePrefix.count).split(separator: ":") {
            let parts = field.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, fields.updateValue(String(parts[1]), forKey: String(parts[0])) == nil else {
                throw FlintError(.invalidArgument, "passwordHash: \(Self.portablePrefix) field \(field)")
            }
        }
        func number(_ name: String) throws -> Int? {
            try fields[name].map { text in
                guard let value = Int(text) else { throw FlintError(.invalidArgument, "passwordHash: \(name) is not a number") }
                return value
            }
        }
        var request = BatchCreateRequest(users: [], hashAlgorithm: fields["algorithm"])
        request.signerKey = fields["signerKey"]
        request.saltSeparator = fields["saltSeparator"]
        request.rounds = try number("rounds")
        request.memoryCost = try number("memoryCost")
        request.cpuMemCost = try number("cpuMemCost")
        request.blockSize = try number("blockSize")
        request.parallelization = try number("parallelization")
        request.dkLen = try number("dkLen")
        request.passwordHashOrder = fields["passwordHashOrder"]
        let parameters = try imported.parameters(of: request, projectID: project.id)
        guard let hashBytes = fields["hash"].flatMap(ImportedPasswords.bytes) else {
            throw FlintError(.invalidArgument, "passwordHash: \(Self.portablePrefix) needs a base64 hash")
        }
        guard let saltBytes = ImportedPasswords.bytes(salt ?? "") else { throw FlintError(.invalidArgument, "salt is not base64") }
        let own = project.settings.passwordHash
        let isOwn = parameters.algorithm == .firebaseScrypt && request.signerKey.flatMap(ImportedPasswords.bytes) == project.signerKey
            && request.saltSeparator.flatMap(ImportedPasswords.bytes) == Data(base64Encoded: own.saltSeparator)
            && request.rounds == own.rounds && request.memoryCost == own.memoryCost
        return StoredPassword(hash: hashBytes.base64EncodedString(), salt: saltBytes.base64EncodedString(), updatedAt: updatedAt,
                              imported: isOwn ? nil : parameters)
    }
}
