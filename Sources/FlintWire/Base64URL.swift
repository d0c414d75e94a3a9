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
        // Across modules this generic runs unspecialised, where walking a collection is a witness call a byte: the
        // loops below run on the bytes in place (Data, arrays), or on a copy.
        data.withContiguousStorageIfAvailable(encode(bytes:)) ?? Array(data).withUnsafeBufferPointer(encode(bytes:))
    }

    private static func encode(bytes: UnsafeBufferPointer<UInt8>) -> String {
        let length = (bytes.count * 4 + 2) / 3
        return alphabet.withUnsafeBufferPointer { alphabet in
            String(unsafeUninitializedCapacity: length) { output in
                var (input, written) = (0, 0)
                func put(_ sextet: UInt8) {
                    output[written] = alphabet[Int(sextet)]
                    written += 1
                }
                while input < bytes.count {
                    let first = bytes[input]
                    let second: UInt8? = input + 1 < bytes.count ? bytes[input + 1] : nil
                    let third: UInt8? = input + 2 < bytes.count ? bytes[input + 2] : nil
                    put(first >> 2)
                    put((first & 0x03) << 4 | (second ?? 0) >> 4)
                    if let second { put((second & 0x0F) << 2 | (third ?? 0) >> 6) }
                    if let third { put(third & 0x3F) }
                    input += 3
                }
                return written
            }
        }
    }

    /// Decodes unpadded base64url; nil for any other character, padding, or an impossible length.
    public static func decode(_ text: some StringProtocol) -> Data? {
        // As `encode`: on the string's UTF-8 in place (native strings and their substrings), else on a copy.
        text.utf8.withContiguousStorageIfAvailable(decode(utf8:)) ?? Array(text.utf8).withUnsafeBufferPointer(decode(utf8:))
    }

    private static func decode(utf8 bytes: UnsafeBufferPointer<UInt8>) -> Data? {
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
