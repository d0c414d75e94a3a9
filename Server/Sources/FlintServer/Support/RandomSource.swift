import Foundation

/// Where secrets, codes and ids come from. The system source is the OS CSPRNG; tests may inject
/// a deterministic one.
public protocol RandomSource: Sendable {
    func bytes(_ count: Int) -> [UInt8]
}

public struct SystemRandomSource: RandomSource {
    public init() {}

    public func bytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }
}

extension RandomSource {
    /// A random string over `alphabet`, without modulo bias.
    public func string(length: Int, alphabet: String) -> String {
        let symbols = Array(alphabet)
        let limit = 256 - 256 % symbols.count
        var result = ""
        result.reserveCapacity(length)
        while result.count < length {
            for byte in bytes(length) where Int(byte) < limit && result.count < length {
                result.append(symbols[Int(byte) % symbols.count])
            }
        }
        return result
    }

    /// A 28-character alphanumeric id, the shape of Firebase's `localId`.
    public func localID() -> String {
        string(length: 28, alphabet: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
    }

    /// `count` random bytes as base64url, for opaque tokens.
    public func token(byteCount: Int = 32) -> String {
        Base64URL.encode(Data(bytes(byteCount)))
    }
}
