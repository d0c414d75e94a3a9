import Foundation

/// Base64url without padding (RFC 7515 §2), as JWTs and JWKs use it.
/// Byte-level, because tokens are decoded on every authenticated request.
public enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
    private static let values: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, symbol) in alphabet.enumerated() { table[Int(symbol)] = UInt8(index) }
        return table
    }()

    public static func encode(_ data: some Collection<UInt8>) -> String {
        var output: [UInt8] = []
        output.reserveCapacity((data.count * 4 + 2) / 3)
        var iterator = data.makeIterator()
        while let first = iterator.next() {
            let second = iterator.next()
            let third = iterator.next()
            output.append(alphabet[Int(first >> 2)])
            output.append(alphabet[Int((first & 0x03) << 4 | (second ?? 0) >> 4)])
            if let second { output.append(alphabet[Int((second & 0x0F) << 2 | (third ?? 0) >> 6)]) }
            if let third { output.append(alphabet[Int(third & 0x3F)]) }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Decodes unpadded base64url; nil for any other character, padding, or an impossible length.
    public static func decode(_ text: some StringProtocol) -> Data? {
        let bytes = text.utf8
        guard bytes.count % 4 != 1 else { return nil }
        var output = [UInt8]()
        output.reserveCapacity(bytes.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        let valid = values.withUnsafeBufferPointer { table -> Bool in
            for byte in bytes {
                let value = table[Int(byte)]
                guard value != 0xFF else { return false }
                accumulator = accumulator << 6 | UInt32(value)
                bits += 6
                if bits >= 8 {
                    bits -= 8
                    output.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
                }
            }
            return true
        }
        // Leftover bits must be zero, so every byte string has exactly one encoding.
        guard valid, accumulator & ((1 << UInt32(bits)) - 1) == 0 else { return nil }
        return Data(output)
    }
}
