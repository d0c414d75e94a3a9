import ArgumentParser
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
            outcome = .success(try await body(server))
        } catch {
            outcome = .failure(error)
        }
        try await server.close()
        do {
            return try outcome.get()
        } catch let error as FlintError {
            Output.error(error.message)
            throw ExitCode.failure
        }
    }

    /// `withServer`, with an admin caller of the selected project (`--project`), so the account
    /// operations apply the same checks as they do for the Admin SDK.
    func withAdmin<Value>(_ body: (AuthServer, Caller) async throws -> Value) async throws -> Value {
        try await withServer { server in
            try await body(server, try await server.adminCaller(projectID: server.configuration.projectID))
        }
    }
}
