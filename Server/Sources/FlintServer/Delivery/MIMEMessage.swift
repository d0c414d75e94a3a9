import Foundation

/// An `EmailMessage` as an RFC 5322 / MIME document: UTF-8 throughout, non-ASCII header text as RFC 2047
/// encoded words, bodies in base64 (wrapped at 76 columns), CRLF line endings. `multipart/alternative`
/// (text, then HTML) when there is HTML, else `text/plain`.
public struct MIMEMessage: Sendable, Equatable {
    public var fromAddress: String
    public var fromName: String?
    public var to: String
    public var subject: String
    public var text: String
    public var html: String?
    public var date: Date
    /// Without angle brackets, e.g. `1234@flint.example`.
    public var messageID: String

    public init(fromAddress: String, fromName: String?, to: String, subject: String, text: String, html: String?,
                date: Date, messageID: String) {
        self.fromAddress = fromAddress
        self.fromName = fromName
        self.to = to
        self.subject = subject
        self.text = text
        self.html = html
        self.date = date
        self.messageID = messageID
    }

    /// The whole message, headers and body, with CRLF line endings (not yet dot-stuffed).
    /// Throws `DeliveryError.rejected` (status 0) when a header value contains CR, LF or NUL (header
    /// injection), or an address is not a plain `local@domain`.
    public func rendered(boundary: String = "flint-" + UUID().uuidString) throws -> String {
        for (name, value) in [("From", fromAddress), ("From name", fromName ?? ""), ("To", to), ("Subject", subject),
                              ("Message-ID", messageID)] {
            try Self.checkHeaderValue(value, name: name)
        }
        try Self.checkAddress(fromAddress, name: "From")
        try Self.checkAddress(to, name: "To")

        var lines: [String] = []
        if let fromName, !fromName.isEmpty {
            lines.append("From: \(Self.encodedDisplayName(fromName)) <\(fromAddress)>")
        } else {
            lines.append("From: \(fromAddress)")
        }
        lines.append("To: \(to)")
        lines.append("Subject: \(Self.encodedWords(subject))")
        lines.append("Date: \(Self.rfc5322Date(date))")
        lines.append("Message-ID: <\(messageID)>")
        lines.append("MIME-Version: 1.0")
        if let html {
            lines.append("Content-Type: multipart/alternative; boundary=\"\(boundary)\"")
            lines.append("")
            lines.append("--\(boundary)")
            lines.append(contentsOf: Self.part(text, type: "text/plain"))
            lines.append("--\(boundary)")
            lines.append(contentsOf: Self.part(html, type: "text/html"))
            lines.append("--\(boundary)--")
        } else {
            lines.append(contentsOf: Self.part(text, type: "text/plain"))
        }
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    /// A body part's headers, blank line and base64 body (normalised to CRLF first).
    private static func part(_ body: String, type: String) -> [String] {
        let normalised = body.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
            .replacingOccurrences(of: "\n", with: "\r\n")
        let encoded = Data(normalised.utf8).base64EncodedString(options: [.lineLength76Characters, .endLineWithCarriageReturn, .endLineWithLineFeed])
        return ["Content-Type: \(type); charset=UTF-8", "Content-Transfer-Encoding: base64", ""]
            + encoded.components(separatedBy: "\r\n")
    }

    /// Refuses CR, LF and NUL in a header value.
    static func checkHeaderValue(_ value: String, name: String) throws {
        if value.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" }) {
            throw DeliveryError.rejected(status: 0, detail: "\(name) contains a line break (header injection refused)")
        }
    }

    /// A plain `local@domain` address: no spaces, angle brackets, commas or control characters.
    static func checkAddress(_ address: String, name: String) throws {
        let forbidden = CharacterSet(charactersIn: "<>,;\"() \t").union(.controlCharacters)
        let parts = address.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty,
              address.unicodeScalars.allSatisfy({ !forbidden.contains($0) })
        else { throw DeliveryError.rejected(status: 0, detail: "\(name) is not a plain email address: \(address)") }
    }

    /// `text` as is when it is printable ASCII, else as `=?UTF-8?B?…?=` words of at most 75 characters,
    /// each holding whole characters.
    static func encodedWords(_ text: String) -> String {
        if text.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value < 0x7F }) { return text }
        var words: [String] = []
        var chunk = Data()
        for character in text {
            let bytes = Data(String(character).utf8)
            // 45 bytes of UTF-8 → 60 base64 characters, + 12 for the wrapper: under 75.
            if chunk.count + bytes.count > 45, !chunk.isEmpty {
                words.append("=?UTF-8?B?\(chunk.base64EncodedString())?=")
                chunk = Data()
            }
            chunk.append(bytes)
        }
        if !chunk.isEmpty { words.append("=?UTF-8?B?\(chunk.base64EncodedString())?=") }
        return words.joined(separator: "\r\n ")
    }

    /// A display name: encoded words when not ASCII, else a quoted string.
    static func encodedDisplayName(_ name: String) -> String {
        if name.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value < 0x7F }) {
            let escaped = name.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            return "\"\(escaped)\""
        }
        return encodedWords(name)
    }

    /// `Sun, 22 Nov 2026 07:58:37 +0000`.
    static func rfc5322Date(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss '+0000'"
        return formatter.string(from: date)
    }
}
