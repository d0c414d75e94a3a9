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
        var text = ""
        switch format {
        case .json:
            for user in users {
                if written > 0 || !text.isEmpty { text += ",\n" }
                // JSON strings hold no raw line breaks, so indenting each line of a user's text is safe.
                let object = String(decoding: try Output.jsonData(user), as: UTF8.self)
                text += object.split(separator: "\n", omittingEmptySubsequences: false).map { $0.isEmpty ? "" : "    " + $0 }
                    .joined(separator: "\n")
            }
        case .csv:
            text = ExportCSV.encode(users.map(ExportCSV.row))
        }
        try handle.write(contentsOf: Data(text.utf8))
        written += users.count
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
