import Foundation
import FlintWire

extension JSONValue {
    /// The value as `JSONSerialization` would produce it (`[String: Any]`, `[Any]`, `String`, `Bool`,
    /// `Int` for integral numbers, `Double`, `NSNull`), for APIs typed `Any` such as `claims`.
    var anyValue: Any {
        switch self {
        case .null: return NSNull()
        case .bool(let value): return value
        case .number(let value): return Int(exactly: value) ?? value
        case .string(let value): return value
        case .array(let values): return values.map(\.anyValue)
        case .object(let members): return members.mapValues(\.anyValue)
        }
    }
}
