/// A string field some clients send as a JSON number (firebase-admin's `validSince`, the iOS SDK's
/// `tokenType`): decodes from either, encodes as a string, as Identity Toolkit's JSON mapping of int64 does.
public struct LenientString: Codable, Sendable, Equatable, ExpressibleByStringLiteral {
    public var value: String

    public init(_ value: String) { self.value = value }
    public init(stringLiteral value: String) { self.value = value }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(Int64.self) {
            value = String(number)
        } else {
            value = try container.decode(String.self)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }
}
