import FlintWire

/// A strict JSON parser (RFC 8259) from UTF-8 bytes straight to a `JSONValue`, for the hot paths that read small
/// documents on every request: the claims of ID tokens (`IDTokenClaims(json:)`) and the custom claims merged into
/// them. `JSONDecoder` costs several times as much for these, most of it in its generic machinery rather than in
/// parsing.
///
/// Stricter than JSON requires where a token could be read two ways: a duplicate object key, invalid UTF-8, a control
/// character in a string, nesting deeper than `maximumDepth` and anything after the value are refused (RFC 7519 lets a
/// JWT parser refuse duplicate claim names, and a refusal cannot be read differently by another parser).
struct JSONReader {
    /// Deeper documents are refused before they can exhaust the stack.
    static let maximumDepth = 64

    enum Failure: Error, Equatable {
        /// Not JSON, or JSON this reader refuses (see the type's note); `offset` is where reading stopped.
        case invalid(offset: Int)
    }

    /// The one JSON value `bytes` hold.
    static func parse(_ bytes: some Collection<UInt8>) throws(Failure) -> JSONValue {
        let copied = Array(bytes)
        return try copied.withUnsafeBufferPointer { buffer throws(Failure) in
            var reader = JSONReader(bytes: buffer)
            let value = try reader.value(depth: 0)
            reader.skipWhitespace()
            guard reader.offset == buffer.count else { throw reader.failure }
            return value
        }
    }

    private let bytes: UnsafeBufferPointer<UInt8>
    private var offset = 0

    private init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    private var failure: Failure { .invalid(offset: offset) }

    private var next: UInt8? { offset < bytes.count ? bytes[offset] : nil }

    private mutating func skipWhitespace() {
        while let byte = next, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { offset += 1 }
    }

    private mutating func expect(_ byte: UInt8) throws(Failure) {
        guard next == byte else { throw failure }
        offset += 1
    }

    private mutating func value(depth: Int) throws(Failure) -> JSONValue {
        guard depth < Self.maximumDepth else { throw failure }
        skipWhitespace()
        switch next {
        case UInt8(ascii: "{"): return .object(try object(depth: depth))
        case UInt8(ascii: "["): return .array(try array(depth: depth))
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        default: return .number(try number())
        }
    }

    private mutating func object(depth: Int) throws(Failure) -> [String: JSONValue] {
        try expect(UInt8(ascii: "{"))
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if next == UInt8(ascii: "}") { offset += 1; return members }
        while true {
            skipWhitespace()
            let key = try string()
            skipWhitespace()
            try expect(UInt8(ascii: ":"))
            let member = try value(depth: depth + 1)
            guard members.updateValue(member, forKey: key) == nil else { throw failure }
            skipWhitespace()
            if next == UInt8(ascii: ",") { offset += 1; continue }
            try expect(UInt8(ascii: "}"))
            return members
        }
    }

    private mutating func array(depth: Int) throws(Failure) -> [JSONValue] {
        try expect(UInt8(ascii: "["))
        var elements: [JSONValue] = []
        skipWhitespace()
        if next == UInt8(ascii: "]") { offset += 1; return elements }
        while true {
            elements.append(try value(depth: depth + 1))
            skipWhitespace()
            if next == UInt8(ascii: ",") { offset += 1; continue }
            try expect(UInt8(ascii: "]"))
            return elements
        }
    }

    private mutating func literal(_ word: StaticString) throws(Failure) {
        let length = word.utf8CodeUnitCount
        guard bytes.count - offset >= length else { throw failure }
        for index in 0..<length where bytes[offset + index] != word.utf8Start[index] { throw failure }
        offset += length
    }

    private mutating func string() throws(Failure) -> String {
        try expect(UInt8(ascii: "\""))
        let start = offset
        // The common case: no escapes, so the bytes are the string.
        while let byte = next, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\") {
            guard byte >= 0x20 else { throw failure }
            offset += 1
        }
        guard next != nil else { throw failure }
        var unescaped = Array(bytes[start..<offset])
        while next == UInt8(ascii: "\\") {
            offset += 1
            try escape(into: &unescaped)
            while let byte = next, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\") {
                guard byte >= 0x20 else { throw failure }
                unescaped.append(byte)
                offset += 1
            }
        }
        try expect(UInt8(ascii: "\""))
        guard let text = String(validating: unescaped, as: UTF8.self) else { throw failure }
        return text
    }

    /// The escape after a backslash, appended as UTF-8.
    private mutating func escape(into output: inout [UInt8]) throws(Failure) {
        guard let byte = next else { throw failure }
        offset += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): output.append(byte)
        case UInt8(ascii: "b"): output.append(0x08)
        case UInt8(ascii: "f"): output.append(0x0C)
        case UInt8(ascii: "n"): output.append(0x0A)
        case UInt8(ascii: "r"): output.append(0x0D)
        case UInt8(ascii: "t"): output.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = UInt32(try hexQuad())
            if (0xD800..<0xDC00).contains(scalar) {
                // A high surrogate must be followed by an escaped low one.
                guard next == UInt8(ascii: "\\") else { throw failure }
                offset += 1
                try expect(UInt8(ascii: "u"))
                let low = UInt32(try hexQuad())
                guard (0xDC00..<0xE000).contains(low) else { throw failure }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            }
            guard let unicode = Unicode.Scalar(scalar) else { throw failure }
            output.append(contentsOf: Unicode.UTF8.encode(unicode)!)
        default: throw failure
        }
    }

    private mutating func hexQuad() throws(Failure) -> UInt16 {
        guard bytes.count - offset >= 4 else { throw failure }
        var value: UInt16 = 0
        for _ in 0..<4 {
            let byte = bytes[offset]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw failure
            }
            value = value << 4 | UInt16(digit)
            offset += 1
        }
        return value
    }

    /// A number as JSON's grammar has it (`-`? int frac? exp?), read as a Double.
    private mutating func number() throws(Failure) -> Double {
        let start = offset
        if next == UInt8(ascii: "-") { offset += 1 }
        if next == UInt8(ascii: "0") {
            offset += 1
        } else {
            guard digits() > 0 else { throw failure }
        }
        if next == UInt8(ascii: ".") {
            offset += 1
            guard digits() > 0 else { throw failure }
        }
        if next == UInt8(ascii: "e") || next == UInt8(ascii: "E") {
            offset += 1
            if next == UInt8(ascii: "+") || next == UInt8(ascii: "-") { offset += 1 }
            guard digits() > 0 else { throw failure }
        }
        guard let value = Double(String(decoding: bytes[start..<offset], as: UTF8.self)), value.isFinite else { throw failure }
        return value
    }

    private mutating func digits() -> Int {
        let start = offset
        while let byte = next, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { offset += 1 }
        return offset - start
    }
}
