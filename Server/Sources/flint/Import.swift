import ArgumentParser
import FlintServer
import FlintWire
import Foundation

extension Users {
    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Import users from a JSON or CSV file in the format of `firebase auth:export`.",
            discussion: """
                Password hashes keep working when the hash flags describe how they were made — the flags \
                `flint users export` prints, or those of the Firebase project they come from (SCRYPT, \
                STANDARD_SCRYPT, PBKDF2_SHA256, HMAC_SHA256, HMAC_SHA512, SHA256, SHA512, BCRYPT). The file's form \
                is checked before anything is imported; then it is read 1000 users at a time, a few batches at \
                once, so a file of millions of users fits in little memory. Each user that cannot be imported is \
                reported and the rest go on.
                """)
        @OptionGroup var options: AdminOptions
        @Argument(help: "The file to read, e.g. users.json or users.csv.") var file: String
        @Option(help: "json or csv (default: the file's extension, else json).") var format: UserFileFormat?
        @Option(name: .customLong("hash-algo"), help: "How the password hashes were made.") var hashAlgorithm: String?
        @Option(name: .customLong("hash-key"), help: "SCRYPT's signer key, or the HMAC key (base64).") var hashKey: String?
        @Option(name: .customLong("salt-separator"), help: "SCRYPT's salt separator (base64).") var saltSeparator: String?
        @Option(help: "SCRYPT's rounds, or the iterations of PBKDF2/SHA.") var rounds: Int?
        @Option(name: .customLong("mem-cost"), help: "SCRYPT's memory cost (log2 N).") var memoryCost: Int?

        /// Batches being decoded and written at once: one decodes while another is written, and PostgreSQL or a remote
        /// server writes several at once (a local SQLite database one at a time). Eight were no faster than four
        /// (BENCHMARKS.md, issue 35's import).
        static let batchesInFlight = 4

        func run() async throws {
            // The file is read a batch at a time; its form, and the number of users, are checked first.
            var reader = UserFileReader(path: file, format: format ?? UserFileFormat(path: file))
            let total = try reader.count()
            let template = batchRequestTemplate
            let progress = Output.Progress(total: total, verb: "Imported", noun: "users")
            let failures = try await options.withBackend { backend in
                try await withThrowingTaskGroup(of: BatchOutcome.self) { group in
                    // Outcomes are reported in the file's order: a finished batch waits for those before it.
                    var finished: [Int: BatchOutcome] = [:]
                    var (reported, failures, running) = (0, 0, 0)
                    func collect() async throws {
                        guard let outcome = try await group.next() else { return }
                        running -= 1
                        finished[outcome.firstIndex] = outcome
                        while let next = finished.removeValue(forKey: reported) {
                            for message in next.failures { Output.error(message) }
                            failures += next.failures.count
                            reported += next.count
                            progress.update(reported)
                        }
                    }
                    while let batch = try reader.nextBatch(AccountService.maximumBatch) {
                        if running == Self.batchesInFlight { try await collect() }
                        group.addTask { try await Self.importBatch(batch, template, backend) }
                        running += 1
                    }
                    while running > 0 { try await collect() }
                    return failures
                }
            }
            if failures > 0 {
                Output.error("\(failures) of \(total) users were not imported.")
                throw ExitCode.failure
            }
        }

        /// Every batch's request, its users left out: the hash flags.
        private var batchRequestTemplate: BatchCreateRequest {
            var request = BatchCreateRequest(users: [], hashAlgorithm: hashAlgorithm?.uppercased())
            request.signerKey = hashKey
            request.saltSeparator = saltSeparator
            request.rounds = rounds
            request.memoryCost = memoryCost
            return request
        }

        /// What became of a batch: its entries that were not imported, each as "uid: why".
        private struct BatchOutcome: Sendable {
            let firstIndex: Int
            let count: Int
            let failures: [String]
        }

        /// Decodes a batch and imports its users in one `accounts:batchCreate` call.
        private static func importBatch(_ batch: UserFileBatch, _ template: BatchCreateRequest, _ backend: any AdminBackend)
            async throws -> BatchOutcome {
            var failures: [(index: Int, message: String)] = []
            var users: [(index: Int, user: ExportedUser)] = []
            for (offset, entry) in batch.entries().enumerated() {
                switch entry {
                case .success(let user): users.append((batch.firstIndex + offset, user))
                case .failure(let error): failures.append((batch.firstIndex + offset, "users[\(batch.firstIndex + offset)]: \(error)"))
                }
            }
            if !users.isEmpty {
                var request = template
                request.users = users.map(\.user.record)
                for failure in try await backend.batchCreate(request).error ?? [] {
                    let entry = users[failure.index]
                    failures.append((entry.index, "\(entry.user.localId): \(failure.message)"))
                }
            }
            return BatchOutcome(firstIndex: batch.firstIndex, count: batch.count,
                                failures: failures.sorted { $0.index < $1.index }.map(\.message))
        }
    }
}
