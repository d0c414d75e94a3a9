import Crypto
import Foundation

/// Hexadecimal text, as webhook signatures, APNs device tokens and stored hashes use it.
enum Hex {
    private static let digits = Array("0123456789abcdef".utf8)

    /// Lowercase hex.
    static func encode(_ bytes: some Sequence<UInt8>) -> String {
        var output: [UInt8] = []
        for byte in bytes {
            output.append(digits[Int(byte >> 4)])
            output.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Lowercase hex of the SHA-256 of `text`'s UTF-8: how stored secrets are looked up and how Apple and
    /// Facebook carry a hashed nonce.
    static func sha256(_ text: String) -> String {
        encode(SHA256.hash(data: Data(text.utf8)))
    }

    /// Either case; nil for an odd length or any other character.
    static func decode(_ text: some StringProtocol) -> Data? {
        let characters = Array(text.utf8)
        guard characters.count % 2 == 0 else { return nil }
        var bytes = Data(capacity: characters.count / 2)
        var index = 0
        while index < characters.count {
            guard let high = nibble(characters[index]), let low = nibble(characters[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    private static func nibble(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): character - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): character - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
