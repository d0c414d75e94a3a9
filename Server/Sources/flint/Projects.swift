import ArgumentParser
import FlintServer
import FlintWire
import Foundation

/// `flint projects`: the projects one server hosts.
struct Projects: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Create, list, inspect and configure projects.",
        discussion: "Each project has its own users, API keys and settings; `--project` picks the one other commands use.",
        subcommands: [Create.self, List.self, Show.self, Config.self])

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a project with the default settings and print its first API key.",
            discussion: "Project ids are made of lowercase letters, digits and hyphens, as Firebase's are.")
        @OptionGroup var options: ServerOptions
        @Argument(help: "The new project's id, e.g. my-app.") var id: String

        func validate() throws {
            guard !id.isEmpty, id.allSatisfy({ ($0.isASCII && ($0.isLowercase || $0.isNumber)) || $0 == "-" }) else {
                throw ValidationError("A project id is made of lowercase letters, digits and hyphens: \(id)")
            }
        }

        func run() async throws {
            let apiKey = try await options.withServer { server in
                if try await server.projects.project(id) != nil {
                    throw FlintError(.invalidArgument, "Project \(id) already exists.")
                }
                try await server.projects.ensureProject(id)
                return try await server.projects.firstAPIKey(projectID: id)
            }
            print("Created project \(id)")
            print("API key: \(apiKey)")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the project ids, one per line.")
        @OptionGroup var options: ServerOptions
        @Flag(help: "Print a JSON array instead.") var json = false

        func run() async throws {
            let ids = try await options.withServer { server in try await server.store.settings.projectIDs() }
            if json {
                try Output.json(ids)
            } else {
                ids.forEach { print($0) }
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a project's configuration as JSON.",
            discussion: "The shape of the Identity Toolkit v2 `projects/{id}/config` resource the Admin APIs read.")
        @OptionGroup var options: AdminOptions
        @Argument(help: "The project's id (default: --project).") var id: String?

        func run() async throws {
            let config = try await options.withBackend(acceptsTenant: false) { backend in try await backend.config(of: id ?? backend.projectID) }
            try Output.json(config)
        }
    }
}
