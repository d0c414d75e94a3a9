import Foundation

/// The few CBOR (RFC 8949) items WebAuthn's attestation objects and COSE keys use, encoded in definite lengths. Maps
/// keep the order they are given in, so a caller writes CTAP2's canonical order (or breaks it on purpose).
public indirect enum CBOR: Sendable {
    case unsigned(UInt64)
    /// The negative integer `-1 - n`, stored as `n`.
    case negative(UInt64)
    case bytes(Data)
    case text(String)
    case array([CBOR])
    case map([(CBOR, CBOR)])

    /// An integer, positive or negative.
    public static func int(_ value: Int) -> CBOR {
        value >= 0 ? .unsigned(UInt64(value)) : .negative(UInt64(-1 - value))
    }

    /// The item's encoding.
    public var encoded: Data {
        var out = Data()
        append(to: &out)
        return out
    }

    private func append(to out: inout Data) {
        switch self {
        case .unsigned(let value):
            Self.appendHead(major: 0, value, to: &out)
        case .negative(let value):
            Self.appendHead(major: 1, value, to: &out)
        case .bytes(let bytes):
            Self.appendHead(major: 2, UInt64(bytes.count), to: &out)
            out.append(bytes)
        case .text(let text):
            let utf8 = Data(text.utf8)
            Self.appendHead(major: 3, UInt64(utf8.count), to: &out)
            out.append(utf8)
        case .array(let items):
            Self.appendHead(major: 4, UInt64(items.count), to: &out)
            for item in items { item.append(to: &out) }
        case .map(let pairs):
            Self.appendHead(major: 5, UInt64(pairs.count), to: &out)
            for (key, value) in pairs {
                key.append(to: &out)
                value.append(to: &out)
            }
        }
    }

    /// The major type and its argument, in the shortest form.
    private static func appendHead(major: UInt8, _ argument: UInt64, to out: inout Data) {
        let type = major << 5
        switch argument {
        case 0..<24:
            out.append(type | UInt8(argument))
        case 24...0xFF:
            out.append(type | 24)
            out.append(UInt8(argument))
        case 0x100...0xFFFF:
            out.append(type | 25)
            out.append(contentsOf: withUnsafeBytes(of: UInt16(argument).bigEndian, Array.init))
        case 0x1_0000...0xFFFF_FFFF:
            out.append(type | 26)
            out.append(contentsOf: withUnsafeBytes(of: UInt32(argument).bigEndian, Array.init))
        default:
            out.append(type | 27)
            out.append(contentsOf: withUnsafeBytes(of: argument.bigEndian, Array.init))
        }
    }
}
