import FlintAdmin
import Foundation
import Hummingbird

/// Where FlintAdmin points, from the environment, as the Admin SDKs read it:
/// - `FIREBASE_AUTH_EMULATOR_HOST` (an emulator: the official one, or `flint serve --emulator`) with `PROJECT_ID`;
/// - `FLINT_SERVER_URL` and `FLINT_KEY_FILE` (a production Flint server and a `flint service-accounts create` key);
/// - `GOOGLE_APPLICATION_CREDENTIALS` (a Firebase project's service-account key).
/// `PORT` is the port to listen on (8080 by default; 0 picks one, printed on start).
@main
struct AdminServerApp {
    static func main() async throws {
        let environment = ProcessInfo.processInfo.environment
        let auth = try makeAdminAuth(environment)
        let app = Application(
            router: buildRouter(auth: auth),
            configuration: .init(address: .hostname("127.0.0.1", port: Int(environment["PORT"] ?? "") ?? 8080)),
            onServerRunning: { channel in
                // Written at once (print's output waits in a buffer when it goes to a pipe).
                FileHandle.standardOutput.write(Data("AdminServer is listening on port \(channel.localAddress?.port ?? 0)\n".utf8))
            })
        try await app.runService()
    }

    static func makeAdminAuth(_ environment: [String: String]) throws -> AdminAuth {
        if let emulator = AdminEndpoints.emulatorFromEnvironment(environment) {
            return try AdminAuth(projectID: environment["PROJECT_ID"] ?? "demo-flint", credential: .emulatorOwner, endpoints: emulator)
        }
        if let server = environment["FLINT_SERVER_URL"].flatMap(URL.init(string:)), let keyFile = environment["FLINT_KEY_FILE"] {
            return try AdminAuth(serviceAccount: ServiceAccount(contentsOf: URL(fileURLWithPath: keyFile)), endpoints: .flint(server))
        }
        guard let keyFile = environment["GOOGLE_APPLICATION_CREDENTIALS"] else {
            fatalError("Set FIREBASE_AUTH_EMULATOR_HOST, FLINT_SERVER_URL and FLINT_KEY_FILE, or GOOGLE_APPLICATION_CREDENTIALS")
        }
        return try AdminAuth(serviceAccount: ServiceAccount(contentsOf: URL(fileURLWithPath: keyFile)))
    }
}
