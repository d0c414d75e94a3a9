import Crypto
import FlintWire
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Seals secrets at rest (signing keys, password-hash keys) with the master key: AES-256-GCM, with a
/// context string bound in as authenticated data so a sealed value cannot be moved to another slot.
public struct SecretBox: Sendable {
    private let key: SymmetricKey

    public init(masterKey: SymmetricKey) { self.key = masterKey }

    public func seal(_ secret: Data, context: String) throws -> String {
        let box = try AES.GCM.seal(secret, using: key, authenticating: Data(context.utf8))
        guard let combined = box.combined else { throw SecretBoxError.cannotSeal }
        return combined.base64EncodedString()
    }

    public func open(_ sealed: String, context: String) throws -> Data {
        guard let combined = Data(base64Encoded: sealed) else { throw SecretBoxError.wrongMasterKey }
        do {
            return try AES.GCM.open(AES.GCM.SealedBox(combined: combined), using: key, authenticating: Data(context.utf8))
        } catch {
            throw SecretBoxError.wrongMasterKey
        }
    }

    /// An HMAC-SHA256 of `message` under the master key and `context`: proof, checkable by every node
    /// sharing the key, that Flint made the message.
    public func tag(_ message: String, context: String) -> Data {
        Data(HMAC<SHA256>.authenticationCode(for: Data((context + "\u{0}" + message).utf8), using: key))
    }

    /// `value` as JSON, sealed under `context`, in base64url: an opaque token only nodes sharing the master
    /// key can read, and that cannot be altered or moved to another context.
    public func sealToken(_ value: some Encodable, context: String) throws -> String {
        let sealed = try seal(try JSONEncoder().encode(value), context: context)
        return Base64URL.encode(Data(base64Encoded: sealed) ?? Data())
    }

    /// The value inside a token `sealToken` made under `context`; nil for anything else.
    public func openToken<Value: Decodable>(_ token: some StringProtocol, as type: Value.Type, context: String) -> Value? {
        guard let bytes = Base64URL.decode(token),
              let opened = try? open(bytes.base64EncodedString(), context: context)
        else { return nil }
        return try? JSONDecoder().decode(type, from: opened)
    }

    /// Loads the master key from `FLINT_MASTER_KEY` (base64 of 32 bytes) or from `master.key` in the data
    /// directory, creating that file (mode 0600) on first start. Nodes sharing one PostgreSQL must share the key.
    ///
    /// The file is created with an exclusive create, so it is never overwritten (two processes starting at
    /// once both end up with the one that won), and a file that exists but cannot be read stops the server:
    /// a new key would make every sealed secret unreadable.
    public static func loadMasterKey(environment: [String: String], dataDirectory: URL, random: RandomSource) throws -> SymmetricKey {
        if let encoded = environment["FLINT_MASTER_KEY"], !encoded.isEmpty {
            guard let bytes = Data(base64Encoded: encoded), bytes.count == 32 else { throw SecretBoxError.invalidMasterKey }
            return SymmetricKey(data: bytes)
        }
        let file = dataDirectory.appendingPathComponent("master.key")
        try FileManager.default.createDirectory(
            at: dataDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let bytes = Data(random.bytes(32))
        #if canImport(Glibc)
        let descriptor = Glibc.open(file.path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        #else
        let descriptor = Darwin.open(file.path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        #endif
        guard descriptor >= 0 else {
            guard errno == EEXIST else { throw SecretBoxError.cannotWriteMasterKey(file.path) }
            return try readMasterKey(file)
        }
        let text = Array(bytes.base64EncodedString().utf8)
        let written = text.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        let synced = fsync(descriptor) == 0
        close(descriptor)
        guard written == text.count, synced else { throw SecretBoxError.cannotWriteMasterKey(file.path) }
        return SymmetricKey(data: bytes)
    }

    private static func readMasterKey(_ file: URL) throws -> SymmetricKey {
        guard let text = try? String(contentsOf: file, encoding: .utf8) else { throw SecretBoxError.unreadableMasterKey(file.path) }
        guard let bytes = Data(base64Encoded: text.trimmingCharacters(in: .whitespacesAndNewlines)), bytes.count == 32
        else { throw SecretBoxError.invalidMasterKey }
        return SymmetricKey(data: bytes)
    }
}

public enum SecretBoxError: Error, CustomStringConvertible {
    case cannotSeal
    case wrongMasterKey
    case invalidMasterKey
    case cannotWriteMasterKey(String)
    case unreadableMasterKey(String)

    public var description: String {
        switch self {
        case .cannotSeal: "could not seal a secret"
        case .wrongMasterKey:
            "a stored secret does not open with this master key (nodes sharing a database must share FLINT_MASTER_KEY)"
        case .invalidMasterKey: "the master key must be base64 of exactly 32 bytes"
        case .cannotWriteMasterKey(let path): "cannot write the master key file \(path)"
        case .unreadableMasterKey(let path):
            "cannot read the master key file \(path); fix its permissions (a new key would lock every stored secret away)"
        }
    }
}
