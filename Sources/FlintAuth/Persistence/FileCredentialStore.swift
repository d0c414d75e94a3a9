import Foundation
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Keeps each item in a JSON file `<key>.json` of one directory: the default store on platforms
/// without a Keychain.
///
/// The directory is created with permissions 0700 and each file with 0600. Files are replaced
/// atomically (written to a temporary file, flushed, then renamed), so a crash never leaves a
/// half-written session behind.
public struct FileCredentialStore: AuthCredentialStore {
    /// The directory holding the files.
    public let directory: URL

    /// A store in `directory`, created on first save. See `defaultDirectory(appIdentifier:)`.
    public init(directory: URL) {
        self.directory = directory
    }

    /// `$XDG_DATA_HOME/<appIdentifier>/firebase-auth`, or `~/.local/share/<appIdentifier>/firebase-auth`
    /// when `XDG_DATA_HOME` is unset or relative (as the XDG spec requires).
    public static func defaultDirectory(appIdentifier: String) -> URL {
        let dataHome: URL
        if let xdg = ProcessInfo.processInfo.environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
            dataHome = URL(fileURLWithPath: xdg, isDirectory: true)
        } else {
            dataHome = URL(fileURLWithPath: NSHomeDirectory(), isDirectory: true).appendingPathComponent(".local/share")
        }
        return dataHome
            .appendingPathComponent(fileName(appIdentifier), isDirectory: true)
            .appendingPathComponent("firebase-auth", isDirectory: true)
    }

    /// The file of `key`.
    public func fileURL(forKey key: String) -> URL {
        directory.appendingPathComponent(Self.fileName(key) + ".json")
    }

    public func loadData(forKey key: String) throws -> Data? {
        let url = fileURL(forKey: key)
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        return try Data(contentsOf: url)
    }

    public func saveData(_ data: Data, forKey key: String) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: directory.path)
        let target = fileURL(forKey: key)
        let temporary = directory.appendingPathComponent(".\(target.lastPathComponent).\(UUID().uuidString).tmp")
        do {
            try Self.writeNewFile(data, at: temporary.path)
            guard rename(temporary.path, target.path) == 0 else { throw Self.posixError() }
        } catch {
            unlink(temporary.path)
            throw error
        }
    }

    public func removeData(forKey key: String) throws {
        let url = fileURL(forKey: key)
        guard FileManager.default.fileExists(atPath: url.path) else { return }
        try FileManager.default.removeItem(at: url)
    }

    /// Creates `path` (which must not exist) with permissions 0600 and writes `data` durably.
    private static func writeNewFile(_ data: Data, at path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw posixError() }
        defer { close(descriptor) }
        try data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
            var offset = 0
            while offset < buffer.count {
                let written = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    throw posixError()
                }
                offset += written
            }
        }
        guard fsync(descriptor) == 0 else { throw posixError() }
    }

    private static func posixError() -> NSError {
        NSError(domain: NSPOSIXErrorDomain, code: Int(errno))
    }

    /// `name` made safe as a single path component.
    private static func fileName(_ name: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-_.")
        return name.addingPercentEncoding(withAllowedCharacters: allowed) ?? name
    }
}
