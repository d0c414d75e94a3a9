import Crypto
import FlintWire
import Foundation

/// ES256 JWTs that Flint signs for outside services with a P-256 key: APNs provider tokens and Apple's
/// client secrets.
enum ES256 {
    private struct Header: Encodable {
        var alg = "ES256"
        var kid: String
    }

    /// `header.claims.signature`, with header `{alg: ES256, kid}`. JOSE wants the raw r || s signature.
    static func sign(kid: String, claims: some Encodable, key: P256.Signing.PrivateKey) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let signingInput = Base64URL.encode(try encoder.encode(Header(kid: kid))) + "." + Base64URL.encode(try encoder.encode(claims))
        let signature = try key.signature(for: Data(signingInput.utf8)).rawRepresentation
        return "\(signingInput).\(Base64URL.encode(signature))"
    }
}
