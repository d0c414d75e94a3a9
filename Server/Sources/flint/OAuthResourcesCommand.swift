import ArgumentParser
import FlintServer
import FlintWire
import Foundation

/// `flint oauth-resources`: the protected resources of the project's OpenID provider (RFC 8707), as the admin API's
/// `v2/projects/{p}/oauthResources` manages them, on the database or on a running server (`--server`). They are the
/// project's, which its tenants' providers serve too, so the commands take no `--tenant`.
struct OAuthResourcesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "oauth-resources",
        abstract: "Create, list, show, change and delete the protected resources of the project's OpenID provider (--project).",
        discussion: """
            A resource is an API (an MCP server, say) that clients ask access tokens for by its URI, the `resource` \
            parameter of RFC 8707: the tokens name it as their audience, with the resource's scopes the client was granted.
            """,
        subcommands: [Create.self, List.self, Get.self, Update.self, Delete.self])

    /// The settings `create` and `update` take; `update` changes only those given.
    struct Settings: ParsableArguments {
        @Option(name: .customLong("name"), help: "The name the consent page shows.") var displayName: String?
        @Option(name: .customLong("scope"), help: "A scope of the resource clients may ask for. Repeat for several; replaces the scopes.")
        var scopes: [String] = []
        @Flag(name: .customLong("no-scopes"), help: "With update: remove every scope of the resource.") var noScopes = false
        @Option(name: .customLong("client"), help: "The only clients that may ask tokens for it (default: every client). Repeat for several.")
        var clientIDs: [String] = []
        @Flag(name: .customLong("all-clients"), help: "With update: open the resource to every client of the project again.")
        var allClients = false

        /// The resource the flags give, and the field paths they name (an `updateMask`).
        func config(resource: String? = nil) throws -> (config: OAuthResource, paths: [String]) {
            if noScopes, !scopes.isEmpty { throw ValidationError("--no-scopes and --scope exclude each other.") }
            if allClients, !clientIDs.isEmpty { throw ValidationError("--all-clients and --client exclude each other.") }
            let config = OAuthResource(resource: resource, displayName: displayName, scopes: scopes.isEmpty && !noScopes ? nil : scopes,
                                       allowedClientIds: clientIDs.isEmpty && !allClients ? nil : clientIDs)
            let named: [(String, Bool)] = [
                ("displayName", displayName != nil), ("scopes", config.scopes != nil), ("allowedClientIds", config.allowedClientIds != nil),
            ]
            return (config, named.filter(\.1).map(\.0))
        }
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Register a resource and print it.",
                                                        discussion: "It needs --resource and --name.")
        @OptionGroup var options: AdminOptions
        @Option(name: .customLong("resource"), help: "The resource's absolute URI (https; http only on loopback), fixed once made.")
        var resource: String
        @OptionGroup var settings: Settings
        @Flag(help: "Print the resource as JSON instead.") var json = false

        func run() async throws {
            let config = try settings.config(resource: resource).config
            let created = try await options.withBackend(acceptsTenant: false) { backend in try await backend.createOAuthResource(config) }
            try OAuthResourcesCommand.show(created, json: json)
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the resources.")
        @OptionGroup var options: AdminOptions
        @Flag(help: "Print a JSON array instead.") var json = false

        func run() async throws {
            let resources = try await options.withBackend(acceptsTenant: false) { backend in try await backend.oauthResources() }
            if json { return try Output.json(resources) }
            Output.table(header: ["RESOURCE ID", "DISPLAY NAME", "RESOURCE", "SCOPES", "CLIENTS"], rows: resources.map {
                [$0.resourceId ?? "", $0.displayName ?? "", $0.resource ?? "", ($0.scopes ?? []).joined(separator: " "),
                 Self.clients($0)]
            })
        }

        static func clients(_ resource: OAuthResource) -> String {
            let clients = resource.allowedClientIds ?? []
            return clients.isEmpty ? "(all)" : clients.joined(separator: " ")
        }
    }

    struct Get: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show a resource.")
        @OptionGroup var options: AdminOptions
        @Argument(help: "The resource's ID.") var resourceID: String
        @Flag(help: "Print the resource as JSON instead.") var json = false

        func run() async throws {
            let resource = try await options.withBackend(acceptsTenant: false) { backend in try await backend.oauthResource(resourceID) }
            try OAuthResourcesCommand.show(resource, json: json)
        }
    }

    struct Update: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Change the settings given of a resource (its URI stays).")
        @OptionGroup var options: AdminOptions
        @Argument(help: "The resource's ID.") var resourceID: String
        @OptionGroup var settings: Settings
        @Flag(help: "Print the resource as JSON instead.") var json = false

        func run() async throws {
            let (config, paths) = try settings.config()
            guard !paths.isEmpty else { throw ValidationError("Name at least one setting to change.") }
            let updated = try await options.withBackend(acceptsTenant: false) { backend in
                try await backend.updateOAuthResource(resourceID, config, updateMask: paths.joined(separator: ","))
            }
            try OAuthResourcesCommand.show(updated, json: json)
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a resource: clients can no longer ask tokens for it.")
        @OptionGroup var options: AdminOptions
        @Argument(help: "The resource's ID.") var resourceID: String

        func run() async throws {
            try await options.withBackend(acceptsTenant: false) { backend in try await backend.deleteOAuthResource(resourceID) }
            Output.note("Deleted OAuth resource \(resourceID).")
        }
    }

    static func show(_ resource: OAuthResource, json: Bool) throws {
        if json { return try Output.json(resource) }
        Output.fields([
            ("Resource ID", resource.resourceId), ("Display name", resource.displayName), ("Resource", resource.resource),
            ("Scopes", resource.scopes?.joined(separator: " ")), ("Clients", List.clients(resource)), ("Created", resource.createTime),
        ])
    }
}

extension LocalBackend {
    func oauthResources() async throws -> [OAuthResource] { try await server.oauthResources(caller: caller).oauthResources }

    func oauthResource(_ resourceID: String) async throws -> OAuthResource { try await server.oauthResource(resourceID, caller: caller) }

    func createOAuthResource(_ config: OAuthResource) async throws -> OAuthResource {
        try await server.createOAuthResource(config, caller: caller)
    }

    func updateOAuthResource(_ resourceID: String, _ change: OAuthResource, updateMask: String) async throws -> OAuthResource {
        try await server.updateOAuthResource(resourceID, change, updateMask: updateMask, caller: caller)
    }

    func deleteOAuthResource(_ resourceID: String) async throws { try await server.deleteOAuthResource(resourceID, caller: caller) }
}

/// Through FlintAdmin's calls of the resources (`AdminAuth+OAuthResources.swift`).
extension RemoteBackend {
    func oauthResources() async throws -> [OAuthResource] { try await remote { try await auth.oauthResources() } }

    func oauthResource(_ resourceID: String) async throws -> OAuthResource {
        try await remote { try await auth.oauthResource(resourceID) }
    }

    func createOAuthResource(_ config: OAuthResource) async throws -> OAuthResource {
        try await remote { try await auth.createOAuthResource(config) }
    }

    func updateOAuthResource(_ resourceID: String, _ change: OAuthResource, updateMask: String) async throws -> OAuthResource {
        try await remote { try await auth.updateOAuthResource(resourceID, change, updateMask: Self.fields(updateMask)) }
    }

    func deleteOAuthResource(_ resourceID: String) async throws { try await remote { try await auth.deleteOAuthResource(resourceID) } }
}
