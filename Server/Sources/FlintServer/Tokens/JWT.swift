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
        guard token.utf8.count <= Self.maximumLength else { return nil }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3,
              let payload = Base64URL.decode(parts[1]),
              let signature = Base64URL.decode(parts[2])
        else { return nil }
        self.encodedHeader = parts[0]
        self.payload = payload
        self.signature = signature
        self.signingInput = token[token.startIndex..<parts[1].endIndex]
    }

    public func header() -> Header? {
        Base64URL.decode(encodedHeader).flatMap { try? JSONDecoder().decode(Header.self, from: $0) }
    }
}
