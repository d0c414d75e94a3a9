import FlintServer
import FlintWire
import Foundation
import Logging
import NIOConcurrencyHelpers
import Tracing

/// Which database a test runs on. Store and API suites run on both.
public enum TestDatabase: String, CaseIterable, Sendable, CustomStringConvertible {
    case sqlite
    case postgres

    public var description: String { rawValue }
}

/// A clock tests move by hand, so expiry is tested without sleeping.
public final class TestClock: FlintClock {
    /// A standing clock's time, or (nil) the wall clock's; either plus `offset`, which `advance` moves.
    private let state: NIOLockedValueBox<(standing: Date?, offset: TimeInterval)>

    public init(_ start: Date = Date()) { state = NIOLockedValueBox((start, 0)) }

    private init(runningFrom offset: TimeInterval) { state = NIOLockedValueBox((nil, offset)) }

    /// A clock that runs with the wall clock, for servers whose clients date what they sign by it (Google's libraries
    /// do), however long a loaded machine takes; `advance` still moves it.
    public static func running() -> TestClock { TestClock(runningFrom: 0) }

    public func now() -> Date { state.withLockedValue { ($0.standing ?? Date()).addingTimeInterval($0.offset) } }

    public func advance(seconds: TimeInterval) {
        state.withLockedValue { $0.offset += seconds }
    }
}

/// A scratch database for one test: a temporary folder for SQLite, or a fresh PostgreSQL database
/// created on the server named by `FLINT_TEST_DATABASE_URL` (the test script starts one).
public struct ScratchDatabase: Sendable {
    public let kind: TestDatabase
    /// The data directory (always used: it holds the master key, and the SQLite file for `.sqlite`).
    public let dataDirectory: URL
    /// The PostgreSQL URL for `.postgres`, nil for SQLite.
    public let databaseURL: String?

    public static func make(_ kind: TestDatabase) async throws -> ScratchDatabase {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("flint-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        guard kind == .postgres else { return ScratchDatabase(kind: kind, dataDirectory: directory, databaseURL: nil) }
        let name = "flint_test_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        try await withAdminDatabase { try await $0.query("CREATE DATABASE \(name)", []) }
        var components = URLComponents(string: try baseURL())!
        components.path = "/" + name
        // Tests run side by side: a small pool each keeps them well inside the server's max_connections.
        components.queryItems = (components.queryItems ?? []) + [URLQueryItem(name: "pool_size", value: "4")]
        return ScratchDatabase(kind: kind, dataDirectory: directory, databaseURL: components.string!)
    }

    /// Removes the folder and drops the PostgreSQL database.
    public func drop() async throws {
        try? FileManager.default.removeItem(at: dataDirectory)
        guard let databaseURL, let name = URLComponents(string: databaseURL)?.path.dropFirst() else { return }
        try await Self.withAdminDatabase { try await $0.query("DROP DATABASE IF EXISTS \(name) WITH (FORCE)", []) }
    }

    /// The URL of the test server's `flint` database, from `FLINT_TEST_DATABASE_URL`.
    public static func baseURL() throws -> String {
        guard let url = ProcessInfo.processInfo.environment["FLINT_TEST_DATABASE_URL"], !url.isEmpty else {
            throw TestSupportError.missingPostgres
        }
        return url
    }

    /// The PEM file of the CA that signed the test server's certificate, from `FLINT_TEST_PG_CA`.
    public static func certificateAuthorityPath() throws -> String {
        _ = try baseURL()
        guard let path = ProcessInfo.processInfo.environment["FLINT_TEST_PG_CA"], !path.isEmpty else {
            throw TestSupportError.missingPostgresCA
        }
        return path
    }

    private static func withAdminDatabase(_ body: (PostgresDatabase) async throws -> Void) async throws {
        var components = URLComponents(string: try baseURL())!
        components.queryItems = (components.queryItems ?? []) + [URLQueryItem(name: "pool_size", value: "1")]
        let database = try await PostgresDatabase.connect(url: components.string!, logger: Logger(label: "flint-test"))
        do {
            try await body(database)
            try await database.close()
        } catch {
            try? await database.close()
            throw error
        }
    }
}

public enum TestSupportError: Error, CustomStringConvertible {
    case missingPostgres
    case missingPostgresCA
    case serverDidNotStart
    case secretsInAuditTrail([String])

    public var description: String {
        switch self {
        case .missingPostgres:
            "FLINT_TEST_DATABASE_URL is not set: run the tests with scripts/test.sh, which starts PostgreSQL"
        case .missingPostgresCA:
            "FLINT_TEST_PG_CA is not set: run the tests with scripts/test.sh, or export FLINT_TEST_PG_CA=$(scripts/postgres.sh ca)"
        case .serverDidNotStart: "the test server did not start"
        case .secretsInAuditTrail(let leaks): "the audit trail holds secrets the tests used: \(leaks.joined(separator: "; "))"
        }
    }
}

/// A Flint server running in this process on 127.0.0.1 and an ephemeral port, on a scratch database.
public final class TestServer: Sendable {
    public let server: AuthServer
    public let clock: TestClock
    public let database: ScratchDatabase
    public let port: Int
    public let apiKey: String
    /// Everything the server logged (notice and above), e.g. the codes of the `log` SMS provider.
    public let log: CapturedLog
    private let task: Task<Void, Error>
    private let ownsDatabase: Bool

    public var host: String { "127.0.0.1" }
    public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }
    /// Where `TestSecrets` keeps what the clients of this server used.
    var secretsKey: String { "127.0.0.1:\(port)" }
    public var projectID: String { server.configuration.projectID }

    /// The master key every test server uses, so several nodes can share one database.
    public static let masterKey = Data(repeating: 7, count: 32).base64EncodedString()

    /// Starts a server. Pass `database` to share one (another node, or a restart); it is then not dropped by `stop()`.
    /// `tracer` is the server's (`FlintTracer` with a `RecordingSpanExporter` to read its spans).
    public static func start(emulator: Bool = true, database kind: TestDatabase = .sqlite, sharing shared: ScratchDatabase? = nil,
                             clock: TestClock = TestClock(), projectID: String = "demo-flint",
                             publicURL: String? = nil, tracer: any Tracer = FlintTracer(),
                             configure: (inout ServerConfiguration) -> Void = { _ in }) async throws -> TestServer {
        let database: ScratchDatabase
        if let shared { database = shared } else { database = try await ScratchDatabase.make(kind) }
        let log = CapturedLog()
        var configuration = ServerConfiguration(
            host: "127.0.0.1", port: 0, dataDirectory: database.dataDirectory, databaseURL: database.databaseURL,
            emulator: emulator, projectID: projectID, publicURL: publicURL)
        // A fetch of a local client metadata document shares two cores with the whole suite.
        configuration.delivery.limits.clientMetadataTimeout = OutsideCallLimits.underLoad.clientMetadataTimeout
        configure(&configuration)
        let environment = ServerEnvironment(
            clock: clock, variables: ["FLINT_MASTER_KEY": masterKey], tracer: tracer, rsaKeys: PooledRSAKeys.shared)
        let server = try await AuthServer.open(configuration: configuration, environment: environment, logger: log.logger())
        let apiKey = try await AuditScope.$clock.withValue(clock) { try await server.defaultAPIKey() }
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let task = Task {
            try await server.run(handleSignals: false) { port in continuation.yield(port) }
        }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else { throw TestSupportError.serverDidNotStart }
        return TestServer(server: server, clock: clock, database: database, port: port, apiKey: apiKey, task: task,
                          ownsDatabase: shared == nil, log: log)
    }

    private init(server: AuthServer, clock: TestClock, database: ScratchDatabase, port: Int, apiKey: String,
                 task: Task<Void, Error>, ownsDatabase: Bool, log: CapturedLog) {
        self.log = log
        self.server = server
        self.clock = clock
        self.database = database
        self.port = port
        self.apiKey = apiKey
        self.task = task
        self.ownsDatabase = ownsDatabase
    }

    /// Returns once every email the server queued has been sent (or given up on): tests that read mail or
    /// count sent emails wait for this rather than sleeping, since emails leave after the request's answer.
    public func waitForOutbox() async {
        await server.emailOutbox.waitUntilIdle()
    }

    /// Stops serving and closes the store; drops the scratch database unless it was shared in. Throws if
    /// the run did not end cleanly: a graceful shutdown must let every service finish without an error.
    ///
    /// First it reads its audit trail for the secrets the tests' clients used (`TestSecrets`), and throws if an event
    /// holds one. A trail that cannot be read (a test that broke its database on purpose) is not checked.
    public func stop() async throws {
        let leaks = (try? await TestSecrets.leaks(in: server.store, server: secretsKey)) ?? []
        TestSecrets.forget(server: secretsKey)
        await server.shutdown()
        let run = await task.result
        try await server.close()
        if ownsDatabase { try await database.drop() }
        try run.get()
        guard leaks.isEmpty else { throw TestSupportError.secretsInAuditTrail(leaks) }
    }
}

/// Starts a server as `TestServer.start` does (every argument is passed on), runs `body` against it with a client,
/// and stops it whether `body` succeeds or throws: `body`'s error is the one thrown then, else `stop()`'s.
/// Test helpers that start more (fakes, apps) around a server call this rather than start and stop one themselves.
public func withServer(emulator: Bool = true, database: TestDatabase = .sqlite, sharing shared: ScratchDatabase? = nil,
                       clock: TestClock = TestClock(), projectID: String = "demo-flint", publicURL: String? = nil,
                       tracer: any Tracer = FlintTracer(), configure: (inout ServerConfiguration) -> Void = { _ in },
                       _ body: (TestServer, TestClient) async throws -> Void) async throws {
    let server = try await TestServer.start(emulator: emulator, database: database, sharing: shared, clock: clock,
                                            projectID: projectID, publicURL: publicURL, tracer: tracer, configure: configure)
    do {
        // What the test writes through the server's parts directly is dated by the server's clock, as its requests are.
        try await AuditScope.$clock.withValue(server.clock) { try await body(server, TestClient(server)) }
    } catch {
        try? await server.stop()
        throw error
    }
    try await server.stop()
}

extension TestServer {
    /// Registers an iOS app with the project as an admin would (`apps` of the v2 config): the hosted handler and its
    /// app-verification page answer only registered apps.
    public func registerIOSApp(bundleID: String, clientID: String? = nil, appID: String? = nil) async throws {
        _ = try await server.updateProjectConfig(projectID, ProjectConfig(apps: .init(ios: [
            .init(bundleId: bundleID, teamId: "ABCDE12345", clientId: clientID, appId: appID),
        ])), updateMask: "apps")
    }
}
