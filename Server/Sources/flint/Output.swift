import Foundation

/// How the commands print: JSON for scripts, aligned tables and labelled lines for people, errors on stderr.
enum Output {
    /// Pretty-printed JSON with sorted keys, on stdout.
    static func json(_ value: some Encodable) throws {
        print(String(decoding: try jsonData(value), as: UTF8.self))
    }

    /// The same JSON as bytes, for files.
    static func jsonData(_ value: some Encodable) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(value)
    }

    /// A table whose columns are as wide as their widest cell.
    static func table(header: [String], rows: [[String]]) {
        let widths = header.indices.map { column in
            ([header] + rows).map { $0[column].count }.max() ?? 0
        }
        for row in [header] + rows {
            let cells = row.enumerated().map { column, cell in
                column == row.count - 1 ? cell : cell.padding(toLength: widths[column], withPad: " ", startingAt: 0)
            }
            print(cells.joined(separator: "  "))
        }
    }

    /// `label: value` lines with the values aligned; fields without a value are left out.
    static func fields(_ fields: [(label: String, value: String?)]) {
        let present = fields.compactMap { field in field.value.map { (field.label, $0) } }
        let width = (present.map(\.0.count).max() ?? 0) + 1
        for (label, value) in present {
            print("\(label):".padding(toLength: width, withPad: " ", startingAt: 0) + " " + value)
        }
    }

    /// A line on stderr, for errors and for notes that must not mix with the output.
    static func note(_ message: String) {
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }

    /// `Error: message` on stderr.
    static func error(_ message: String) {
        note("Error: \(message)")
    }

    /// Progress of a long job on stderr: a bar redrawn in place on a terminal, a line per step otherwise
    /// (logs and pipes get no control characters).
    struct Progress {
        let total: Int
        let noun: String
        let verb: String
        private let isTerminal = isatty(STDERR_FILENO) != 0

        init(total: Int, verb: String, noun: String) {
            self.total = total
            self.verb = verb
            self.noun = noun
        }

        func update(_ done: Int) {
            let text = "\(verb) \(done)/\(total) \(noun)"
            guard isTerminal else { return Output.note(text) }
            let width = 30
            let filled = total == 0 ? width : min(width, done * width / total)
            let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
            FileHandle.standardError.write(Data("\r[\(bar)] \(text)\(done >= total ? "\n" : "")".utf8))
        }
    }

    /// `2026-11-23T17:52:19Z` for epoch milliseconds given as a decimal string (as user records carry them).
    static func date(milliseconds: String?) -> String? {
        milliseconds.flatMap(Double.init).map { Date(timeIntervalSince1970: $0 / 1000).formatted(.iso8601) }
    }

    /// `2026-11-23T17:52:19Z` for epoch seconds given as a decimal string (`validSince`).
    static func date(seconds: String?) -> String? {
        seconds.flatMap(Double.init).map { Date(timeIntervalSince1970: $0).formatted(.iso8601) }
    }
}
