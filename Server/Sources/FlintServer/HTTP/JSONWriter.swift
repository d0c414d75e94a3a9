import FlintWire
import Foundation

/// Writes JSON straight into bytes, for the answers every sign-in, refresh and lookup sends: `JSONEncoder` walks a
/// value through `Codable`'s containers and boxes, which cost about a tenth of a lookup's CPU.
///
/// A type that writes itself (`JSONWritable`) gives exactly the bytes `JSONBody.encoder` gives for it: keys in
/// the encoder's sorted order, nil fields left out, strings escaped the same way (a test compares the two). Parts
/// that are rare in hot answers (second factors, passkeys, SAML attributes) go through the encoder.
struct JSONWriter {
    private(set) var bytes: [UInt8] = []
    /// Whether the next value or key follows another one at its level (and needs a comma first).
    private var followsValue = false

    init(capacity: Int = 512) { bytes.reserveCapacity(capacity) }

    mutating func beginObject() {
        separate()
        bytes.append(UInt8(ascii: "{"))
        followsValue = false
    }

    mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
        followsValue = true
    }

    mutating func beginArray() {
        separate()
        bytes.append(UInt8(ascii: "["))
        followsValue = false
    }

    mutating func endArray() {
        bytes.append(UInt8(ascii: "]"))
        followsValue = true
    }

    /// A member's name; its value comes next.
    mutating func key(_ name: String) {
        separate()
        appendString(name)
        bytes.append(UInt8(ascii: ":"))
        followsValue = false
    }

    mutating func string(_ value: String) {
        separate()
        appendString(value)
        followsValue = true
    }

    mutating func int(_ value: Int64) {
        separate()
        bytes.append(contentsOf: String(value).utf8)
        followsValue = true
    }

    mutating func bool(_ value: Bool) {
        separate()
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
        followsValue = true
    }

    mutating func null() {
        separate()
        bytes.append(contentsOf: "null".utf8)
        followsValue = true
    }

    /// A value written by `JSONBody.encoder`, for the parts not worth writing by hand.
    mutating func encoded(_ value: some Encodable) throws {
        separate()
        bytes.append(contentsOf: try JSONBody.encoder.encode(value))
        followsValue = true
    }

    mutating func value(_ value: some JSONWritable) throws {
        try value.write(to: &self)
    }

    // Members that are left out when nil, as the encoder leaves out nil optionals.

    mutating func member(_ name: String, _ value: String?) {
        guard let value else { return }
        key(name)
        string(value)
    }

    mutating func member(_ name: String, _ value: Int64?) {
        guard let value else { return }
        key(name)
        int(value)
    }

    mutating func member(_ name: String, _ value: Bool?) {
        guard let value else { return }
        key(name)
        bool(value)
    }

    mutating func member(_ name: String, encoded value: (some Encodable)?) throws {
        guard let value else { return }
        key(name)
        try encoded(value)
    }

    mutating func member<Element: JSONWritable>(_ name: String, _ values: [Element]?) throws {
        guard let values else { return }
        key(name)
        beginArray()
        for element in values { try element.write(to: &self) }
        endArray()
    }

    private mutating func separate() {
        if followsValue { bytes.append(UInt8(ascii: ",")) }
    }

    /// A JSON string, escaped as `JSONBody.encoder` escapes (slashes are not escaped).
    private mutating func appendString(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x08: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
            case 0x0C: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
            case 0x0A: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0..<0x20:
                bytes.append(contentsOf: "\\u00".utf8)
                bytes.append(Self.hexDigits[Int(byte >> 4)])
                bytes.append(Self.hexDigits[Int(byte & 0x0F)])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)
}

/// A value that writes itself as JSON (see `JSONWriter`).
protocol JSONWritable: Encodable {
    func write(to writer: inout JSONWriter) throws
}

extension JSONWritable {
    /// The value's JSON, as `JSONBody.encoder` would give it.
    func jsonBytes() throws -> [UInt8] {
        var writer = JSONWriter()
        try write(to: &writer)
        return writer.bytes
    }
}

/// Claims built as values (the identity provider's tokens, merged custom claims): members in sorted order, whole numbers
/// as integers and other numbers through the encoder, as `JSONValue`'s own encoding gives them.
extension JSONValue: JSONWritable {
    func write(to writer: inout JSONWriter) throws {
        switch self {
        case .null: writer.null()
        case .bool(let value): writer.bool(value)
        case .number(let value):
            if value.rounded() == value, abs(value) < 1e15 { writer.int(Int64(value)) } else { try writer.encoded(value) }
        case .string(let value): writer.string(value)
        case .array(let elements):
            writer.beginArray()
            for element in elements { try element.write(to: &writer) }
            writer.endArray()
        case .object(let members):
            writer.beginObject()
            for (name, member) in members.sorted(by: { $0.key < $1.key }) {
                writer.key(name)
                try member.write(to: &writer)
            }
            writer.endObject()
        }
    }
}
