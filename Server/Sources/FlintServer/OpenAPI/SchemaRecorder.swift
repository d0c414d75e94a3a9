import FlintWire

/// A type whose JSON Schema is not what its `Decodable` conformance shows: one that accepts several JSON
/// shapes (`LenientString`, `JSONValue`), so decoding it from `SchemaRecorder` would record only the first.
protocol OpenAPISchemaDescribed {
    static var openAPISchema: JSONValue { get }
}

/// Derives the JSON Schema of a `Decodable` wire type from its own `init(from:)`: the type is decoded from a
/// decoder that answers every question with a placeholder and notes what was asked (which keys, of which
/// types, required or `IfPresent`). So the document cannot drift from what the server actually decodes.
///
/// Object types become named component schemas (`#/components/schemas/Name`), referenced where used;
/// arrays, dictionaries and scalars are written inline. String enumerations list their cases.
final class SchemaRecorder {
    /// The named object schemas seen so far, by component name.
    private(set) var components: [String: JSONValue] = [:]
    /// Types whose decoding stopped before it finished: their schema may lack fields. A test keeps this empty.
    private(set) var incomplete: Set<String> = []
    private var inProgress: Set<String> = []

    /// The schema of `type`: a `$ref` for an object type, inline otherwise.
    func schema(of type: any Decodable.Type) -> JSONValue {
        if let described = type as? any OpenAPISchemaDescribed.Type { return described.openAPISchema }
        if let scalar = Self.scalarSchema(type) { return scalar }
        if let enumeration = Self.enumerationSchema(type) { return enumeration }
        let name = Self.componentName(type)
        if components[name] != nil || inProgress.contains(name) { return Self.reference(name) }
        inProgress.insert(name)
        defer { inProgress.remove(name) }
        let node = SchemaNode()
        do {
            _ = try type.init(from: RecordingDecoder(node: node, recorder: self, codingPath: []))
        } catch {
            incomplete.insert(name)
        }
        guard node.isObject else { return node.schema }
        components[name] = node.schema
        return Self.reference(name)
    }

    static func reference(_ name: String) -> JSONValue { .object(["$ref": .string("#/components/schemas/\(name)")]) }

    /// A value to hand back for a required field, so the decoding that asked can go on: the first case of an
    /// enumeration, zero or empty for a scalar, otherwise the type decoded from placeholders alone.
    fileprivate func placeholder<T: Decodable>(_ type: T.Type) throws -> T {
        // Scalars first: their own `init(from:)` would ask this decoder for a scalar again.
        if let zero = Self.zeros.first(where: { Swift.type(of: $0) == T.self }) as? T { return zero }
        if let value = Self.firstCase(of: type) { return value }
        return try T(from: RecordingDecoder(node: SchemaNode(), recorder: nil, codingPath: []))
    }

    private static let zeros: [any Sendable] = [
        "", false, 0.0, Float(0), 0, Int64(0), UInt64(0), UInt(0), Int32(0), UInt32(0), Int16(0), UInt16(0), Int8(0), UInt8(0),
    ]

    private static func firstCase<T>(of type: T.Type) -> T? {
        func first<C: CaseIterable>(_: C.Type) -> C? { C.allCases.first }
        guard let iterable = type as? any CaseIterable.Type else { return nil }
        return first(iterable) as? T
    }

    private static func scalarSchema(_ type: Any.Type) -> JSONValue? {
        switch type {
        case is String.Type: ["type": "string"]
        case is Bool.Type: ["type": "boolean"]
        case is Double.Type, is Float.Type: ["type": "number"]
        case is Int.Type, is Int64.Type, is UInt64.Type, is UInt.Type: ["type": "integer", "format": "int64"]
        case is Int32.Type, is UInt32.Type, is Int16.Type, is UInt16.Type, is Int8.Type, is UInt8.Type:
            ["type": "integer", "format": "int32"]
        default: nil
        }
    }

    private static func enumerationSchema(_ type: Any.Type) -> JSONValue? {
        func cases<C: CaseIterable & RawRepresentable<String>>(_: C.Type) -> [JSONValue] {
            C.allCases.map { .string($0.rawValue) }
        }
        guard let enumeration = type as? any (CaseIterable & RawRepresentable<String>).Type else { return nil }
        return ["type": "string", "enum": .array(cases(enumeration))]
    }

    /// The type's name without its module, nesting kept with dots: `VerificationCodesResponse.Entry`.
    private static func componentName(_ type: Any.Type) -> String {
        let parts = String(reflecting: type).split(separator: ".").dropFirst()
        return parts.map { $0.filter { $0.isLetter || $0.isNumber || $0 == "_" } }.joined(separator: ".")
    }
}

/// What the decoding of one value asked for: an object's properties, an array's items, or a scalar.
/// A nested container fills its node after the parent has noted it, so nodes are read only at the end.
private final class SchemaNode {
    /// A property's or an array's element schema: known, or a nested container's node still being filled.
    indirect enum Part {
        case schema(JSONValue)
        case node(SchemaNode)
        /// Also `null`.
        case nullable(Part)

        var schema: JSONValue {
            switch self {
            case .schema(let schema): return schema
            case .node(let node): return node.schema
            case .nullable(let part):
                let schema = part.schema
                if case .object(var fields) = schema, let type = fields["type"] {
                    fields["type"] = .array((type.arrayValue ?? [type]) + ["null"])
                    return .object(fields)
                }
                return ["anyOf": [schema, ["type": "null"]]]
            }
        }
    }

    private enum Shape {
        case unknown
        case object(properties: [String: Part], required: [String], additional: Part?)
        case array(items: Part)
        case scalar(JSONValue)
    }

    private var shape = Shape.unknown

    var isObject: Bool {
        if case .object = shape { return true }
        return false
    }

    /// Keys whose `null` the type looks at itself (`decodeNil(forKey:)`): not simply "absent" for them.
    private var nullCheckedKeys: Set<String> = []

    func property(_ name: String, _ part: Part, required: Bool) {
        // `decodeIfPresent` reads `null` as absent, as Google's JSON mapping of protobuf does: say so.
        let part = required || nullCheckedKeys.contains(name) ? part : .nullable(part)
        guard case .object(var properties, var requiredNames, let additional) = shape else {
            shape = .object(properties: [name: part], required: required ? [name] : [], additional: nil)
            return
        }
        properties[name] = part
        if required && !requiredNames.contains(name) { requiredNames.append(name) }
        shape = .object(properties: properties, required: requiredNames, additional: additional)
    }

    func checksNull(_ name: String) { nullCheckedKeys.insert(name) }

    /// A dictionary's values (`Dictionary` decodes from a keyed container's `allKeys`).
    func additionalProperties(_ part: Part) {
        shape = .object(properties: [:], required: [], additional: part)
    }

    func becomeObject() {
        if case .unknown = shape { shape = .object(properties: [:], required: [], additional: nil) }
    }

    func items(_ part: Part) { shape = .array(items: part) }
    func scalar(_ schema: JSONValue) { shape = .scalar(schema) }

    var schema: JSONValue {
        switch shape {
        case .unknown: return [:]
        case .scalar(let schema): return schema
        case .array(let items): return ["type": "array", "items": items.schema]
        case .object(let properties, let required, let additional):
            var schema: [String: JSONValue] = ["type": "object"]
            if !properties.isEmpty { schema["properties"] = .object(properties.mapValues(\.schema)) }
            if !required.isEmpty { schema["required"] = .array(required.map(JSONValue.string)) }
            if let additional { schema["additionalProperties"] = additional.schema }
            return .object(schema)
        }
    }
}

/// The decoder `SchemaRecorder` decodes types from. With a `recorder` it notes each request in `node`;
/// without one it only supplies placeholders (the value of a required field of a type being recorded).
private struct RecordingDecoder: Decoder {
    let node: SchemaNode
    let recorder: SchemaRecorder?
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        node.becomeObject()
        return KeyedDecodingContainer(RecordingKeyedContainer<Key>(decoder: self))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { RecordingUnkeyedContainer(decoder: self) }
    func singleValueContainer() throws -> any SingleValueDecodingContainer { RecordingSingleValueContainer(decoder: self) }

    /// Records `type` (when recording) and returns a value of it.
    func value<T: Decodable>(_ type: T.Type, record: (JSONValue) -> Void) throws -> T {
        if let recorder {
            record(recorder.schema(of: type))
            return try recorder.placeholder(type)
        }
        return try SchemaRecorder().placeholder(type)
    }
}

/// The key that stands for "any key" when a dictionary asks for `allKeys`.
private let anyKey = "*"

private struct RecordingKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: RecordingDecoder
    var codingPath: [any CodingKey] { decoder.codingPath }

    /// Empty for a synthesized `CodingKeys` (which has no `*` case), one wildcard key for a dictionary.
    var allKeys: [Key] { Key(stringValue: anyKey).map { [$0] } ?? [] }
    func contains(_ key: Key) -> Bool { true }
    func decodeNil(forKey key: Key) throws -> Bool {
        decoder.node.checksNull(key.stringValue)
        return false
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try decoder.value(type) { record(key, $0, required: true) }
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        _ = try decoder.value(type) { record(key, $0, required: false) }
        return nil
    }

    // The scalar overloads have default implementations that would bypass the two generic ones above.
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decode(type as Bool.Type, key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try decode(type as String.Type, key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try decode(type as Double.Type, key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decode(type as Int.Type, key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try decode(type as Int64.Type, key) }
    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try optional(type, key) }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try optional(type, key) }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try optional(type, key) }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try optional(type, key) }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try optional(type, key) }

    private func decode<T: Decodable>(_ type: T.Type, _ key: Key) throws -> T {
        try decoder.value(type) { record(key, $0, required: true) }
    }

    private func optional<T: Decodable>(_ type: T.Type, _ key: Key) throws -> T? {
        _ = try decoder.value(type) { record(key, $0, required: false) }
        return nil
    }

    private func record(_ key: Key, _ schema: JSONValue, required: Bool) {
        record(key, .schema(schema), required: required)
    }

    private func record(_ key: Key, _ part: SchemaNode.Part, required: Bool) {
        if key.stringValue == anyKey {
            decoder.node.additionalProperties(part)
        } else {
            decoder.node.property(key.stringValue, part, required: required)
        }
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey> {
        try child(key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try child(key).unkeyedContainer()
    }

    /// The decoder of a nested container, whose node the property refers to.
    private func child(_ key: Key) -> RecordingDecoder {
        let node = SchemaNode()
        record(key, .node(node), required: true)
        return RecordingDecoder(node: node, recorder: decoder.recorder, codingPath: codingPath + [key])
    }

    func superDecoder() throws -> any Decoder { decoder }
    func superDecoder(forKey key: Key) throws -> any Decoder { decoder }
}

/// An array: while recording, one element (whose schema becomes `items`); as a placeholder, none.
private struct RecordingUnkeyedContainer: UnkeyedDecodingContainer {
    let decoder: RecordingDecoder
    var codingPath: [any CodingKey] { decoder.codingPath }
    var currentIndex = 0
    var count: Int? { decoder.recorder == nil ? 0 : 1 }
    var isAtEnd: Bool { currentIndex >= (count ?? 0) }

    mutating func decodeNil() throws -> Bool { false }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        currentIndex += 1
        return try decoder.value(type) { decoder.node.items(.schema($0)) }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
        -> KeyedDecodingContainer<NestedKey> {
        try element().container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try element().unkeyedContainer()
    }

    /// The decoder of a nested container element, whose node the items refer to.
    private mutating func element() -> RecordingDecoder {
        currentIndex += 1
        let node = SchemaNode()
        decoder.node.items(.node(node))
        return RecordingDecoder(node: node, recorder: decoder.recorder, codingPath: codingPath)
    }

    mutating func superDecoder() throws -> any Decoder { decoder }
}

private struct RecordingSingleValueContainer: SingleValueDecodingContainer {
    let decoder: RecordingDecoder
    var codingPath: [any CodingKey] { decoder.codingPath }

    func decodeNil() -> Bool { false }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try decoder.value(type) { decoder.node.scalar($0) }
    }
}

// MARK: - Wire types that accept more than one JSON shape

extension LenientString: OpenAPISchemaDescribed {
    /// A string, or an int64 written as a JSON number.
    static var openAPISchema: JSONValue { ["type": .array(["string", "integer"])] }
}

extension JSONValue: OpenAPISchemaDescribed {
    /// Any JSON value.
    static var openAPISchema: JSONValue { [:] }
}

extension OobRequestType: OpenAPISchemaDescribed {
    /// The name, or Identity Toolkit's protobuf number of it.
    static var openAPISchema: JSONValue {
        ["oneOf": [["type": "string", "enum": .array(allCases.map { .string($0.rawValue) })], ["type": "integer"]]]
    }
}
