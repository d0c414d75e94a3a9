import Foundation

/// The little DER that RS256 keys need: writing a PKCS#1 `RSAPublicKey` from a JWK's `n` and `e`, and reading the
/// PKCS#1 `RSAPrivateKey` out of a PKCS#8 `PrivateKeyInfo` (Security takes PKCS#1 keys only).
enum DER {
    static let sequenceTag: UInt8 = 0x30
    static let integerTag: UInt8 = 0x02
    static let octetStringTag: UInt8 = 0x04

    /// `RSAPublicKey ::= SEQUENCE { modulus INTEGER, publicExponent INTEGER }` (RFC 8017 A.1.1), both unsigned.
    static func rsaPublicKey(modulus: Data, exponent: Data) -> Data {
        element(sequenceTag, unsignedInteger(modulus) + unsignedInteger(exponent))
    }

    /// A positive INTEGER: leading zeros dropped, one zero put back where the top bit would read as a sign.
    static func unsignedInteger(_ bytes: Data) -> Data {
        var magnitude = Data(bytes.drop { $0 == 0 })
        if magnitude.isEmpty || magnitude.first! & 0x80 != 0 { magnitude.insert(0, at: 0) }
        return element(integerTag, magnitude)
    }

    static func element(_ tag: UInt8, _ content: Data) -> Data {
        var encoded = Data([tag])
        if content.count < 0x80 {
            encoded.append(UInt8(content.count))
        } else {
            var length = content.count
            var lengthBytes: [UInt8] = []
            while length > 0 {
                lengthBytes.insert(UInt8(length & 0xFF), at: 0)
                length >>= 8
            }
            encoded.append(0x80 | UInt8(lengthBytes.count))
            encoded.append(contentsOf: lengthBytes)
        }
        return encoded + content
    }

    /// The PKCS#1 key inside `PrivateKeyInfo ::= SEQUENCE { version, algorithm, privateKey OCTET STRING }`
    /// (RFC 5208), or nil when `der` is not that shape.
    static func pkcs1PrivateKey(fromPKCS8 der: Data) -> Data? {
        var outer = Reader(Data(der))
        guard let info = outer.read(sequenceTag), outer.isAtEnd else { return nil }
        var fields = Reader(info)
        guard fields.read(integerTag) != nil, fields.read(sequenceTag) != nil, let key = fields.read(octetStringTag)
        else { return nil }
        return key
    }

    /// Reads one element after another, definite lengths only.
    struct Reader {
        private var bytes: Data

        init(_ bytes: Data) { self.bytes = bytes }

        var isAtEnd: Bool { bytes.isEmpty }

        /// The content of the next element if it has `tag`; nil (reading nothing) otherwise.
        mutating func read(_ tag: UInt8) -> Data? {
            var cursor = bytes.startIndex
            guard cursor < bytes.endIndex, bytes[cursor] == tag else { return nil }
            cursor += 1
            guard cursor < bytes.endIndex else { return nil }
            var length = Int(bytes[cursor])
            cursor += 1
            if length & 0x80 != 0 {
                let count = length & 0x7F
                guard (1...4).contains(count), bytes.endIndex - cursor >= count else { return nil }
                length = bytes[cursor..<cursor + count].reduce(0) { $0 << 8 | Int($1) }
                cursor += count
            }
            guard bytes.endIndex - cursor >= length else { return nil }
            let content = Data(bytes[cursor..<cursor + length])
            bytes = Data(bytes[(cursor + length)...])
            return content
        }
    }
}

/// PEM's armour: the base64 between `-----BEGIN label-----` and `-----END label-----`.
enum PEM {
    /// The DER of the first block labelled `label`, or nil.
    static func der(_ pem: String, label: String) -> Data? {
        guard let begin = pem.range(of: "-----BEGIN \(label)-----"),
              let end = pem.range(of: "-----END \(label)-----", range: begin.upperBound..<pem.endIndex)
        else { return nil }
        let body = pem[begin.upperBound..<end.lowerBound].filter { !$0.isWhitespace }
        return Data(base64Encoded: String(body))
    }
}
