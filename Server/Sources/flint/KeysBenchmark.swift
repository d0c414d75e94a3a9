import ArgumentParser
import FlintServer
import Foundation
import Logging

extension Keys {
    /// Measures how fast this machine signs ID-token-sized payloads with the server's own signing path,
    /// the ceiling for token refresh throughput. Used by `Benchmarks/run.sh`.
    struct Benchmark: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Measure RS256 signing throughput of the server's keyring (prints signatures/s).")
        @OptionGroup var options: ServerOptions
        @Option(help: "Seconds to sign for.") var seconds: Double = 3
        @Option(help: "Concurrent signing tasks (default: one per core).") var tasks: Int = ProcessInfo.processInfo.activeProcessorCount

        func run() async throws {
            let payload = Data(#"{"iss":"https://securetoken.google.com/demo-flint","aud":"demo-flint","auth_time":1795320029,"user_id":"Clvuzk0YodD4j3YBnIvI2Ew5aWQ2","sub":"Clvuzk0YodD4j3YBnIvI2Ew5aWQ2","iat":1795320029,"exp":1795323629,"email":"a@example.com","email_verified":false,"firebase":{"identities":{"email":["a@example.com"]},"sign_in_provider":"password"}}"#.utf8)
            let (count, elapsed) = try await options.withServer { server in
                let deadline = Date().addingTimeInterval(seconds)
                let keyring = server.keyring
                let start = Date()
                let count = try await withThrowingTaskGroup(of: Int.self) { group in
                    for _ in 0..<max(1, tasks) {
                        group.addTask {
                            var signed = 0
                            while Date() < deadline {
                                _ = try await keyring.sign(payload: payload)
                                signed += 1
                            }
                            return signed
                        }
                    }
                    return try await group.reduce(0, +)
                }
                return (count, Date().timeIntervalSince(start))
            }
            print(String(format: "rs256_signatures_per_second %.0f (tasks %d, %.1f s)", Double(count) / elapsed, tasks, elapsed))
        }
    }
}
