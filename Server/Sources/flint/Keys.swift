import ArgumentParser
import FlintServer
import Foundation

/// `flint keys`: the RS256 keys that sign ID tokens.
struct Keys: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Manage the keys that sign ID tokens.", subcommands: [Rotate.self, List.self, Retire.self, Benchmark.self])

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
        static let configuration = CommandConfiguration(
            abstract: "List the signing keys (the last one signs), and from when each older one may be retired.")
        @OptionGroup var options: ServerOptions

        func run() async throws {
            let keys = try await options.withServer { server in try await server.keyring.keys() }
            for key in keys {
                let state = switch key.retirableAt {
                case nil: "current"
                case let time? where key.retirable: "retirable (since \(Self.date(time)))"
                case let time?: "retirable from \(Self.date(time))"
                }
                print("\(key.kid)  created \(Self.date(key.createdAt))  \(state)")
            }
        }

        private static func date(_ seconds: Int64) -> String {
            Date(timeIntervalSince1970: TimeInterval(seconds)).formatted(.iso8601)
        }
    }

    struct Retire: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove an older signing key: it is no longer published, and tokens it signed no longer verify.",
            discussion: """
                Refused for the current key, and until the key that replaced it has signed for longer than any \
                token lives (session cookies: \(TokenService.sessionCookieDurations.upperBound / 86_400) days), so no valid token stops working. `flint keys list` shows \
                from when each key may be retired. --force retires it at once, for a key that leaked: the ID \
                tokens and session cookies it signed are refused from then on (apps get new ID tokens with their \
                refresh tokens; session cookies must be made again).
                """)
        @OptionGroup var options: ServerOptions
        @Argument(help: "The key id (`flint keys list`).") var kid: String
        @Flag(help: "Retire the key even though tokens it signed may still be valid; they stop verifying at once.")
        var force = false

        func run() async throws {
            try await options.withServer { server in try await server.keyring.retire(kid, force: force) }
            print("Retired signing key: \(kid)")
        }
    }
}
