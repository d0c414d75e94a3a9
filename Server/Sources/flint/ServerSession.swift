import ArgumentParser
import FlintAdminCore
import FlintServer
import Foundation

extension ServerOptions {
    /// Opens the server's state (migrating the database, creating the default project if needed), runs
    /// `body` and closes the state again whether `body` succeeds or not. A `FlintError` (`USER_NOT_FOUND`,
    /// `INVALID_ARGUMENT : …`) is printed to stderr as its message and fails the command.
    func withServer<Value>(_ body: (AuthServer) async throws -> Value) async throws -> Value {
        let server = try await AuthServer.open(configuration: try configuration(), logger: makeLogger(defaultLevel: .warning))
        let outcome: Result<Value, any Error>
        do {
            // What the command changes is recorded as the CLI's, working on the database.
            let scope = AuditScope(time: Int64(Date().timeIntervalSince1970 * 1000), principal: .cli, operation: Self.commandName)
            outcome = .success(try await AuditScope.$current.withValue(scope) { try await body(server) })
        } catch {
            outcome = .failure(error)
        }
        try await server.close()
        return try await reportingFlintErrors { try outcome.get() }
    }
}

extension ServerOptions {
    /// The command being run (`flint users delete`): its subcommand words, none of its arguments (which may be secret).
    static var commandName: String {
        (["flint"] + CommandLine.arguments.dropFirst().prefix { !$0.hasPrefix("-") }.prefix(2)).joined(separator: " ")
    }
}

/// Runs `body`; a `FlintError` (`USER_NOT_FOUND`, `INVALID_ARGUMENT : …`) is printed to stderr as its message
/// and fails the command, whether the database or a server answered.
private func reportingFlintErrors<Value>(_ body: () async throws -> Value) async throws -> Value {
    do {
        return try await body()
    } catch let error as FlintError {
        Output.error(error.message)
        throw ExitCode.failure
    }
}

/// The options of the commands that can act on a running server as well as on the database.
struct AdminOptions: ParsableArguments {
    @OptionGroup var database: ServerOptions
    @Option(name: .customLong("server"), help: ArgumentHelp(
        "A running Flint server to act on through its Admin REST API instead of opening the database (FLINT_SERVER).",
        valueName: "url"))
    var serverURL: String?
    @Option(name: .customLong("key-file"), help: ArgumentHelp(
        "With --server: a service-account key file to sign requests with (FLINT_KEY_FILE); without one, the emulator's owner credential.",
        valueName: "path"))
    var keyFile: String?
    @Option(name: .customLong("tenant"), help: ArgumentHelp(
        "The users commands act on this tenant's accounts instead of the project's.", valueName: "tenant-id"))
    var tenantID: String?

    /// Runs `body` on the server `--server` names, or else on the database opened in this process (closed
    /// again afterwards). A `FlintError` is printed to stderr as its message and fails the command.
    /// - Parameter acceptsTenant: false for the commands that act on the project's settings, which refuse `--tenant`.
    func withBackend<Value>(environment: [String: String] = ProcessInfo.processInfo.environment, acceptsTenant: Bool = true,
                            _ body: (any AdminBackend) async throws -> Value) async throws -> Value {
        if tenantID != nil, !acceptsTenant { throw ValidationError("--tenant is for the users commands only.") }
        func value(_ flag: String?, _ variable: String) -> String? { flag ?? environment[variable].flatMap { $0.isEmpty ? nil : $0 } }
        guard let remote = value(serverURL, "FLINT_SERVER") else {
            return try await database.withServer { server in
                let projectID = server.configuration.projectID
                return try await body(LocalBackend(
                    server: server, projectID: projectID, caller: try await server.adminCaller(projectID: projectID, tenantID: tenantID)))
            }
        }
        guard let url = URL(string: remote), url.scheme == "http" || url.scheme == "https" else {
            throw ValidationError("--server must be an http(s) URL: \(remote)")
        }
        let key = value(keyFile, "FLINT_KEY_FILE")
        let projectID = try database.configuration(environment: environment).projectID
        return try await RemoteBackend.withHTTPClient { http in
            let backend: RemoteBackend
            do {
                backend = try RemoteBackend(baseURL: url, projectID: projectID, tenantID: tenantID, keyFile: key, http: http)
            } catch let error as AdminError {
                throw ValidationError("\(key ?? "the key file") is not a service-account key file: \(error.message)")
            }
            return try await reportingFlintErrors { try await body(backend) }
        }
    }
}
