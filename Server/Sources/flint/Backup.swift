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
        let store = SQLiteBackup.storePath(in: try options.sqliteDataDirectory(otherwise: "back it up with pg_dump"))
        try reportingFailure { try SQLiteBackup.copy(from: store, to: to) }
        print("Backed up \(store) to \(to)")
    }
}

/// `flint restore`: puts a backup in place of the SQLite store, while no server uses it.
struct Restore: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Replace the SQLite store with a backup (refused while a server uses the data directory).")
    @OptionGroup var options: ServerOptions
    @Argument(help: "The backup file, as `flint backup` wrote it.") var file: String

    func run() throws {
        let dataDirectory = try options.sqliteDataDirectory(otherwise: "restore it with pg_restore or psql")
        try reportingFailure { try SQLiteBackup.restore(file, into: dataDirectory) }
        print("Restored \(file) into \(SQLiteBackup.storePath(in: dataDirectory))")
    }
}

extension ServerOptions {
    /// The data directory of the SQLite store; a PostgreSQL store is refused with what to do `otherwise`.
    func sqliteDataDirectory(otherwise: String) throws -> URL {
        let configuration = try configuration()
        guard configuration.databaseURL == nil else {
            throw ValidationError("The store is PostgreSQL: \(otherwise) (see docs/production.md).")
        }
        return configuration.dataDirectory
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
