import FlintWire
import Foundation

/// A compact JWS split into its parts. Parsing checks only the shape; signatures are checked by whoever
/// holds the key (`SigningKeyring.verify`). The header is decoded only when asked for, since a verifier
/// that recognises the exact header bytes it issued does not need to.
public struct CompactJWT: Sendable {
    public struct Header: Codable, Sendable {
        public var alg: String
        public var kid: String?
        public var typ: String?
    }

    /// The header segment as sent (base64url).
    public let encodedHeader: Substring
    /// The decoded claims JSON.
    public let payload: Data
    public let signature: Data
    /// `base64url(header) + "." + base64url(payload)`: the bytes the signature covers.
    public let signingInput: Substring

    /// Tokens larger than this are refused before any decoding work.
    public static let maximumLength = 16 * 1024

    public init?(_ token: String) {
        guard token.utf8.count <= Self.maximumLength, let parts = Self.segments(of: token),
              let payload = Base64URL.decode(parts.payload),
              let signature = Base64URL.decode(parts.signature)
        else { return nil }
        self.encodedHeader = parts.header
        self.payload = payload
        self.signature = signature
        self.signingInput = token[token.startIndex..<parts.payload.endIndex]
    }

    /// A compact JWS's three dot-separated segments, found on its UTF-8 bytes (`split` walks Characters, which cost
    /// several percent of a lookup's CPU on a 1 KB token); nil unless there are exactly three.
    static func segments(of token: String) -> (header: Substring, payload: Substring, signature: Substring)? {
        let utf8 = token.utf8
        guard let firstDot = utf8.firstIndex(of: UInt8(ascii: ".")),
              let secondDot = utf8[utf8.index(after: firstDot)...].firstIndex(of: UInt8(ascii: ".")),
              !utf8[utf8.index(after: secondDot)...].contains(UInt8(ascii: "."))
        else { return nil }
        return (Substring(utf8[..<firstDot]), Substring(utf8[utf8.index(after: firstDot)..<secondDot]),
                Substring(utf8[utf8.index(after: secondDot)...]))
    }

    public func header() -> Header? {
        Base64URL.decode(encodedHeader).flatMap { try? JSONDecoder().decode(Header.self, from: $0) }
    }
}
