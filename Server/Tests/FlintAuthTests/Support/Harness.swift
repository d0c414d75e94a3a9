@testable import FlintAuth
import FlintTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// One test's world: its own Flint server, its own `FirebaseApp`, a temporary directory for the
/// file credential store, and an `Auth` using both.
struct Harness: Sendable {
    let server: TestServer
    let app: FirebaseApp
    let directory: URL
    let auth: Auth

    /// Another `Auth` of the same app; by default it shares the file store (so it loads the
    /// persisted user), pass `InMemoryCredentialStore()` for an independent session.
    func makeAuth(store: (any AuthCredentialStore)? = nil, httpClient: any AuthHTTPClient = URLSessionHTTPClient.shared) -> Auth {
        Auth(app: app, credentialStore: store ?? FileCredentialStore(directory: directory), httpClient: httpClient)
    }

    /// A fresh email address.
    static func email(_ name: String = "user") -> String {
        "\(name)-\(UUID().uuidString.prefix(8).lowercased())@example.com"
    }
}

/// Runs `body` against a fresh server and app, and tears everything down afterwards.
func withHarness(
    database: TestDatabase = .sqlite,
    emulator: Bool = true,
    httpClient: any AuthHTTPClient = URLSessionHTTPClient.shared,
    _ body: (Harness) async throws -> Void
) async throws {
    try await withServer(emulator: emulator, database: database) { server, _ in
        let name = "flint-auth-test-\(UUID().uuidString)"
        FirebaseApp.configure(
            name: name,
            options: FirebaseOptions(apiKey: server.apiKey, projectID: server.projectID, serverURL: server.baseURL))
        let app = try #require(FirebaseApp.app(name: name))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("flint-auth-\(UUID().uuidString)")
        let auth = Auth(app: app, credentialStore: FileCredentialStore(directory: directory), httpClient: httpClient)
        let harness = Harness(server: server, app: app, directory: directory, auth: auth)
        var failure: (any Error)?
        do {
            try await body(harness)
        } catch {
            failure = error
        }
        await app.delete()
        try? FileManager.default.removeItem(at: directory)
        if let failure {
            throw failure
        }
    }
}

/// Expects `body` to fail with the `FIRAuthErrorDomain` error `code`, and returns that error.
@discardableResult
func expectAuthError<Value>(
    _ code: AuthErrorCode,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () async throws -> Value
) async -> NSError? {
    do {
        _ = try await body()
        Issue.record("Expected \(code.name), but the call succeeded", sourceLocation: sourceLocation)
        return nil
    } catch {
        #expect(AuthErrorCode(error) == code, "\(error)", sourceLocation: sourceLocation)
        return error as NSError
    }
}

/// Waits until everything queued on `auth`'s callback queue so far has run.
func drainCallbacks(_ auth: Auth) async {
    await withCheckedContinuation { continuation in
        auth.callbackQueue.async { continuation.resume() }
    }
}

/// Whether the caller runs on the main queue: where FlintAuth calls completion handlers, the main
/// actor's queue (on Linux too, where a worker thread services it).
func isOnMainQueue() -> Bool {
    DispatchQueue.getSpecific(key: MainQueueMark.key) == true
}

private enum MainQueueMark {
    static let key: DispatchSpecificKey<Bool> = {
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        return key
    }()
}

/// Collects listener calls as strings such as `"state:<uid>"` or `"token:nil"`.
final class EventLog: Sendable {
    private let events = Locked<[String]>([])

    func record(_ kind: String, _ user: User?) {
        events.withLock { $0.append("\(kind):\(user?.uid ?? "nil")") }
    }

    var all: [String] { events.withLock { $0 } }
}

/// Passes requests to the real client and remembers them.
final class RecordingHTTPClient: AuthHTTPClient {
    struct Sent: Sendable {
        let url: URL
        let headers: [String: String]
        let body: Data
    }

    private let sent = Locked<[Sent]>([])

    func data(for request: URLRequest) async throws -> (Data, URLResponse) {
        let record = Sent(url: request.url!, headers: request.allHTTPHeaderFields ?? [:], body: request.httpBody ?? Data())
        sent.withLock { $0.append(record) }
        return try await URLSessionHTTPClient.shared.data(for: request)
    }

    var requests: [Sent] { sent.withLock { $0 } }

    /// How many requests went to a path ending in `suffix`, e.g. `"v1/token"`.
    func count(_ suffix: String) -> Int {
        requests.filter { $0.url.path.hasSuffix(suffix) }.count
    }
}
