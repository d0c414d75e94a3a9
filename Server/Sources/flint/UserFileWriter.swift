import Foundation

/// Writes a user file of `firebase auth:export`'s form (JSON or CSV) a page of users at a time, so that an export holds
/// one page in memory, not every user and the whole text. The text goes to a hidden file beside the target, which
/// takes the target's name only when `finish()` is called: a failed export leaves the old file (or none) in place.
struct UserFileWriter {
    private let target: URL
    private let partial: URL
    private let format: UserFileFormat
    private let handle: FileHandle
    private var written = 0

    init(path: String, format: UserFileFormat) throws {
        target = URL(fileURLWithPath: path)
        partial = target.deletingLastPathComponent()
            .appendingPathComponent(".\(target.lastPathComponent).\(ProcessInfo.processInfo.processIdentifier).partial")
        self.format = format
        guard FileManager.default.createFile(atPath: partial.path, contents: nil) else {
            throw UserFileError("\(path): cannot be written.")
        }
        handle = try FileHandle(forWritingTo: partial)
        // The layout JSONEncoder's pretty printing gives the whole file, written in pieces.
        if format == .json { try handle.write(contentsOf: Data("{\n  \"users\" : [\n".utf8)) }
    }

    /// Appends the users.
    mutating func write(_ users: [ExportedUser]) throws {
        guard !users.isEmpty else { return }
        let bytes = switch format {
        case .json: try Self.members(users, first: written == 0)
        case .csv: Data(ExportCSV.encode(users.map(ExportCSV.row)).utf8)
        }
        try handle.write(contentsOf: bytes)
        written += users.count
    }

    /// The users as the file's array holds them: the page encoded as one pretty-printed array, its brackets dropped
    /// and its lines indented one level more (JSON strings hold no raw line breaks; blank lines stay blank). A
    /// comma and line break first, unless they are the array's first.
    private static func members(_ users: [ExportedUser], first: Bool) throws -> Data {
        let array = try Output.jsonData(users)
        // "[\n" … "\n]": the lines between.
        let inner = array.dropFirst(2).dropLast(2)
        var bytes: [UInt8] = first ? [] : Array(",\n".utf8)
        bytes.reserveCapacity(inner.count + inner.count / 8)
        var lineStart = true
        for byte in inner {
            if lineStart && byte != UInt8(ascii: "\n") { bytes += [UInt8(ascii: " "), UInt8(ascii: " ")] }
            bytes.append(byte)
            lineStart = byte == UInt8(ascii: "\n")
        }
        return Data(bytes)
    }

    /// Ends the file and gives it the target's name.
    func finish() throws {
        if format == .json { try handle.write(contentsOf: Data("\n  ]\n}".utf8)) }
        try handle.close()
        guard rename(partial.path, target.path) == 0 else {
            throw UserFileError("\(target.path): cannot be written (\(String(cString: strerror(errno)))).")
        }
    }

    /// Removes what was written, after a failure.
    func discard() {
        try? handle.close()
        try? FileManager.default.removeItem(at: partial)
    }
}
