import ArgumentParser
import FlintServer
import FlintWire
import Foundation

extension Projects {
    struct Config: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Change settings of a project's configuration and print the result.",
            discussion: """
                Each --set names a field of the configuration `projects show` prints by its dotted path, with a \
                JSON value (a bare word is a string), as an Admin API PATCH of those fields would. \
                Examples: --set signIn.anonymous.enabled=true, --set mfa.state=ENABLED, \
                --set 'authorizedDomains=["localhost","example.com"]'.
                """)
        @OptionGroup var options: AdminOptions
        @Argument(help: "The project's id.") var id: String
        @Option(name: .customLong("set"), help: ArgumentHelp("A setting to change, as path=value.", valueName: "path=value"))
        var settings: [Setting] = []

        func validate() throws {
            guard !settings.isEmpty else { throw ValidationError("Name at least one --set path=value.") }
        }

        func run() async throws {
            let updated = try await options.withBackend(acceptsTenant: false) { backend in
                let current = try await backend.config(of: id)
                let change = try Setting.change(applying: settings, to: try JSONValue(encoding: current))
                // The mask names exactly the fields present in `change`. Sent explicitly, as a server in emulator
                // mode treats a PATCH without one as a reset of its emulator settings.
                let mask = change.presentFieldPaths
                guard !mask.isEmpty else { return current }
                return try await backend.updateConfig(of: id, change, updateMask: mask.joined(separator: ","))
            }
            try Output.json(updated)
        }
    }
}

/// One `--set path=value`: a dotted path into the v2 project configuration and its new JSON value.
struct Setting: ExpressibleByArgument {
    var path: String
    var value: JSONValue

    init?(argument: String) {
        guard let separator = argument.firstIndex(of: "="), separator != argument.startIndex else { return nil }
        path = String(argument[..<separator])
        let text = String(argument[argument.index(after: separator)...])
        value = (try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))) ?? .string(text)
    }

    /// The configuration change that sets every path; a path the configuration `current` lacks is refused.
    static func change(applying settings: [Setting], to current: JSONValue) throws -> ProjectConfig {
        var change = JSONValue.object([:])
        for setting in settings {
            let keys = setting.path.split(separator: ".").map(String.init)
            guard current.contains(path: keys[...]) else {
                throw FlintError(.invalidArgument, "\(setting.path) is not a setting; `flint projects show` lists them.")
            }
            guard (try? config(from: JSONValue.object([:]).setting(setting.value, at: keys[...]))) != nil else {
                throw FlintError(.invalidArgument, "\(setting.path) cannot be \(String(decoding: try Output.jsonData(setting.value), as: UTF8.self)).")
            }
            change = change.setting(setting.value, at: keys[...])
        }
        return try config(from: change)
    }

    private static func config(from json: JSONValue) throws -> ProjectConfig {
        try JSONDecoder().decode(ProjectConfig.self, from: Output.jsonData(json))
    }
}

extension JSONValue {
    /// The JSON form of an encodable value.
    init(encoding value: some Encodable) throws {
        self = try JSONDecoder().decode(JSONValue.self, from: Output.jsonData(value))
    }

    /// Whether nested objects lead from here along `path`.
    func contains(path: ArraySlice<String>) -> Bool {
        guard let key = path.first else { return true }
        return objectValue?[key]?.contains(path: path.dropFirst()) ?? false
    }

    /// This object with `value` at `path`, creating the objects on the way.
    func setting(_ value: JSONValue, at path: ArraySlice<String>) -> JSONValue {
        guard let key = path.first else { return value }
        var object = objectValue ?? [:]
        object[key] = (object[key] ?? .object([:])).setting(value, at: path.dropFirst())
        return .object(object)
    }
}
