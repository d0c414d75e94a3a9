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
                STANDARD_SCRYPT, PBKDF2_SHA256, HMAC_SHA256, HMAC_SHA512, SHA256, SHA512, BCRYPT). Users are imported \
                1000 at a time; each user that cannot be imported is reported and the rest go on.
                """)
        @OptionGroup var options: AdminOptions
        @Argument(help: "The file to read, e.g. users.json or users.csv.") var file: String
        @Option(help: "json or csv (default: the file's extension, else json).") var format: UserFileFormat?
        @Option(name: .customLong("hash-algo"), help: "How the password hashes were made.") var hashAlgorithm: String?
        @Option(name: .customLong("hash-key"), help: "SCRYPT's signer key, or the HMAC key (base64).") var hashKey: String?
        @Option(name: .customLong("salt-separator"), help: "SCRYPT's salt separator (base64).") var saltSeparator: String?
        @Option(help: "SCRYPT's rounds, or the iterations of PBKDF2/SHA.") var rounds: Int?
        @Option(name: .customLong("mem-cost"), help: "SCRYPT's memory cost (log2 N).") var memoryCost: Int?

        func run() async throws {
            let data = try Data(contentsOf: URL(fileURLWithPath: file))
            let users: [ExportedUser]
            switch format ?? UserFileFormat(path: file) {
            case .json:
                users = try JSONDecoder().decode(ExportFile.self, from: data).users
            case .csv:
                let rows = ExportCSV.decode(String(decoding: data, as: UTF8.self))
                users = rows.compactMap(ExportCSV.user)
                guard users.count == rows.count else {
                    throw ValidationError("\(file): \(rows.count - users.count) rows are not users (\(ExportCSV.columnCount) columns, a uid first).")
                }
            }
            let progress = Output.Progress(total: users.count, verb: "Imported", noun: "users")
            let batchSize = AccountService.maximumBatch
            var failures = 0
            try await options.withBackend { backend in
                for start in stride(from: 0, to: users.count, by: batchSize) {
                    let batch = Array(users[start..<min(start + batchSize, users.count)])
                    var request = BatchCreateRequest(users: batch.map(\.record), hashAlgorithm: hashAlgorithm?.uppercased())
                    request.signerKey = hashKey
                    request.saltSeparator = saltSeparator
                    request.rounds = rounds
                    request.memoryCost = memoryCost
                    let response = try await backend.batchCreate(request)
                    for failure in response.error ?? [] {
                        Output.error("\(batch[failure.index].localId): \(failure.message)")
                        failures += 1
                    }
                    progress.update(min(start + batchSize, users.count))
                }
            }
            if failures > 0 {
                Output.error("\(failures) of \(users.count) users were not imported.")
                throw ExitCode.failure
            }
        }
    }
}
