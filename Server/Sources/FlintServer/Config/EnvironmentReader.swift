import Foundation
import NIOCore

/// Reads `FLINT_*` variables for the configuration types, naming the variable in every error.
struct EnvironmentReader {
    let environment: [String: String]

    init(_ environment: [String: String]) { self.environment = environment }

    /// The value, trimmed; nil when unset or empty.
    subscript(name: String) -> String? {
        guard let value = environment[name]?.trimmingCharacters(in: .whitespacesAndNewlines), !value.isEmpty else { return nil }
        return value
    }

    func required(_ name: String, because reason: String) throws -> String {
        guard let value = self[name] else { throw DeliveryConfigurationError.missing(variable: name, reason: reason) }
        return value
    }

    /// An http(s) URL with a host; `fallback` when unset (required when there is none).
    func url(_ name: String, because reason: String, default fallback: String? = nil) throws -> String {
        guard let value = self[name] ?? fallback else { throw DeliveryConfigurationError.missing(variable: name, reason: reason) }
        guard let components = URLComponents(string: value), ["http", "https"].contains(components.scheme?.lowercased() ?? ""),
              components.host?.isEmpty == false
        else { throw DeliveryConfigurationError.invalid(setting: name, reason: "\"\(value)\" is not an http(s) URL") }
        return value
    }

    /// A whole number ≥ 0; nil when unset.
    func wholeNumber(_ name: String) throws -> Int64? {
        guard let text = self[name] else { return nil }
        guard let number = Int64(text), number >= 0 else {
            throw DeliveryConfigurationError.invalid(setting: name, reason: "\"\(text)\" is not a whole number ≥ 0")
        }
        return number
    }

    /// A whole number of seconds ≥ 0 as a `TimeAmount`; nil when unset.
    func seconds(_ name: String) throws -> TimeAmount? {
        try wholeNumber(name).map { .seconds($0) }
    }

    func file(_ name: String, _ path: String) throws -> String {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw DeliveryConfigurationError.unreadableFile(variable: name, path: path)
        }
        return text
    }
}
