import ArgumentParser
import FlintServer
import Foundation
import Logging

@main
struct Flint: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "flint",
        abstract: "A self-hostable identity server that speaks Firebase Authentication's wire protocol.",
        discussion: """
            Besides `serve`, the commands work on the server's database directly (--data-dir or \
            --database-url), so they also work while no server runs; `--project` picks the project. `users`, \
            `test-numbers` and `projects show|config` can instead act on a running server through its Admin \
            REST API: --server http://host:port, with --key-file (a service-account key) in production.
            """,
        subcommands: [Serve.self, Keys.self, Projects.self, Tenants.self, SAMLProvidersCommand.self, OAuthClientsCommand.self, OAuthResourcesCommand.self, Users.self, TestNumbers.self, ServiceAccountsCommand.self, AuditCommand.self, Backup.self, Restore.self,
                      EmulatorDataExport.self])

    /// ArgumentParser's `main`, with Swift concurrency moved onto NIO's event loops first (see `EventLoopExecutor`).
    static func main() async {
        EventLoopExecutor.install(environment: ProcessInfo.processInfo.environment)
        await main(nil)
    }
}

/// The options every command that opens the server's state shares. Each flag has a `FLINT_*` variable;
/// a flag given on the command line wins.
struct ServerOptions: ParsableArguments {
    @Option(help: "Address to listen on (FLINT_HOST).") var host: String?
    @Option(help: "Port to listen on; 0 picks a free one (FLINT_PORT).") var port: Int?
    @Option(name: .customLong("data-dir"), help: "Folder for the SQLite file and the master key (FLINT_DATA_DIR).")
    var dataDirectory: String?
    @Option(name: .customLong("database-url"), help: "postgres://user:password@host:port/db to use PostgreSQL (FLINT_DATABASE_URL).")
    var databaseURL: String?
    @Flag(help: "Emulator mode: a drop-in for the Firebase Auth emulator (FLINT_EMULATOR=1).") var emulator = false
    @Option(help: "Default project id (FLINT_PROJECT).") var project: String?
    @Option(name: .customLong("public-url"), help: "External base URL used in issuers and links (FLINT_PUBLIC_URL).")
    var publicURL: String?

    func configuration(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> ServerConfiguration {
        func value(_ flag: String?, _ variable: String) -> String? {
            flag ?? environment[variable].flatMap { $0.isEmpty ? nil : $0 }
        }
        let portText = port.map(String.init) ?? value(nil, "FLINT_PORT") ?? "9099"
        guard let port = Int(portText), (0...65535).contains(port) else {
            throw ValidationError("Invalid port: \(portText)")
        }
        let emulatorVariable = environment["FLINT_EMULATOR"]?.lowercased()
        return ServerConfiguration(
            host: value(host, "FLINT_HOST") ?? "127.0.0.1",
            port: port,
            dataDirectory: URL(fileURLWithPath: value(dataDirectory, "FLINT_DATA_DIR") ?? ".flint"),
            databaseURL: value(databaseURL, "FLINT_DATABASE_URL"),
            emulator: emulator || ["1", "true", "yes"].contains(emulatorVariable ?? ""),
            projectID: value(project, "FLINT_PROJECT") ?? "demo-flint",
            publicURL: value(publicURL, "FLINT_PUBLIC_URL"))
    }
}

/// How log lines look: `text` (swift-log's default format, for people) or `json` (one object per line, for shippers).
enum LogFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json
}

/// The logger of a command: FLINT_LOG_LEVEL if set, otherwise `defaultLevel`; lines in `format`, with what
/// `metadataProvider` adds (the server's trace ids).
func makeLogger(defaultLevel: Logger.Level = .info, format: LogFormat = .text,
                metadataProvider: Logger.MetadataProvider? = nil) -> Logger {
    var logger = switch (format, metadataProvider) {
    case (.json, _): Logger(label: "flint") { JSONLogHandler(label: $0, metadataProvider: metadataProvider) }
    case (.text, _): Logger(label: "flint") { TextLogHandler(label: $0, metadataProvider: metadataProvider) }
    }
    logger.logLevel = ProcessInfo.processInfo.environment["FLINT_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? defaultLevel
    return logger
}
