import Foundation

/// A compact JWS split into its parts. Parsing checks only the shape; signatures are checked by whoever
/// holds the key (`SigningKeyring.verify`).
public struct CompactJWT: Sendable {
    public struct Header: Codable, Sendable {
        public var alg: String
        public var kid: String?
        public var typ: String?
    }

    public let header: Header
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
              let headerData = Base64URL.decode(parts[0]),
              let header = try? JSONDecoder().decode(Header.self, from: headerData),
              let payload = Base64URL.decode(parts[1]),
              let signature = Base64URL.decode(parts[2])
        else { return nil }
        self.header = header
        self.payload = payload
        self.signature = signature
        self.signingInput = token[token.startIndex..<parts[1].endIndex]
    }
}
