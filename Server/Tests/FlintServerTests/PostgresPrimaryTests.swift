@testable import FlintServer
import FlintTestSupport
import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOPosix
import PostgresNIO
import Testing

/// Several hosts in the PostgreSQL URL and `target_session_attrs`: parsed as libpq parses them, and the pool kept on
/// the host that is the target (`PostgresPrimary`), against the test server. A second real server is not needed:
/// a closed port stands for a host that is down, and a probe told to call a host read-only for a standby.
@Suite struct PostgresPrimaryTests {
    private static let logger = {
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        return logger
    }()

    // MARK: Parsing

    @Test func hostsAreListedInTheAuthority() throws {
        let url = try PostgresURL("postgres://u:p%40ss@db1:5433,db2,[::1]:5434/flint?target_session_attrs=read-write&sslmode=disable")
        #expect(url.hosts == [.init(host: "db1", port: 5433), .init(host: "db2", port: 5432), .init(host: "::1", port: 5434)])
        #expect(url.host == "db1" && url.port == 5433)
        #expect(url.username == "u" && url.password == "p@ss" && url.database == "flint" && url.sslMode == .disable)
        #expect(url.targetSessionAttributes == .readWrite)
        #expect(url.hosts[2].description == "[::1]:5434")
    }

    @Test func hostsAreListedInTheQuery() throws {
        let shared = try PostgresURL("postgres://u@/flint?host=db1,db2&port=5433&target_session_attrs=primary")
        #expect(shared.hosts == [.init(host: "db1", port: 5433), .init(host: "db2", port: 5433)])
        #expect(shared.targetSessionAttributes == .primary && shared.database == "flint")
        let each = try PostgresURL("postgres://u@/flint?host=db1,db2&port=5433,")
        #expect(each.hosts == [.init(host: "db1", port: 5433), .init(host: "db2", port: 5432)])
        let defaulted = try PostgresURL("postgres://u@/flint?host=db1")
        #expect(defaulted.hosts == [.init(host: "db1", port: 5432)])
    }

    @Test func oneHostIsTodaysURL() throws {
        let url = try PostgresURL("postgres://u@db:6000/f")
        #expect(url.hosts == [.init(host: "db", port: 6000)] && url.targetSessionAttributes == .any)
        let second = try PostgresURL("postgres://u@a,b:7000/f").only(.init(host: "b", port: 7000))
        #expect(second.host == "b" && second.port == 7000 && second.hosts == [.init(host: "b", port: 7000)])
    }

    @Test func badHostListsAreRefused() {
        #expect(throws: PostgresURLError.invalidURL) { try PostgresURL("postgres://u@a:x,b/f") }
        #expect(throws: PostgresURLError.invalidURL) { try PostgresURL("postgres://u@a,,b/f") }
        #expect(throws: PostgresURLError.invalidURL) { try PostgresURL("postgres://u@a:70000,b/f") }
        #expect(throws: PostgresURLError.invalidURL) { try PostgresURL("postgres://u@/f?host=a,b&port=1,2,3") }
        #expect(throws: PostgresURLError.invalidURL) { try PostgresURL("postgres://u@/f") }
        #expect(throws: PostgresURLError.hostAddressWithSeveralHosts) { try PostgresURL("postgres://u@a,b/f?hostaddr=10.0.0.1") }
        #expect(throws: PostgresURLError.unknownTargetSessionAttributes("standby")) {
            try PostgresURL("postgres://u@a,b/f?target_session_attrs=standby")
        }
    }

    // MARK: Choosing and following the target

    /// A port nothing listens on: connections to it are refused.
    private static let deadPort = 1

    /// The test server's URL with `hosts` (`$` for the test server itself) and `query` added.
    private func url(_ database: ScratchDatabase, hosts: [String], query: String) throws -> (url: String, live: PostgresURL.Endpoint) {
        let base = try #require(database.databaseURL)
        let server = try PostgresURL(base)
        let live = "\(server.host):\(server.port)"
        let list = hosts.map { $0 == "$" ? live : $0 }.joined(separator: ",")
        let url = base.replacingOccurrences(of: "@\(live)/", with: "@\(list)/") + "&" + query
        return (url, .init(host: server.host, port: server.port))
    }

    private func withScratch(_ body: (ScratchDatabase) async throws -> Void) async throws {
        let scratch = try await ScratchDatabase.make(.postgres)
        do {
            try await body(scratch)
        } catch {
            try? await scratch.drop()
            throw error
        }
        try await scratch.drop()
    }

    @Test func aHostThatIsDownIsPassedOver() async throws {
        try await withScratch { scratch in
            let (url, live) = try url(scratch, hosts: ["127.0.0.1:\(Self.deadPort)", "$"], query: "target_session_attrs=read-write")
            let database = try await PostgresDatabase.connect(url: url, logger: Self.logger)
            #expect(database.primary.endpoint == live)
            let rows = try await database.query("SELECT 1 AS one", [])
            try await database.close()
            #expect(rows.first?.int("one") == 1)
        }
    }

    /// Each event loop has connections of its own (`pool_size` shared out among them): a query asked from a loop
    /// runs on a connection of that loop, whose answer then needs no hop between threads.
    @Test func aQueryFromALoopRunsOnThatLoopsConnection() async throws {
        try await withScratch { scratch in
            let database = try await PostgresDatabase.connect(url: try #require(scratch.databaseURL), logger: Self.logger)
            let loops = Array(MultiThreadedEventLoopGroup.singleton.makeIterator())
            var answers: [Bool] = []
            for loop in loops {
                for _ in 0..<4 {
                    answers.append(try await withTaskExecutorPreference(EventLoopTaskExecutor(loop)) {
                        try await database.primary.withConnection { connection in
                            _ = try await connection.query("SELECT 1", logger: Self.logger)
                            return connection.eventLoop.inEventLoop && loop.inEventLoop
                        }
                    })
                }
            }
            try await database.close()
            #expect(answers == Array(repeating: true, count: 4 * loops.count))
        }
    }

    /// A statement on a connection that closed after the pool leased it (the server went away in between) fails at
    /// once as unavailable. postgres-nio alone dropped it unanswered, and the task waited forever (`PostgresStatements.sent`).
    @Test func aStatementOnAConnectionThatClosedFailsAtOnce() async throws {
        try await withScratch { scratch in
            let database = try await PostgresDatabase.connect(url: try #require(scratch.databaseURL), logger: Self.logger)
            let statements = PostgresStatements()
            let outcome = await answer(within: .seconds(20)) {
                try await database.primary.withConnection { connection in
                    try await connection.close()
                    return try await statements.run("SELECT 1 AS one", [], on: connection, inTransaction: false, logger: Self.logger).count
                }
            }
            guard let outcome else {
                Issue.record("the statement was never answered")  // and its lease is never given back: no close
                return
            }
            try await database.close()
            guard case .failure(let error) = outcome, case SQLError.unavailable = error else {
                Issue.record("\(outcome)")
                return
            }
        }
    }

    /// A database whose sessions are read-only (as a standby's are) is no `read-write` target, but is a `primary`
    /// one: it is not in recovery.
    @Test func readOnlySessionsAreNoReadWriteTarget() async throws {
        try await withScratch { scratch in
            let base = try #require(scratch.databaseURL)
            let name = try #require(URLComponents(string: base)?.path.dropFirst())
            let setup = try await PostgresDatabase.connect(url: base, logger: Self.logger)
            try await setup.query("ALTER DATABASE \(name) SET default_transaction_read_only = on", [])
            try await setup.close()

            let (readWrite, _) = try url(scratch, hosts: ["$"], query: "target_session_attrs=read-write")
            let error = await #expect(throws: PostgresNoTargetError.self) {
                try await PostgresDatabase.connect(url: readWrite, logger: Self.logger)
            }
            #expect(error?.description.hasSuffix(": read-only") == true)
            let (primary, _) = try url(scratch, hosts: ["$"], query: "target_session_attrs=primary")
            let database = try await PostgresDatabase.connect(url: primary, logger: Self.logger)
            try await database.close()
        }
    }

    @Test func aReadOnlyHostIsPassedOver() async throws {
        try await withScratch { scratch in
            let (url, live) = try url(scratch, hosts: ["127.0.0.1:\(Self.deadPort)", "$"], query: "target_session_attrs=read-write")
            let settings = try PostgresURL(url)
            let real = PostgresPrimary.probe(settings, tls: nil, logger: Self.logger)
            let primary = try await PostgresPrimary.connect(settings: settings, tls: nil, logger: Self.logger) { endpoint in
                endpoint.port == Self.deadPort ? "read-only" : try await real(endpoint)
            }
            #expect(primary.endpoint == live)
            await primary.close()
        }
    }

    /// When the server in use stops serving, queries fail fast with `SQLError.unavailable` (a 503) while no host is
    /// the target; the probe backs off, doubling up to its bound, and gives up after its last pass; the next query
    /// starts another probe, which finds the server once it is the target again.
    @Test func aFailoverIsFollowed() async throws {
        try await withScratch { scratch in
            let (url, live) = try url(scratch, hosts: ["127.0.0.1:\(Self.deadPort)", "$"], query: "target_session_attrs=read-write")
            let settings = try PostgresURL(url)
            let real = PostgresPrimary.probe(settings, tls: nil, logger: Self.logger)
            let serving = NIOLockedValueBox(true)
            let waits = NIOLockedValueBox<[Duration]>([])
            // The probe holds at its first backoff until the query below has failed: its sleeps return at once, so on
            // a loaded machine it could otherwise give up before the query is made, which then starts a second probe.
            let (queryFailed, signalQueryFailed) = AsyncStream<Void>.makeStream()
            let primary = try await PostgresPrimary.connect(
                settings: settings, tls: nil, logger: Self.logger,
                probe: { endpoint in serving.withLockedValue { $0 } ? try await real(endpoint) : "read-only" },
                sleep: { duration in
                    let isFirst = waits.withLockedValue { waits in
                        waits.append(duration)
                        return waits.count == 1
                    }
                    if isFirst { for await _ in queryFailed {} }
                })
            let select = { try await primary.withConnection { try await PostgresDatabase.collect($0.query("SELECT 1 AS one", logger: Self.logger)) } }
            #expect(try await select().first?.int("one") == 1)

            serving.withLockedValue { $0 = false }
            primary.failed(nil, because: "a test")
            await #expect(throws: SQLError.self) { try await select() }
            signalQueryFailed.finish()
            await primary.runningProbe?.value
            let expected = (1..<PostgresPrimary.maximumPasses).map {
                min(PostgresPrimary.firstBackoff * (1 << ($0 - 1)), PostgresPrimary.maximumBackoff)
            }
            #expect(waits.withLockedValue { $0 } == expected)

            serving.withLockedValue { $0 = true }
            let error = await #expect(throws: SQLError.self) { try await select() }
            #expect(error.map { PostgresPrimary.isOutage($0) } == true)
            await primary.runningProbe?.value
            #expect(try await select().first?.int("one") == 1)
            #expect(primary.endpoint == live)
            await primary.close()
        }
    }
}
