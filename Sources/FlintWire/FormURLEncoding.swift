import Foundation

/// Percent-encoding of form bodies (Twilio, siteverify, Apple, OAuth grants) and of query strings (emailed links),
/// and decoding of the forms clients send (`securetoken` bodies, `signInWithIdp` `postBody`).
public enum FormURLEncoding {
    /// The characters left as they are (RFC 3986 unreserved); every other byte of the UTF-8 text is
    /// percent-encoded, so `+` is sent as `%2B` and a space as `%20`, never as a bare `+`.
    private static let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)
    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    /// `name=value&…` in the order given.
    public static func encode(_ fields: [(String, String)]) -> String {
        fields.map { "\(escape($0.0))=\(escape($0.1))" }.joined(separator: "&")
    }

    /// Percent-encodes every byte outside the unreserved set.
    public static func escape(_ text: String) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            if unreserved.contains(byte) {
                output.append(byte)
            } else {
                output.append(UInt8(ascii: "%"))
                output.append(hexDigits[Int(byte >> 4)])
                output.append(hexDigits[Int(byte & 0x0F)])
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// The fields of `name=value&…` in order; `+` is a space, percent escapes are decoded (a malformed
    /// escape leaves the text as it is). Pairs without `=` are dropped.
    public static func decode(_ form: some StringProtocol) -> [(String, String)] {
        form.split(separator: "&").compactMap { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map { part in
                let text = part.replacingOccurrences(of: "+", with: " ")
                return text.removingPercentEncoding ?? text
            }
            return parts.count == 2 ? (parts[0], parts[1]) : nil
        }
    }
}
