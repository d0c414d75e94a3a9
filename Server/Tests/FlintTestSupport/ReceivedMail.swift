import Foundation

/// A message `SMTPTestServer` accepted: the envelope, the raw message, and what a mail reader would show
/// (decoded subject, the text/plain and text/html parts decoded from base64 or quoted-printable).
public struct ReceivedMail: Sendable, Equatable {
    /// The envelope sender (MAIL FROM) and recipients (RCPT TO).
    public let from: String
    public let to: [String]
    /// The `Subject:` header, RFC 2047 encoded words decoded.
    public let subject: String
    /// The text/plain part (the whole body when the message is not multipart), decoded.
    public let text: String
    /// The text/html part, decoded, if there is one.
    public let html: String?
    /// The top-level headers (names lowercased, folded lines joined; the first of repeated names).
    public let headers: [String: String]
    /// The message as received, CRLF line endings.
    public let raw: String

    public init(from: String, to: [String], raw: String) {
        self.from = from
        self.to = to
        self.raw = raw
        let (headers, body) = MIMEParser.split(raw)
        self.headers = headers
        subject = MIMEParser.decodeEncodedWords(headers["subject"] ?? "")
        var text = ""
        var html: String?
        for part in MIMEParser.leafParts(headers: headers, body: body) {
            let type = part.headers["content-type"]?.lowercased() ?? "text/plain"
            let decoded = MIMEParser.decodeBody(part.body, encoding: part.headers["content-transfer-encoding"])
            if type.hasPrefix("text/html") { html = html ?? decoded } else if type.hasPrefix("text/plain"), text.isEmpty { text = decoded }
        }
        self.text = text
        self.html = html
    }

    /// A top-level header, by case-insensitive name.
    public func header(_ name: String) -> String? { headers[name.lowercased()] }
}

/// Just enough MIME to read what Flint sends.
enum MIMEParser {
    /// Headers (lowercased names, unfolded) and body of a message or part.
    static func split(_ message: String) -> (headers: [String: String], body: String) {
        let normalised = message.replacingOccurrences(of: "\r\n", with: "\n")
        let (head, body): (Substring, String) = if let end = normalised.range(of: "\n\n") {
            (normalised[..<end.lowerBound], String(normalised[end.upperBound...]))
        } else {
            (normalised[...], "")
        }
        var headers: [String: String] = [:]
        var current: (name: String, value: String)?
        func flush() {
            if let current, headers[current.name] == nil { headers[current.name] = current.value }
        }
        for line in head.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.first == " " || line.first == "\t", current != nil {
                current!.value += " " + line.trimmingCharacters(in: .whitespaces)
            } else if let colon = line.firstIndex(of: ":") {
                flush()
                current = (line[..<colon].lowercased(), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
            }
        }
        flush()
        return (headers, body)
    }

    /// The non-multipart parts, depth first.
    static func leafParts(headers: [String: String], body: String) -> [(headers: [String: String], body: String)] {
        let type = headers["content-type"] ?? "text/plain"
        guard type.lowercased().hasPrefix("multipart/"), let boundary = parameter("boundary", of: type) else {
            return [(headers, body)]
        }
        var parts: [(headers: [String: String], body: String)] = []
        let sections = body.components(separatedBy: "--\(boundary)")
        for section in sections.dropFirst() {
            if section.hasPrefix("--") { break }
            let trimmed = section.hasPrefix("\n") ? String(section.dropFirst()) : section
            let (partHeaders, partBody) = split(trimmed)
            parts += leafParts(headers: partHeaders, body: partBody)
        }
        return parts
    }

    /// A `name=value` or `name="value"` parameter of a header value.
    static func parameter(_ name: String, of value: String) -> String? {
        for piece in value.split(separator: ";").dropFirst() {
            let pair = piece.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if pair.count == 2, pair[0].lowercased() == name {
                return pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            }
        }
        return nil
    }

    /// A part body decoded per its Content-Transfer-Encoding (UTF-8 assumed), line endings `\n`.
    static func decodeBody(_ body: String, encoding: String?) -> String {
        switch encoding?.lowercased() {
        case "base64":
            let compact = body.filter { !$0.isWhitespace }
            let data = Data(base64Encoded: compact) ?? Data()
            return String(decoding: data, as: UTF8.self).replacingOccurrences(of: "\r\n", with: "\n")
        case "quoted-printable":
            return decodeQuotedPrintable(body, underscoreIsSpace: false)
        default:
            return body
        }
    }

    static func decodeQuotedPrintable(_ text: String, underscoreIsSpace: Bool) -> String {
        var bytes: [UInt8] = []
        let input = Array(text.replacingOccurrences(of: "=\n", with: "").utf8)
        var index = 0
        while index < input.count {
            let byte = input[index]
            if byte == UInt8(ascii: "="), index + 2 < input.count,
               let value = UInt8(String(decoding: input[(index + 1)...(index + 2)], as: UTF8.self), radix: 16) {
                bytes.append(value)
                index += 3
            } else {
                bytes.append(underscoreIsSpace && byte == UInt8(ascii: "_") ? UInt8(ascii: " ") : byte)
                index += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `=?UTF-8?B?…?=` and `=?UTF-8?Q?…?=` words decoded; whitespace between adjacent words dropped.
    static func decodeEncodedWords(_ value: String) -> String {
        guard let pattern = try? NSRegularExpression(pattern: #"=\?([^?]+)\?([bBqQ])\?([^?]*)\?=(\s+(?==\?))?"#) else { return value }
        var result = ""
        var last = value.startIndex
        for match in pattern.matches(in: value, range: NSRange(value.startIndex..., in: value)) {
            guard let whole = Range(match.range, in: value), let kind = Range(match.range(at: 2), in: value),
                  let payload = Range(match.range(at: 3), in: value) else { continue }
            result += value[last..<whole.lowerBound]
            if value[kind].lowercased() == "b" {
                result += String(decoding: Data(base64Encoded: String(value[payload])) ?? Data(), as: UTF8.self)
            } else {
                result += decodeQuotedPrintable(String(value[payload]), underscoreIsSpace: true)
            }
            last = whole.upperBound
        }
        return result + value[last...]
    }
}
