import ArgumentParser
import FlintServer
import Foundation

/// `flint service-accounts`: production mode's admin credentials. A key file, in Google's service-account
/// format, lets the Admin SDKs (and Google's client libraries) call the admin API and mint custom tokens.
struct ServiceAccountsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "service-accounts",
        abstract: "Manage the admin credentials (service-account keys) of the project (--project).",
        discussion: """
            Flint keeps only the public half of a key; the private key is written once, to the key file. \
            Give the file to an Admin SDK (credentials.Certificate(path) in Python, cert(...) in Node). \
            A revoked key authenticates nothing from then on.
            """,
        subcommands: [Create.self, List.self, Revoke.self])

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a key and write its key file.")
        @OptionGroup var options: ServerOptions
        @Argument(help: "Where to write the key file (created with mode 600; an existing file is not overwritten).")
        var keyFile: String

        func run() async throws {
            guard !FileManager.default.fileExists(atPath: keyFile) else {
                throw ValidationError("\(keyFile) exists already")
            }
            let key = try await options.withServer { server in
                try await server.serviceAccounts.create(projectID: server.configuration.projectID)
            }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            guard FileManager.default.createFile(atPath: keyFile, contents: try encoder.encode(key),
                                                 attributes: [.posixPermissions: 0o600])
            else { throw ValidationError("Cannot write \(keyFile)") }
            print("Created key \(key.private_key_id) (\(key.client_email)) in \(keyFile)")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the project's keys, revoked ones included.")
        @OptionGroup var options: ServerOptions

        func run() async throws {
            let records = try await options.withServer { server in
                try await server.store.serviceAccounts.serviceAccounts(projectID: server.configuration.projectID)
            }
            Output.table(header: ["KEY ID", "ACCOUNT", "CREATED", "REVOKED"], rows: records.map { record in
                [record.keyID, record.clientEmail, Output.date(seconds: String(record.createdAt)) ?? "-",
                 Output.date(seconds: record.revokedAt.map(String.init)) ?? "-"]
            })
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Revoke a key: it authenticates nothing from now on.")
        @OptionGroup var options: ServerOptions
        @Argument(help: "The key id (the key file's private_key_id).") var keyID: String

        func run() async throws {
            let revoked = try await options.withServer { server in
                try await server.store.serviceAccounts.revokeServiceAccount(keyID: keyID, at: Int64(Date().timeIntervalSince1970))
            }
            guard revoked else { throw ValidationError("No active key \(keyID)") }
            print("Revoked key \(keyID)")
        }
    }
}
