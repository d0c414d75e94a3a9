import FlintWire
import Foundation

#if canImport(COpenSSL)
import COpenSSL
#endif

/// Where secrets, codes and ids come from. The system source is a CSPRNG; tests may inject a deterministic one.
public protocol RandomSource: Sendable {
    func bytes(_ count: Int) -> [UInt8]
}

/// The production source: a user-space CSPRNG seeded from the kernel.
///
/// On Linux that is OpenSSL's DRBG (AES-256-CTR, seeded and periodically reseeded from `getrandom`, one instance per
/// thread, reseeded after `fork`): a sign-up draws randomness several times (id, refresh token), and asking the
/// kernel each time cost a system call per draw. Elsewhere Swift's system generator, which on Apple platforms is
/// already user-space (`arc4random_buf`).
public struct SystemRandomSource: RandomSource {
    public init() {}

    public func bytes(_ count: Int) -> [UInt8] {
        guard count > 0 else { return [] }
        return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            Self.fill(buffer)
            initialized = count
        }
    }

    private static func fill(_ buffer: UnsafeMutableBufferPointer<UInt8>) {
        #if canImport(COpenSSL)
        // RAND_bytes fails only when the DRBG cannot be seeded at all; there is nothing safe to hand out then.
        guard RAND_bytes(buffer.baseAddress, Int32(buffer.count)) == 1 else {
            fatalError("OpenSSL's random generator could not be seeded from the kernel")
        }
        #else
        var generator = SystemRandomNumberGenerator()
        var index = 0
        while index < buffer.count {
            var word = generator.next()
            withUnsafeBytes(of: &word) { bytes in
                for byte in bytes where index < buffer.count {
                    buffer[index] = byte
                    index += 1
                }
            }
        }
        #endif
    }
}

extension RandomSource {
    /// A random string over `alphabet` (ASCII), without modulo bias.
    public func string(length: Int, alphabet: StaticString) -> String {
        let symbols = UnsafeBufferPointer(start: alphabet.utf8Start, count: alphabet.utf8CodeUnitCount)
        let limit = 256 - 256 % symbols.count
        var result: [UInt8] = []
        result.reserveCapacity(length)
        while result.count < length {
            for byte in bytes(length) where Int(byte) < limit && result.count < length {
                result.append(symbols[Int(byte) % symbols.count])
            }
        }
        return String(decoding: result, as: UTF8.self)
    }

    /// A 28-character alphanumeric id, the shape of Firebase's `localId`.
    public func localID() -> String {
        string(length: 28, alphabet: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
    }

    /// `count` random bytes as base64url, for opaque tokens.
    public func token(byteCount: Int = 32) -> String {
        Base64URL.encode(Data(bytes(byteCount)))
    }

    /// A 22-character id for a row that indexes are keyed by, made at `milliseconds` since 1970: the time (48 bits,
    /// big-endian) and 80 random bits, as base64url. Ids of the same 2^18 ms (about four minutes) share their first
    /// five characters, so their rows land in the few index pages the newest ones share instead of anywhere in the
    /// index (meant for indexes too large to stay cached; at the benchmark's few thousand sessions no fewer bytes
    /// written were measured, BENCHMARKS.md). For ids that name things, not for secrets: anyone who sees one learns
    /// when it was made.
    public func timeOrderedID(milliseconds: Int64) -> String {
        var time = UInt64(max(0, milliseconds)).bigEndian
        let stamp = withUnsafeBytes(of: &time) { Array($0.suffix(6)) }
        return Base64URL.encode(Data(stamp + bytes(10)))
    }
}
