import ArgumentParser
import FlintServer
import Foundation

/// `flint export --emulator-format DIR`: the folder `firebase emulators:export` writes, from the database or a server.
struct EmulatorDataExport: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write the project's users, its tenants' and its emulator config as a Firebase emulator data folder.",
        discussion: """
            The folder is what `firebase emulators:export` writes and `firebase emulators:start --import` and \
            `flint serve --emulator --import` read: firebase-export-metadata.json (other emulators' entries in an \
            existing one are kept) and auth_export/ with accounts.json, accounts-<tenant>.json and config.json. \
            Passwords set on Flint are written as flintHash:… (their scrypt hash and its parameters), which Flint \
            reads back; the official emulator's fakeHash:… ones as they were imported. With --server, the server \
            must run in emulator mode.
            """)
    @OptionGroup var options: AdminOptions
    @Option(name: .customLong("emulator-format"), help: ArgumentHelp("The folder to write.", valueName: "dir"))
    var directory: String

    func run() async throws {
        let folder = try await options.withBackend(acceptsTenant: false) { try await $0.emulatorData() }
        try await reportingDataFaults { try folder.write(to: URL(fileURLWithPath: directory)) }
        let users = folder.accounts.reduce(0) { $0 + $1.users.count }
        Output.note("Exported \(users) users (\(folder.accounts.count - 1) tenants) to \(directory).")
    }
}

/// Runs `body`; an `EmulatorDataFault` (naming the file and the entry) is printed to stderr and fails the command.
func reportingDataFaults<Value>(_ body: () async throws -> Value) async throws -> Value {
    do {
        return try await body()
    } catch let fault as EmulatorDataFault {
        Output.error(fault.description)
        throw ExitCode.failure
    }
}
