import ArgumentParser
import FlintServer
import Foundation

/// `flint backup`: a consistent copy of the embedded SQLite store, taken while a server runs.
struct Backup: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Copy the SQLite store to a new file, consistently, while a server may be serving writes.",
        discussion: """
            The master key (master.key in the data directory, or FLINT_MASTER_KEY) is not in the copy: keep it \
            apart from the backups; without it the sealed secrets (signing keys, provider secrets) cannot be read. \
            A PostgreSQL store is backed up with pg_dump.
            """)
    @OptionGroup var options: ServerOptions
    @Option(help: "The file to write; it must not exist.") var to: String

    func run() throws {
        let configuration = try options.configuration()
        guard configuration.databaseURL == nil else {
            throw ValidationError("The store is PostgreSQL: back it up with pg_dump (see the README).")
        }
        try reportingFailure {
            try SQLiteBackup.copy(from: SQLiteBackup.storePath(in: configuration.dataDirectory), to: to)
        }
        print("Backed up \(SQLiteBackup.storePath(in: configuration.dataDirectory)) to \(to)")
    }
}

/// `flint restore`: puts a backup in place of the SQLite store, while no server uses it.
struct Restore: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Replace the SQLite store with a backup (refused while a server uses the data directory).")
    @OptionGroup var options: ServerOptions
    @Argument(help: "The backup file, as `flint backup` wrote it.") var file: String

    func run() throws {
        let configuration = try options.configuration()
        guard configuration.databaseURL == nil else {
            throw ValidationError("The store is PostgreSQL: restore it with pg_restore or psql (see the README).")
        }
        try reportingFailure { try SQLiteBackup.restore(file, into: configuration.dataDirectory) }
        print("Restored \(file) into \(SQLiteBackup.storePath(in: configuration.dataDirectory))")
    }
}

/// Prints a backup failure as one line and fails the command.
private func reportingFailure(_ body: () throws -> Void) throws {
    do {
        try body()
    } catch let failure as SQLiteBackup.Failure {
        Output.error(failure.description)
        throw ExitCode.failure
    }
}
