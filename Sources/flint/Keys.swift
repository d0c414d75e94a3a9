import ArgumentParser
import FlintServer
import Foundation

/// `flint keys`: the RS256 keys that sign ID tokens.
struct Keys: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Manage the keys that sign ID tokens.", subcommands: [Rotate.self, List.self, Benchmark.self])

    struct Rotate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a new signing key. It signs from now on; tokens signed by older keys still verify.")
        @OptionGroup var options: ServerOptions

        func run() async throws {
            let kid = try await options.withServer { server in try await server.keyring.rotate() }
            print("New signing key: \(kid)")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the signing keys (the last one signs).")
        @OptionGroup var options: ServerOptions

        func run() async throws {
            let records = try await options.withServer { server in try await server.store.signingKeys() }
            for record in records {
                let created = Date(timeIntervalSince1970: TimeInterval(record.createdAt))
                print("\(record.kid)  created \(created.formatted(.iso8601))")
            }
        }
    }
}
