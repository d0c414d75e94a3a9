import ArgumentParser
import FlintServer
import FlintWire
import Foundation

/// `flint oauth-clients`: the clients of the project's (or a tenant's, `--tenant`) OpenID provider, as the admin API's
/// `v2/projects/{p}/oauthClients` manages them, on the database or on a running server (`--server`).
struct OAuthClientsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "oauth-clients",
        abstract: "Create, list, show, change, rotate the secret of and delete the OpenID provider's clients (--project, --tenant).",
        discussion: """
            A client is an application that signs users in with the project's accounts (OpenID Connect, OAuth 2.1). A \
            confidential client's secret is printed once, by create and rotate-secret; Flint keeps only its hash.
            """,
        subcommands: [Create.self, List.self, Get.self, Update.self, RotateSecret.self, Delete.self])

    /// The settings `create` and `update` take; `update` changes only those given.
    struct Settings: ParsableArguments {
        @Option(name: .customLong("display-name"), help: "The name the consent page shows.") var displayName: String?
        @Option(name: .customLong("redirect-uri"), help: "Where codes may go (exact; loopback without a port: any port). Repeat for several.")
        var redirectURIs: [String] = []
        @Option(name: .customLong("post-logout-redirect-uri"), help: "Where logout may return. Repeat for several.")
        var postLogoutRedirectURIs: [String] = []
        @Option(name: .customLong("scope"), help: "A scope the client may ask for (default: openid email profile phone offline_access). Repeat for several.")
        var scopes: [String] = []
        @Option(name: .customLong("grant-type"), help: "authorization_code or refresh_token (default: both). Repeat for several.")
        var grantTypes: [String] = []
        @Option(name: .customLong("first-party"), help: "Whether the client skips the consent page (true or false).") var firstParty: Bool?
        @Option(name: .customLong("owner"), help: "Who runs the client, named on the consent page.") var owner: String?
        @Option(name: .customLong("logo-uri"), help: "An https logo.") var logoURI: String?

        func config(type: String? = nil) -> (config: OAuthClient, paths: [String]) {
            let config = OAuthClient(
                displayName: displayName, type: type, redirectUris: redirectURIs.isEmpty ? nil : redirectURIs,
                postLogoutRedirectUris: postLogoutRedirectURIs.isEmpty ? nil : postLogoutRedirectURIs,
                allowedScopes: scopes.isEmpty ? nil : scopes, grantTypes: grantTypes.isEmpty ? nil : grantTypes,
                firstParty: firstParty, logoUri: logoURI, ownerName: owner)
            let named: [(String, Bool)] = [
                ("displayName", displayName != nil), ("redirectUris", !redirectURIs.isEmpty),
                ("postLogoutRedirectUris", !postLogoutRedirectURIs.isEmpty), ("allowedScopes", !scopes.isEmpty),
                ("grantTypes", !grantTypes.isEmpty), ("firstParty", firstParty != nil), ("ownerName", owner != nil),
                ("logoUri", logoURI != nil),
            ]
            return (config, named.filter(\.1).map(\.0))
        }
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a client and print it with its secret (shown this once).",
            discussion: "It needs --display-name and at least one --redirect-uri.")
        @OptionGroup var options: AdminOptions
        @OptionGroup var settings: Settings
        @Flag(help: "A public client (a native or browser app, no secret); else confidential.") var `public` = false
        @Flag(help: "Print the client as JSON instead.") var json = false

        func run() async throws {
            let config = settings.config(type: `public` ? OAuthClient.public : OAuthClient.confidential).config
            let created = try await options.withBackend { backend in try await backend.createOAuthClient(config) }
            try OAuthClientsCommand.show(created, json: json)
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the clients.")
        @OptionGroup var options: AdminOptions
        @Flag(help: "Print a JSON array instead.") var json = false

        func run() async throws {
            let clients = try await options.withBackend { backend in try await backend.allOAuthClients() }
            if json { return try Output.json(clients) }
            Output.table(header: ["CLIENT ID", "DISPLAY NAME", "TYPE", "FIRST PARTY", "REDIRECT URIS"], rows: clients.map {
                [$0.clientId ?? "", $0.displayName ?? "", $0.type ?? "", $0.firstParty == true ? "yes" : "no",
                 ($0.redirectUris ?? []).joined(separator: " ")]
            })
        }
    }

    struct Get: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show a client.")
        @OptionGroup var options: AdminOptions
        @Argument(help: "The client's ID.") var clientID: String
        @Flag(help: "Print the client as JSON instead.") var json = false

        func run() async throws {
            try OAuthClientsCommand.show(try await options.withBackend { backend in try await backend.oauthClient(clientID) }, json: json)
        }
    }

    struct Update: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Change the settings given of a client (its type and secret stay).")
        @OptionGroup var options: AdminOptions
        @Argument(help: "The client's ID.") var clientID: String
        @OptionGroup var settings: Settings
        @Flag(help: "Print the client as JSON instead.") var json = false

        func run() async throws {
            let (config, paths) = settings.config()
            guard !paths.isEmpty else { throw ValidationError("Name at least one setting to change.") }
            let updated = try await options.withBackend { backend in
                try await backend.updateOAuthClient(clientID, config, updateMask: paths.joined(separator: ","))
            }
            try OAuthClientsCommand.show(updated, json: json)
        }
    }

    struct RotateSecret: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rotate-secret", abstract: "Give a confidential client a new secret (printed once); the old one stops working.")
        @OptionGroup var options: AdminOptions
        @Argument(help: "The client's ID.") var clientID: String
        @Flag(help: "Print the client as JSON instead.") var json = false

        func run() async throws {
            try OAuthClientsCommand.show(
                try await options.withBackend { backend in try await backend.rotateOAuthClientSecret(clientID) }, json: json)
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a client, with the consents and tokens it was given.")
        @OptionGroup var options: AdminOptions
        @Argument(help: "The client's ID.") var clientID: String

        func run() async throws {
            try await options.withBackend { backend in try await backend.deleteOAuthClient(clientID) }
            Output.note("Deleted OAuth client \(clientID).")
        }
    }

    static func show(_ client: OAuthClient, json: Bool) throws {
        if json { return try Output.json(client) }
        Output.fields([
            ("Client ID", client.clientId), ("Display name", client.displayName), ("Type", client.type),
            ("Authentication", client.tokenEndpointAuthMethod), ("Redirect URIs", client.redirectUris?.joined(separator: " ")),
            ("Post-logout URIs", client.postLogoutRedirectUris?.joined(separator: " ")),
            ("Scopes", client.allowedScopes?.joined(separator: " ")), ("Grant types", client.grantTypes?.joined(separator: " ")),
            ("First party", client.firstParty == true ? "yes" : "no"), ("Owner", client.ownerName), ("Created", client.createTime),
        ])
        if let secret = client.clientSecret {
            Output.fields([("Client secret", secret)])
            Output.note("The secret is shown this once; Flint keeps only its hash.")
        }
    }
}

extension AdminBackend {
    /// Every client of the realm, read a page at a time.
    func allOAuthClients() async throws -> [OAuthClient] {
        try await allPages { pageToken in
            let page = try await oauthClients(pageToken: pageToken)
            return (page.oauthClients, page.nextPageToken)
        }
    }
}

extension LocalBackend {
    func oauthClients(pageToken: String?) async throws -> ListOAuthClientsResponse {
        try await server.oauthClients(pageToken: pageToken, caller: caller)
    }

    func oauthClient(_ clientID: String) async throws -> OAuthClient { try await server.oauthClient(clientID, caller: caller) }

    func createOAuthClient(_ config: OAuthClient) async throws -> OAuthClient {
        try await server.createOAuthClient(config, caller: caller)
    }

    func updateOAuthClient(_ clientID: String, _ change: OAuthClient, updateMask: String) async throws -> OAuthClient {
        try await server.updateOAuthClient(clientID, change, updateMask: updateMask, caller: caller)
    }

    func rotateOAuthClientSecret(_ clientID: String) async throws -> OAuthClient {
        try await server.rotateOAuthClientSecret(clientID, caller: caller)
    }

    func deleteOAuthClient(_ clientID: String) async throws { try await server.deleteOAuthClient(clientID, caller: caller) }
}

extension RemoteBackend {
    private var oauthClientsPath: String { "/v2/\(auth.resourceName)/oauthClients" }

    func oauthClients(pageToken: String?) async throws -> ListOAuthClientsResponse {
        let query = pageToken.map { "?pageToken=" + FormURLEncoding.escape($0) } ?? ""
        return try await call("GET", oauthClientsPath + query, as: ListOAuthClientsResponse.self)
    }

    func oauthClient(_ clientID: String) async throws -> OAuthClient {
        try await call("GET", oauthClientsPath + "/" + FormURLEncoding.escape(clientID), as: OAuthClient.self)
    }

    func createOAuthClient(_ config: OAuthClient) async throws -> OAuthClient {
        try await call("POST", oauthClientsPath, body: config, as: OAuthClient.self)
    }

    func updateOAuthClient(_ clientID: String, _ change: OAuthClient, updateMask: String) async throws -> OAuthClient {
        try await call("PATCH", oauthClientsPath + "/" + FormURLEncoding.escape(clientID) + "?updateMask=" + FormURLEncoding.escape(updateMask),
                       body: change, as: OAuthClient.self)
    }

    func rotateOAuthClientSecret(_ clientID: String) async throws -> OAuthClient {
        try await call("POST", oauthClientsPath + "/" + FormURLEncoding.escape(clientID) + ":rotateSecret",
                       body: RotateOAuthClientSecretRequest(), as: OAuthClient.self)
    }

    func deleteOAuthClient(_ clientID: String) async throws {
        _ = try await call("DELETE", oauthClientsPath + "/" + FormURLEncoding.escape(clientID), as: JSONValue.self)
    }
}
