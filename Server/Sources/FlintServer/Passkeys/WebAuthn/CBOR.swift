/// A CBOR data item (RFC 8949) of the kinds WebAuthn uses: integers, byte and text strings, arrays, maps, booleans
/// and null. Nothing else decodes: no floats, tags, undefined, other simple values or indefinite lengths.
indirect enum CBORValue: Equatable, Sendable {
    /// Major types 0 and 1, within `Int64` (WebAuthn's integers are small; larger ones are refused).
    case integer(Int64)
    case bytes([UInt8])
    case text(String)
    case array([CBORValue])
    /// Keys are unique integers or text strings; the encoding's key order is not kept.
    case map([CBORKey: CBORValue])
    case bool(Bool)
    case null
}

/// A map key: COSE keys use integers, WebAuthn's own maps text.
enum CBORKey: Hashable, Sendable {
    case integer(Int64)
    case text(String)
}

/// Why bytes are not CBOR this decoder takes; `reason` is a short phrase ("indefinite lengths are not allowed").
struct CBORError: Error, Equatable {
    let reason: String
}

/// A strict decoder, bounded in every dimension so that no input makes it crash, recurse deeply or allocate more
/// than the input's size: at most `maximumInputSize` bytes, `maximumDepth` nested containers, `maximumItemCount`
/// items in one container, and no length is believed before the bytes it counts are there. Shortest-form integers
/// and canonical key order are not required (authenticators differ).
enum CBORDecoder {
    static let maximumInputSize = 64 * 1024
    static let maximumDepth = 16
    static let maximumItemCount = 1024

    /// The one data item `bytes` holds, with nothing after it.
    static func decode(_ bytes: [UInt8]) throws(CBORError) -> CBORValue {
        let (value, consumed) = try decodePrefix(bytes)
        guard consumed == bytes.count else { throw CBORError(reason: "\(bytes.count - consumed) bytes follow the data item") }
        return value
    }

    /// The data item at the start of `bytes`, and how many bytes it took; whatever follows is the caller's.
    static func decodePrefix(_ bytes: [UInt8]) throws(CBORError) -> (CBORValue, consumed: Int) {
        guard bytes.count <= maximumInputSize else { throw CBORError(reason: "more than \(maximumInputSize) bytes") }
        var reader = Reader(bytes: bytes)
        let value = try reader.item(depth: 0)
        return (value, reader.position)
    }

    private struct Reader {
        let bytes: [UInt8]
        var position = 0

        var remaining: Int { bytes.count - position }

        mutating func byte() throws(CBORError) -> UInt8 {
            guard position < bytes.count else { throw CBORError(reason: "the input ends inside a data item") }
            defer { position += 1 }
            return bytes[position]
        }

        /// The next `count` bytes; `count` is checked against what remains before anything is copied.
        mutating func take(_ count: Int) throws(CBORError) -> [UInt8] {
            guard count <= remaining else { throw CBORError(reason: "a length exceeds the input") }
            defer { position += count }
            return Array(bytes[position ..< position + count])
        }

        /// The argument of an initial byte's additional information: the value itself below 24, else the
        /// following 1, 2, 4 or 8 bytes, big-endian. 28–30 are reserved and 31 is an indefinite length.
        mutating func argument(_ additional: UInt8) throws(CBORError) -> UInt64 {
            let size: Int
            switch additional {
            case 0 ..< 24: return UInt64(additional)
            case 24: size = 1
            case 25: size = 2
            case 26: size = 4
            case 27: size = 8
            case 31: throw CBORError(reason: "indefinite lengths are not allowed")
            default: throw CBORError(reason: "reserved additional information \(additional)")
            }
            var value: UInt64 = 0
            for byte in try take(size) { value = value << 8 | UInt64(byte) }
            return value
        }

        /// A length or count: one the remaining input can hold, at one byte or more per unit.
        mutating func length(_ additional: UInt8) throws(CBORError) -> Int {
            let value = try argument(additional)
            guard value <= UInt64(remaining) else { throw CBORError(reason: "a length exceeds the input") }
            return Int(value)
        }

        mutating func item(depth: Int) throws(CBORError) -> CBORValue {
            let initial = try byte()
            let additional = initial & 0x1F
            switch initial >> 5 {
            case 0:
                let value = try argument(additional)
                guard value <= UInt64(Int64.max) else { throw CBORError(reason: "an integer is out of range") }
                return .integer(Int64(value))
            case 1:
                // -1 - n; n up to Int64.max gives Int64.min, the smallest representable.
                let value = try argument(additional)
                guard value <= UInt64(Int64.max) else { throw CBORError(reason: "an integer is out of range") }
                return .integer(-1 - Int64(value))
            case 2:
                return .bytes(try take(length(additional)))
            case 3:
                guard let text = String(validating: try take(length(additional)), as: UTF8.self) else {
                    throw CBORError(reason: "a text string is not UTF-8")
                }
                return .text(text)
            case 4:
                let count = try containerCount(additional, depth: depth)
                var items: [CBORValue] = []
                items.reserveCapacity(count)
                for _ in 0 ..< count { items.append(try item(depth: depth + 1)) }
                return .array(items)
            case 5:
                let count = try containerCount(additional, depth: depth)
                var entries: [CBORKey: CBORValue] = [:]
                entries.reserveCapacity(count)
                for _ in 0 ..< count {
                    let key: CBORKey
                    switch try item(depth: depth + 1) {
                    case .integer(let value): key = .integer(value)
                    case .text(let value): key = .text(value)
                    default: throw CBORError(reason: "a map key is neither an integer nor a text string")
                    }
                    guard entries[key] == nil else { throw CBORError(reason: "a map key is repeated") }
                    entries[key] = try item(depth: depth + 1)
                }
                return .map(entries)
            case 6:
                throw CBORError(reason: "tags are not allowed")
            default:
                switch additional {
                case 20: return .bool(false)
                case 21: return .bool(true)
                case 22: return .null
                case 25, 26, 27: throw CBORError(reason: "floating-point numbers are not allowed")
                case 31: throw CBORError(reason: "indefinite lengths are not allowed")
                default: throw CBORError(reason: "simple value \(additional) is not allowed")
                }
            }
        }

        /// The item count of an array or map at `depth`, within the limits.
        mutating func containerCount(_ additional: UInt8, depth: Int) throws(CBORError) -> Int {
            guard depth < CBORDecoder.maximumDepth else {
                throw CBORError(reason: "containers nest deeper than \(CBORDecoder.maximumDepth)")
            }
            let count = try length(additional)
            guard count <= CBORDecoder.maximumItemCount else {
                throw CBORError(reason: "a container has more than \(CBORDecoder.maximumItemCount) items")
            }
            return count
        }
    }
}

extension CBORValue {
    /// The value under text key `key`, if this is a map that has it.
    subscript(key: String) -> CBORValue? {
        guard case .map(let entries) = self else { return nil }
        return entries[.text(key)]
    }

    /// The value under integer key `key` (COSE's labels), if this is a map that has it.
    subscript(key: Int64) -> CBORValue? {
        guard case .map(let entries) = self else { return nil }
        return entries[.integer(key)]
    }

    var integerValue: Int64? {
        guard case .integer(let value) = self else { return nil }
        return value
    }

    var bytesValue: [UInt8]? {
        guard case .bytes(let value) = self else { return nil }
        return value
    }

    var textValue: String? {
        guard case .text(let value) = self else { return nil }
        return value
    }
}
