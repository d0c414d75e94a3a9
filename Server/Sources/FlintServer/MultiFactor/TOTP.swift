import Crypto
import Foundation

/// RFC 6238 time-based one-time passwords as authenticator apps make them: HMAC-SHA1 over the 30-second
/// step counter, dynamic truncation (RFC 4226), six digits. Secrets travel in base32 (RFC 4648, no padding).
enum TOTP {
    static let digits = 6
    static let period: Int64 = 30
    static let algorithm = "SHA1"
    /// 160 bits, as RFC 4226 recommends.
    static let secretLength = 20

    /// The step a moment falls in.
    static func step(at seconds: Int64) -> Int64 { seconds / period }

    /// The code of `step` for `secret`.
    static func code(secret: Data, step: Int64) -> String {
        var counter = UInt64(step).bigEndian
        let message = withUnsafeBytes(of: &counter) { Data($0) }
        let mac = Array(HMAC<Insecure.SHA1>.authenticationCode(for: message, using: SymmetricKey(data: secret)))
        let offset = Int(mac[mac.count - 1] & 0x0F)
        let value = (UInt32(mac[offset] & 0x7F) << 24) | (UInt32(mac[offset + 1]) << 16)
            | (UInt32(mac[offset + 2]) << 8) | UInt32(mac[offset + 3])
        let code = String(value % 1_000_000)
        return String(repeating: "0", count: digits - code.count) + code
    }

    /// The step within `window` steps of `now` whose code is `code`, compared in constant time; nil if none.
    static func matchingStep(of code: String, secret: Data, now seconds: Int64, window: Int) -> Int64? {
        guard code.count == digits, code.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        let current = step(at: seconds)
        var found: Int64?
        for candidate in (current - Int64(window))...(current + Int64(window))
        where constantTimeEquals(Data(Self.code(secret: secret, step: candidate).utf8), Data(code.utf8)) {
            found = candidate
        }
        return found
    }

    private static let base32Alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".utf8)

    static func base32(_ data: Data) -> String {
        var output: [UInt8] = []
        var buffer = 0
        var bits = 0
        for byte in data {
            buffer = (buffer << 8) | Int(byte)
            bits += 8
            while bits >= 5 {
                output.append(base32Alphabet[(buffer >> (bits - 5)) & 31])
                bits -= 5
            }
        }
        if bits > 0 { output.append(base32Alphabet[(buffer << (5 - bits)) & 31]) }
        return String(decoding: output, as: UTF8.self)
    }
}
