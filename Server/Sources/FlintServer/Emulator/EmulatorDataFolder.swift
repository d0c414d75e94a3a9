import FlintWire
import Foundation

/// The Auth part of the folder `firebase emulators:export` writes and `firebase emulators:start --import` reads:
///
///     firebase-export-metadata.json   {"version": …, "auth": {"version": …, "path": "auth_export"}, other emulators…}
///     auth_export/accounts.json       the project's users, as `accounts:batchGet?maxResults=-1` answers them
///     auth_export/accounts-<t>.json   each tenant's
///     auth_export/config.json         as `GET /emulator/v1/projects/{p}/config` answers
///
/// `read` checks every file and every entry before anything is loaded and throws the first fault, naming the file and
/// the entry; `write` replaces each file atomically and keeps the other emulators' entries of the metadata file.
public struct EmulatorDataFolder: Codable, Sendable, Equatable {
    /// One accounts file.
    public struct Accounts: Codable, Sendable, Equatable {
        /// Nil for the project's own users (`accounts.json`).
        public var tenantId: String?
        public var users: [UserRecord]

        /// The file's name in the auth folder.
        public var fileName: String { tenantId.map { "accounts-\($0).json" } ?? "accounts.json" }
    }

    /// The project's users first, then each tenant's.
    public var accounts: [Accounts]
    /// Nil when the folder has no `config.json` (the official emulator then skips it, as Flint does).
    public var config: EmulatorConfig?
    /// The auth folder, relative to the data folder: what faults name files by.
    public var authPath: String

    public init(accounts: [Accounts], config: EmulatorConfig?, authPath: String = defaultAuthPath) {
        self.accounts = accounts
        self.config = config
        self.authPath = authPath
    }

    static let metadataFileName = "firebase-export-metadata.json"
    public static let defaultAuthPath = "auth_export"
    static let configFileName = "config.json"

    // MARK: Reading

    /// Reads and checks the folder at `directory`: the auth folder the metadata names (else `auth_export`), every
    /// accounts file (each entry an object with a `localId` no other entry of the file has) and the config.
    public static func read(from directory: URL) throws -> EmulatorDataFolder {
        let authPath = try authPath(metadata: try metadata(in: directory, file: metadataFileName))
        let auth = directory.appendingPathComponent(authPath, isDirectory: true)
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: auth.path)
        } catch {
            throw EmulatorDataFault.unreadable(file: authPath, reason: "no such folder")
        }
        let accountFiles = names.filter { $0 == "accounts.json" || ($0.hasPrefix("accounts-") && $0.hasSuffix(".json")) }
            .sorted { ($0 == "accounts.json" ? "" : $0) < ($1 == "accounts.json" ? "" : $1) }
        let accounts = try accountFiles.map { name in
            let tenantID = name == "accounts.json" ? nil : String(name.dropFirst("accounts-".count).dropLast(".json".count))
            let file = "\(authPath)/\(name)"
            if let tenantID, !Realm.isValidTenantID(tenantID) { throw EmulatorDataFault.invalidTenantID(file: file, tenantID: tenantID) }
            return Accounts(tenantId: tenantID, users: try users(in: auth.appendingPathComponent(name), file: file))
        }
        let configFile = "\(authPath)/\(configFileName)"
        let config = try contents(of: auth.appendingPathComponent(configFileName), file: configFile).map { data in
            do {
                return try JSONDecoder().decode(EmulatorConfig.self, from: data)
            } catch {
                throw EmulatorDataFault.malformed(file: configFile, reason: Self.reason(error))
            }
        }
        return EmulatorDataFolder(accounts: accounts, config: config, authPath: authPath)
    }

    /// The users of one accounts file (`{"users": [...]}`; a file without `users` has none).
    private static func users(in url: URL, file: String) throws -> [UserRecord] {
        guard let data = try contents(of: url, file: file) else { return [] }
        let entries: [JSONValue]
        do {
            entries = try JSONDecoder().decode(AccountsBody.self, from: data).users ?? []
        } catch {
            throw EmulatorDataFault.malformed(file: file, reason: Self.reason(error))
        }
        var seen: [String: Int] = [:]
        return try entries.enumerated().map { index, entry in
            guard let fields = entry.objectValue else {
                throw EmulatorDataFault.entry(file: file, index: index, localID: nil, problem: "not an object")
            }
            guard let localID = fields["localId"]?.stringValue, !localID.isEmpty else {
                throw EmulatorDataFault.entry(file: file, index: index, localID: nil, problem: "localId is missing")
            }
            if let first = seen.updateValue(index, forKey: localID) {
                throw EmulatorDataFault.entry(file: file, index: index, localID: localID,
                                              problem: "the same localId as entry \(first)")
            }
            do {
                return try JSONDecoder().decode(UserRecord.self, from: try JSONEncoder().encode(entry))
            } catch {
                throw EmulatorDataFault.entry(file: file, index: index, localID: localID, problem: Self.reason(error))
            }
        }
    }

    private struct AccountsBody: Decodable {
        var users: [JSONValue]?
    }

    /// The metadata file's object, nil if there is none.
    private static func metadata(in directory: URL, file: String) throws -> [String: JSONValue]? {
        try contents(of: directory.appendingPathComponent(file), file: file).map { data in
            guard let object = (try? JSONDecoder().decode(JSONValue.self, from: data))?.objectValue else {
                throw EmulatorDataFault.malformed(file: file, reason: "not a JSON object")
            }
            return object
        }
    }

    /// The auth folder the metadata names, else `auth_export`; never one outside the data folder.
    private static func authPath(metadata: [String: JSONValue]?) throws -> String {
        guard let path = metadata?["auth"]?.objectValue?["path"]?.stringValue else { return defaultAuthPath }
        guard !path.isEmpty, !path.hasPrefix("/"), !path.split(separator: "/").contains("..") else {
            throw EmulatorDataFault.malformed(file: metadataFileName, reason: "auth.path must be a folder inside the data folder")
        }
        return path
    }

    /// A file's bytes, nil if it does not exist.
    private static func contents(of url: URL, file: String) throws -> Data? {
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        do {
            return try Data(contentsOf: url)
        } catch {
            throw EmulatorDataFault.unreadable(file: file, reason: error.localizedDescription)
        }
    }

    /// What a decoding error says: that the file is not JSON, or the path to the faulty value and what is wrong.
    private static func reason(_ error: any Error) -> String {
        let context: DecodingError.Context
        switch error {
        case DecodingError.dataCorrupted(let found), DecodingError.typeMismatch(_, let found),
             DecodingError.valueNotFound(_, let found), DecodingError.keyNotFound(_, let found):
            context = found
        default:
            return "\(error)"
        }
        let path = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
        if path.isEmpty, case DecodingError.dataCorrupted = error { return "not valid JSON" }
        return path.isEmpty ? context.debugDescription : "\(path): \(context.debugDescription)"
    }

    // MARK: Writing

    /// Writes the folder at `directory` (made if missing): every file through a temporary file renamed over the old
    /// one, accounts files of tenants no longer there removed, and the metadata file last, with its other emulators'
    /// entries kept.
    public func write(to directory: URL) throws {
        let metadataFile = directory.appendingPathComponent(Self.metadataFileName)
        var metadata = try Self.metadata(in: directory, file: Self.metadataFileName) ?? [:]
        let authPath = try Self.authPath(metadata: metadata)
        let auth = directory.appendingPathComponent(authPath, isDirectory: true)
        try FileManager.default.createDirectory(at: auth, withIntermediateDirectories: true)
        for file in accounts {
            try Self.write(BatchGetResponse(users: file.users, nextPageToken: nil), to: auth.appendingPathComponent(file.fileName))
        }
        let written = Set(accounts.map(\.fileName))
        for name in try FileManager.default.contentsOfDirectory(atPath: auth.path)
        where name.hasPrefix("accounts") && name.hasSuffix(".json") && !written.contains(name) {
            try FileManager.default.removeItem(at: auth.appendingPathComponent(name))
        }
        if let config { try Self.write(config, to: auth.appendingPathComponent(Self.configFileName)) }
        metadata["version"] = metadata["version"] ?? .string(Self.writerVersion)
        metadata["auth"] = ["version": .string(Self.writerVersion), "path": .string(authPath)]
        try Self.write(JSONValue.object(metadata), to: metadataFile)
    }

    /// What the metadata names as the writer's version (the official CLI writes its own).
    static let writerVersion = "flint"

    /// Pretty-printed with sorted keys, so a folder kept in version control changes only where its data does.
    private static func write(_ value: some Encodable, to url: URL) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        // `.atomic`: written to a temporary file in the same folder, then renamed over `url`.
        try (try encoder.encode(value) + Data("\n".utf8)).write(to: url, options: .atomic)
    }
}

/// The official emulator's own project settings (`GET/PATCH /emulator/v1/projects/{p}/config`, `config.json`).
public struct EmulatorConfig: Codable, Sendable, Equatable {
    public struct SignIn: Codable, Sendable, Equatable { public var allowDuplicateEmails: Bool? }
    public struct EmailPrivacy: Codable, Sendable, Equatable { public var enableImprovedEmailPrivacy: Bool? }
    public var signIn: SignIn?
    public var emailPrivacyConfig: EmailPrivacy?
}

/// Why a data folder was not loaded or written: the file (relative to the data folder) and, for one user, the entry.
public enum EmulatorDataFault: Error, Equatable, CustomStringConvertible {
    case unreadable(file: String, reason: String)
    case malformed(file: String, reason: String)
    case invalidTenantID(file: String, tenantID: String)
    /// One entry of an accounts file, by index (and `localId` where it has one).
    case entry(file: String, index: Int, localID: String?, problem: String)

    public var description: String {
        switch self {
        case .unreadable(let file, let reason): "\(file): cannot be read: \(reason)"
        case .malformed(let file, let reason): "\(file): \(reason)"
        case .invalidTenantID(let file, let tenantID): "\(file): \"\(tenantID)\" is not a tenant ID"
        case .entry(let file, let index, let localID, let problem):
            "\(file): users[\(index)]\(localID.map { " (localId \"\($0)\")" } ?? ""): \(problem)"
        }
    }
}
