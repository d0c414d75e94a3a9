import FlintWire
import Foundation

/// A compact JWS, split and decoded but not verified: `header.payload.signature`, each base64url.
struct JWT: Sendable {
    struct Header: Decodable, Sendable {
        var alg: String?
        var kid: String?
        var typ: String?
    }

    let header: Header
    /// Every claim, as JSON.
    let claims: [String: JSONValue]
    /// What the signature covers: the first two segments as they came.
    let signingInput: Data
    let signature: Data

    /// Nil unless `token` is three base64url segments whose first two are JSON objects.
    init?(_ token: String) {
        let segments = token.split(separator: ".", omittingEmptySubsequences: false)
        guard segments.count == 3,
              let headerBytes = Base64URL.decode(segments[0]), let payloadBytes = Base64URL.decode(segments[1]),
              let signature = Base64URL.decode(segments[2]),
              let header = try? JSONDecoder().decode(Header.self, from: headerBytes),
              case .object(let claims)? = try? JSONDecoder().decode(JSONValue.self, from: payloadBytes)
        else { return nil }
        self.header = header
        self.claims = claims
        signingInput = Data(token.utf8.prefix(segments[0].utf8.count + 1 + segments[1].utf8.count))
        self.signature = signature
    }

    /// A JWT signed RS256 with `key` (`kid` in its header when given), or unsigned (`alg: none`) without a key, as
    /// the emulators take custom tokens.
    static func encode(_ claims: [String: JSONValue], kid: String?, signingWith key: RSAPrivateKey?) throws -> String {
        var header: [String: JSONValue] = ["alg": .string(key == nil ? "none" : "RS256"), "typ": "JWT"]
        if let kid { header["kid"] = .string(kid) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let input = Base64URL.encode(try encoder.encode(JSONValue.object(header))) + "."
            + Base64URL.encode(try encoder.encode(JSONValue.object(claims)))
        guard let key else { return input + "." }
        return input + "." + Base64URL.encode(try key.signature(for: Data(input.utf8)))
    }
}
