import Foundation

/// Reads a user file of `firebase auth:export`'s (JSON or CSV) a batch at a time, so that an import holds a few
/// batches in memory, not the file and every user in it (`flint users export` of a million users: 580 MB of JSON).
///
/// The file is read twice: `count()` checks the whole file's form and counts its users before anything is imported,
/// then `nextBatch` hands out the users. A batch's entries are decoded by `UserFileBatch.entries()`, away from the
/// reader, so that several batches decode at once.
struct UserFileReader {
    private let path: String
    private let format: UserFileFormat
    private var source: Source?
    private var handedOut = 0

    private enum Source {
        case json(JSONArrayElements)
        case csv(CSVRowChunks, pending: [[String]])
    }

    init(path: String, format: UserFileFormat) {
        self.path = path
        self.format = format
    }

    /// How many users the file holds. Refuses, before anything is imported: a JSON file that is not an object with a
    /// `users` array (its brackets, braces and strings are checked, not every value), or a CSV file with rows that are
    /// not users.
    func count() throws -> Int {
        switch format {
        case .json:
            var elements = try JSONArrayElements(path: path, key: "users")
            var count = 0
            while try elements.next() != nil { count += 1 }
            return count
        case .csv:
            var chunks = try CSVRowChunks(path: path)
            var (users, others) = (0, 0)
            while let rows = try chunks.next() {
                for row in rows {
                    if ExportCSV.user(row) == nil { others += 1 } else { users += 1 }
                }
            }
            guard others == 0 else {
                throw UserFileError("\(path): \(others) rows are not users (\(ExportCSV.columnCount) columns, a uid first).")
            }
            return users
        }
    }

    /// The next `size` entries (fewer at the end), or nil after the last.
    mutating func nextBatch(_ size: Int) throws -> UserFileBatch? {
        if source == nil {
            source = switch format {
            case .json: .json(try JSONArrayElements(path: path, key: "users"))
            case .csv: .csv(try CSVRowChunks(path: path), pending: [])
            }
        }
        let content: UserFileBatch.Content
        switch source {
        case .json(var elements):
            var batch: [ArraySlice<UInt8>] = []
            while batch.count < size, let element = try elements.next() { batch.append(element) }
            source = .json(elements)
            content = .json(batch)
        case .csv(var chunks, var pending):
            while pending.count < size, let rows = try chunks.next() { pending += rows }
            content = .csv(Array(pending.prefix(size)))
            source = .csv(chunks, pending: Array(pending.dropFirst(size)))
        case nil:
            preconditionFailure("the source is opened above")
        }
        guard content.count > 0 else { return nil }
        defer { handedOut += content.count }
        return UserFileBatch(firstIndex: handedOut, content: content)
    }
}

/// A user file that cannot be imported at all.
struct UserFileError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A batch of a user file's entries as read, not decoded yet.
struct UserFileBatch: Sendable {
    /// The position of the batch's first entry in the file's users.
    let firstIndex: Int
    fileprivate let content: Content

    fileprivate enum Content: Sendable {
        case json([ArraySlice<UInt8>])
        case csv([[String]])

        var count: Int {
            switch self {
            case .json(let elements): elements.count
            case .csv(let rows): rows.count
            }
        }
    }

    var count: Int { content.count }

    /// Each entry as a user, or why it is not one (an entry of a JSON file that does not decode, e.g. a `localId` that
    /// is a number; CSV rows were all checked by `count()`).
    func entries() -> [Result<ExportedUser, UserFileError>] {
        switch content {
        case .json(let elements):
            // One decoding of the whole batch; only a batch with a bad entry is decoded entry by entry.
            var joined: [UInt8] = [UInt8(ascii: "[")]
            for (position, element) in elements.enumerated() {
                if position > 0 { joined.append(UInt8(ascii: ",")) }
                joined += element
            }
            joined.append(UInt8(ascii: "]"))
            if let users = try? JSONDecoder().decode([ExportedUser].self, from: Data(joined)) {
                return users.map { .success($0) }
            }
            return elements.map { element in
                Result { try JSONDecoder().decode(ExportedUser.self, from: Data(element)) }
                    .mapError { UserFileError(Self.explanation(of: $0)) }
            }
        case .csv(let rows):
            return rows.map { row in
                ExportCSV.user(row).map { .success($0) } ?? .failure(UserFileError("not a user (\(ExportCSV.columnCount) columns, a uid first)"))
            }
        }
    }

    /// A decoding error in a line: where in the entry, and what.
    private static func explanation(of error: any Error) -> String {
        func kind(_ type: Any.Type) -> String {
            switch type {
            case is String.Type: "a string"
            case is Bool.Type: "true or false"
            case is [String: Any].Type: "an object"
            case is [Any].Type: "an array"
            default: "a \(type)"
            }
        }
        func place(_ path: [any CodingKey]) -> String {
            path.isEmpty ? "the entry" : path.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
        }
        switch error as? DecodingError {
        case .keyNotFound(let key, let context)?: return "\(place(context.codingPath + [key])) is missing"
        case .typeMismatch(let type, let context)?: return "\(place(context.codingPath)) is not \(kind(type))"
        case .valueNotFound(_, let context)?: return "\(place(context.codingPath)) is null"
        case .dataCorrupted(let context)?: return "\(place(context.codingPath)) is not valid JSON: \(context.debugDescription)"
        default: return "\(error)"
        }
    }
}

/// A file's bytes, read a chunk at a time; the bytes from `keep` on stay in `bytes` across reads.
private struct FileChunks {
    private let handle: FileHandle
    private(set) var bytes: [UInt8] = []
    private var atEnd = false
    static let chunkSize = 1 << 20

    init(path: String) throws {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw UserFileError("\(path): cannot be read.") }
        self.handle = handle
    }

    /// Reads the next chunk after dropping the bytes before `keep`; returns how many were dropped (positions in
    /// `bytes` move down by that much), or nil at the end of the file.
    mutating func readMore(keeping keep: Int) throws -> Int? {
        guard !atEnd else { return nil }
        guard let chunk = try handle.read(upToCount: Self.chunkSize), !chunk.isEmpty else {
            atEnd = true
            try handle.close()
            return nil
        }
        bytes.removeFirst(keep)
        bytes += chunk
        return keep
    }
}

/// The raw bytes of each element of the array at `key` of a JSON file's top-level object, one after the other, found
/// by following strings, brackets and braces (not decoded). The rest of the object is skipped the same way, and a file
/// whose structure breaks (unclosed, mismatched, truncated, not an object, no such array) is refused with where.
struct JSONArrayElements {
    private var file: FileChunks
    private var position = 0
    /// Where the element being read starts: bytes from here on are kept across reads.
    private var mark: Int?
    private var state = State.start
    /// Bytes dropped from the front of `file.bytes` so far: `consumed + position` is the offset in the file.
    private var consumed = 0
    private let path: String
    private let key: [UInt8]

    private enum State { case start, firstElement, nextElement, finished }

    init(path: String, key: String) throws {
        self.file = try FileChunks(path: path)
        self.path = path
        self.key = Array(key.utf8)
    }

    /// The next element's bytes, or nil after the last (the rest of the file checked).
    mutating func next() throws -> ArraySlice<UInt8>? {
        switch state {
        case .start:
            try findArray()
            state = .firstElement
            return try next()
        case .firstElement, .nextElement:
            var byte = try nonSpace()
            if byte == UInt8(ascii: "]") {
                try finishObject()
                state = .finished
                return nil
            }
            if state == .nextElement {
                guard byte == UInt8(ascii: ",") else { throw malformed("a comma or ] after an element of \"\(keyName)\"") }
                byte = try nonSpace()
            }
            state = .nextElement
            mark = position - 1
            try skipValue(startingWith: byte)
            defer { mark = nil }
            return file.bytes[mark!..<position]
        case .finished:
            return nil
        }
    }

    private var keyName: String { String(decoding: key, as: UTF8.self) }

    /// Reads the top-level object up to the `[` of the array at `key`.
    private mutating func findArray() throws {
        guard try nonSpace() == UInt8(ascii: "{") else { throw malformed("a JSON object") }
        var first = true
        while let name = try nextMemberName(first: first) {
            first = false
            let value = try nonSpace()
            if name == key {
                guard value == UInt8(ascii: "[") else { throw UserFileError("\(path): \"\(keyName)\" is not an array.") }
                return
            }
            try skipValue(startingWith: value)
        }
        throw UserFileError("\(path): has no \"\(keyName)\" array.")
    }

    /// After the array: the object's other members, its `}`, then nothing but white space.
    private mutating func finishObject() throws {
        while try nextMemberName(first: false) != nil {
            try skipValue(startingWith: try nonSpace())
        }
        while let byte = try nextByte() {
            guard Self.isSpace(byte) else { throw malformed("the end of the file after the object") }
        }
    }

    /// Reads up to the next member's value inside an object: the comma before it (unless it is the `first`), its
    /// name and the colon; returns the name, or nil at the object's `}`.
    private mutating func nextMemberName(first: Bool) throws -> [UInt8]? {
        var byte = try nonSpace()
        if byte == UInt8(ascii: "}") { return nil }
        if !first {
            guard byte == UInt8(ascii: ",") else { throw malformed("a comma or } between members") }
            byte = try nonSpace()
        }
        guard byte == UInt8(ascii: "\"") else { throw malformed("a member's name") }
        let nameStart = position
        try skipString()
        let name = Array(file.bytes[nameStart..<position - 1])
        guard try nonSpace() == UInt8(ascii: ":") else { throw malformed("a colon after a member's name") }
        return name
    }

    /// Skips a value whose first byte was just read: a string, an object or array with all it holds, or a scalar
    /// (whose spelling is left to the decoder).
    private mutating func skipValue(startingWith first: UInt8) throws {
        switch first {
        case UInt8(ascii: "\""):
            try skipString()
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            var open: [UInt8] = [first]
            while let top = open.last {
                guard let byte = try nextByte() else { throw malformed("the end of a \(top == UInt8(ascii: "{") ? "object" : "array")") }
                switch byte {
                case UInt8(ascii: "\""): try skipString()
                case UInt8(ascii: "{"), UInt8(ascii: "["): open.append(byte)
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    guard byte == (top == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: "]")) else {
                        throw malformed("a matching \(top == UInt8(ascii: "{") ? "}" : "]")")
                    }
                    open.removeLast()
                default: break
                }
            }
        case UInt8(ascii: "}"), UInt8(ascii: "]"), UInt8(ascii: ","), UInt8(ascii: ":"):
            throw malformed("a value")
        default:
            // A number, true, false or null: up to the next delimiter.
            while let byte = try peekByte(), !Self.isSpace(byte), byte != UInt8(ascii: ","), byte != UInt8(ascii: "]"),
                  byte != UInt8(ascii: "}") {
                position += 1
            }
        }
    }

    /// Skips the rest of a string whose opening quote was read.
    private mutating func skipString() throws {
        while true {
            guard let byte = try nextByte() else { throw malformed("the end of a string") }
            if byte == UInt8(ascii: "\"") { return }
            if byte == UInt8(ascii: "\\"), try nextByte() == nil { throw malformed("the end of a string") }
        }
    }

    private mutating func nonSpace() throws -> UInt8 {
        while let byte = try nextByte() {
            if !Self.isSpace(byte) { return byte }
        }
        throw malformed("more JSON")
    }

    private mutating func nextByte() throws -> UInt8? {
        guard let byte = try peekByte() else { return nil }
        position += 1
        return byte
    }

    private mutating func peekByte() throws -> UInt8? {
        if position == file.bytes.count {
            guard let dropped = try file.readMore(keeping: mark ?? position) else { return nil }
            consumed += dropped
            position -= dropped
            mark = mark.map { $0 - dropped }
        }
        return file.bytes[position]
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") || byte == UInt8(ascii: "\t")
    }

    private func malformed(_ expected: String) -> UserFileError {
        UserFileError("\(path) is not a user file: expected \(expected) near byte \(consumed + position).")
    }
}

/// A CSV file's rows, a chunk of rows at a time: each chunk ends at a line break outside quotes, so no row is split.
/// Quotes are counted wherever they are; a stray quote inside an unquoted field (which Flint's and Firebase's exports
/// never write) only makes the chunk run on, to the end of the file at worst: more memory, the same rows.
struct CSVRowChunks {
    private var file: FileChunks
    /// Bytes of `file.bytes` before this were handed out.
    private var start = 0
    private var scanned = 0
    private var quoted = false

    init(path: String) throws {
        file = try FileChunks(path: path)
    }

    mutating func next() throws -> [[String]]? {
        while true {
            // The last unquoted line break in what is read so far ends this chunk.
            var end: Int?
            for index in scanned..<file.bytes.count {
                switch file.bytes[index] {
                case UInt8(ascii: "\""): quoted.toggle()
                case UInt8(ascii: "\n") where !quoted: end = index + 1
                default: break
                }
            }
            scanned = file.bytes.count
            if let end {
                // Quote parity after `end` is what was counted past it: rescan from there next time.
                let rows = ExportCSV.decode(String(decoding: file.bytes[start..<end], as: UTF8.self))
                start = end
                scanned = end
                quoted = false
                if !rows.isEmpty { return rows }
                continue
            }
            guard let dropped = try file.readMore(keeping: start) else {
                defer { start = file.bytes.count }
                return start < file.bytes.count ? ExportCSV.decode(String(decoding: file.bytes[start...], as: UTF8.self)) : nil
            }
            start -= dropped
            scanned -= dropped
        }
    }
}
