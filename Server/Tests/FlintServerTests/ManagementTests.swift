@testable import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
import Logging
import NIOConcurrencyHelpers
import Testing

/// The management listener: health, readiness, and metrics that move when traffic moves.
@Suite struct ManagementTests {
    /// GET on the management listener of `server`.
    private func management(_ server: TestServer, _ path: String) async throws -> (status: Int, body: JSONValue) {
        let port = try #require(server.server.managementPort)
        let reply = try await TestClient(baseURL: URL(string: "http://127.0.0.1:\(port)")!, apiKey: nil)
            .send("GET", path, includeKey: false)
        return (reply.status, reply.body)
    }

    @Test(arguments: TestDatabase.allCases)
    func healthReadinessAndMetrics(database: TestDatabase) async throws {
        try await withServer(emulator: false, database: database, configure: { $0.management = ManagementConfiguration(port: 0) }) {
            server, client in
            #expect(try await management(server, "/healthz") == (200, ["status": "ok"]))
            #expect(try await management(server, "/readyz") == (200, ["status": "ready"]))

            var signUps: [TestClient.Reply] = []
            for _ in 0..<3 { signUps.append(try await client.signUp()) }
            let refused = try await client.post("/v1/accounts:lookup", ["idToken": "not-a-token"])
            #expect(refused.errorCode == "INVALID_ID_TOKEN")
            #expect(try await client.post("/v1/accounts:lookup", ["idToken": signUps[0].body["idToken"] ?? .null]).status == 200)
            #expect(try await client.refresh(signUps[1].string("refreshToken")).status == 200)
            // The users gauge is the janitor's: a scrape never counts accounts.
            try await server.server.janitor.sweep()

            let (status, body) = try await management(server, "/metrics")
            #expect(status == 200)
            let metrics = try #require(body.stringValue)
            let signUpRoute = #"route="/v1/accounts:signUp",method="POST",status="2xx""#
            #expect(Self.value(of: "flint_http_requests_total", containing: signUpRoute, in: metrics) == 3)
            #expect(Self.value(of: "flint_http_request_duration_seconds_count", containing: signUpRoute, in: metrics) == 3)
            #expect(Self.value(of: "flint_http_request_duration_seconds_bucket", containing: signUpRoute + #",le="+Inf""#, in: metrics) == 3)
            let lookups = #"route="/v1/accounts:lookup",method="POST",status="4xx""#
            #expect(Self.value(of: "flint_http_requests_total", containing: lookups, in: metrics) == 1)
            // Sessions started, by sign-in provider: the same events the console's dashboard counts.
            #expect(Self.value(of: "flint_sign_ins_total", containing: #"provider="anonymous""#, in: metrics) == 3)
            #expect(Self.value(of: "flint_sign_ups_total", containing: #"provider="anonymous""#, in: metrics) == 3)
            #expect(Self.value(of: "flint_token_refreshes_total", containing: "", in: metrics) == 1)
            #expect(Self.value(of: "flint_id_token_verifications_total", containing: #"outcome="valid""#, in: metrics) == 1)
            #expect(Self.value(of: "flint_id_token_verifications_total", containing: #"outcome="INVALID_ID_TOKEN""#, in: metrics) == 1)
            #expect(Self.value(of: "flint_errors_total", containing: #"route="/v1/accounts:lookup""#, in: metrics) == 1)
            #expect(Self.value(of: "flint_users", containing: #"project="\#(server.projectID)""#, in: metrics) == 3)
            // Labels never carry what a client sent: only route templates.
            #expect(!metrics.contains("not-a-token"))
        }
    }

    @Test func managementListenerIsOffUnlessConfigured() async throws {
        try await withServer { server, _ in #expect(server.server.managementPort == nil) }
    }

    @Test func readinessNamesWhatIsWrong() async throws {
        try await withServer { server, _ in
            #expect(await Readiness(store: server.server.store, keyring: server.server.keyring).problems() == [])
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("flint-readiness-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: directory) }
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let closed = try await Store.open(databaseURL: nil, dataDirectory: directory, logger: Logger(label: "test"))
            try await closed.close()
            #expect(await Readiness(store: closed, keyring: server.server.keyring).problems() == ["the store does not answer"])
        }
    }

    /// The issue's check, with a PostgreSQL server of its own: stop it and `/readyz` turns 503 within seconds,
    /// start it again and it returns to 200 (the connection pool reconnects by itself).
    @Test func readinessFollowsPostgresStoppingAndStarting() async throws {
        _ = try ScratchDatabase.baseURL()  // PostgreSQL is part of this run
        let instance = try await PrivatePostgres.start()
        do {
            try await withServer(emulator: false, configure: {
                $0.databaseURL = instance.url
                $0.management = ManagementConfiguration(port: 0)
            }) { server, _ in
                #expect(try await management(server, "/readyz").status == 200)
                try await instance.run("stop")
                #expect(try await readiness(of: server, becomes: 503) == ["status": "unavailable", "reasons": ["the store does not answer"]])
                try await instance.run("start")
                #expect(try await readiness(of: server, becomes: 200) == ["status": "ready"])
            }
        } catch {
            try? await instance.remove()
            throw error
        }
        try await instance.remove()
    }

    /// Asks `/readyz` every tenth of a second until it answers `status` (at most 20 seconds); returns that answer.
    private func readiness(of server: TestServer, becomes status: Int) async throws -> JSONValue {
        for _ in 0..<200 {
            let answer = try await management(server, "/readyz")
            if answer.status == status { return answer.body }
            try await Task.sleep(for: .milliseconds(100))
        }
        Issue.record("/readyz did not turn \(status) within 20 seconds")
        return .null
    }

    /// A check's answer within its time, however the operation behaves: its value, its error, or nil for one that
    /// heeds no cancellation and never ends (what a PostgreSQL query caught in a restart did to `/readyz`).
    @Test func answersComeWithinTheirTimeEvenFromAHungOperation() async throws {
        #expect(try await answer(within: .seconds(60), { 42 })?.get() == 42)
        let failed = await answer(within: .seconds(60)) { () async throws -> Int in throw SQLError.failure("down") }
        guard case .failure(SQLError.failure("down"))? = failed else { Issue.record("\(String(describing: failed))"); return }
        let stuck = NIOLockedValueBox<CheckedContinuation<Void, Never>?>(nil)
        let hung = await answer(within: .milliseconds(50)) {
            await withCheckedContinuation { continuation in stuck.withLockedValue { $0 = continuation } }
            return 1
        }
        #expect(hung == nil)
        // Let the abandoned operation end, once it has started waiting.
        while stuck.withLockedValue({ $0 }) == nil { await Task.yield() }
        stuck.withLockedValue { $0?.resume() }
    }

    @Test func requestIDsAreKeptOrMade() async throws {
        try await withServer { _, client in
            let kept = try await client.send("POST", "/v1/accounts:signUp", body: Data("{}".utf8), headers: ["X-Request-Id": "trace-42"])
            #expect(kept.headers["x-request-id"] == "trace-42")
            let made = try await client.send("POST", "/v1/accounts:signUp", body: Data("{}".utf8))
            let another = try await client.send("POST", "/v1/accounts:signUp", body: Data("{}".utf8))
            let madeID = try #require(made.headers["x-request-id"])
            #expect(madeID.count >= 16 && madeID != another.headers["x-request-id"])
            // An id that could forge a log line or a header is replaced, not echoed.
            let forged = try await client.send("POST", "/v1/accounts:signUp", body: Data("{}".utf8),
                                               headers: ["X-Request-Id": "a b\"c"])
            #expect(forged.headers["x-request-id"] != "a b\"c" && (forged.headers["x-request-id"]?.count ?? 0) >= 16)
        }
    }

    @Test func jsonLogLinesAreOneObjectEach() throws {
        let lines = NIOLockedValueBox<[String]>([])
        var logger = Logger(label: "flint") { JSONLogHandler(label: $0, write: { line in lines.withLockedValue { $0.append(line) } }) }
        logger[metadataKey: "request_id"] = "trace-42"
        logger.info("signed in\nwith \"quotes\"", metadata: ["route": "/v1/accounts:signUp", "status": "200"])
        let line = try #require(lines.withLockedValue { $0 }.first)
        #expect(!line.contains("\n"))
        let object = try JSONDecoder().decode([String: String].self, from: Data(line.utf8))
        #expect(object["message"] == "signed in\nwith \"quotes\"")
        #expect(object["level"] == "info" && object["request_id"] == "trace-42" && object["status"] == "200")
        #expect(object["route"] == "/v1/accounts:signUp" && object["time"]?.hasSuffix("Z") == true)
    }

    /// The value of the sample of `metric` whose labels contain `labels`.
    private static func value(of metric: String, containing labels: String, in exposition: String) -> Double? {
        exposition.split(separator: "\n").first { ($0.hasPrefix(metric + "{") || $0.hasPrefix(metric + " ")) && (labels.isEmpty || $0.contains(labels)) }
            .flatMap { $0.split(separator: " ").last }.flatMap { Double($0) }
    }
}

/// A PostgreSQL server of a test's own, made and driven by `scripts/postgres.sh` (its own folder and port), for
/// a test that stops and starts it: the suite's shared server must keep running.
struct PrivatePostgres {
    let port: Int
    let directory: String
    let url: String

    /// The repository's script (this file is in `Server/Tests/FlintServerTests/`).
    private static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("scripts/postgres.sh").path

    static func start() async throws -> PrivatePostgres {
        // Below the ephemeral range like the suite's own (15432), apart from it, and apart between test processes.
        let port = 15_500 + Int(getpid() % 400)
        var instance = PrivatePostgres(port: port, directory: "/tmp/flint-private-pg-\(port)-\(UUID().uuidString.prefix(8))", url: "")
        let printed = try await instance.run("start")
        instance = PrivatePostgres(port: port, directory: instance.directory,
                                   url: try #require(printed.split(separator: "\n").last.map(String.init)))
        return instance
    }

    /// Runs `scripts/postgres.sh command` for this instance; returns what it printed.
    @discardableResult
    func run(_ command: String) async throws -> String {
        // Output to a file, not a pipe: the server the script starts must not hold the test's pipe open.
        let outputFile = directory + ".out"
        defer { try? FileManager.default.removeItem(atPath: outputFile) }
        var environment = ChildProcess.environment
        environment["FLINT_TEST_PG_PORT"] = String(port)
        environment["FLINT_TEST_PG_DIR"] = directory
        let process = try ChildProcess.launch("bash", [Self.script, command], environment: environment,
                                              output: .file(outputFile), errors: .file(outputFile + ".err"))
        let status = await process.wait()
        let errors = (try? String(contentsOfFile: outputFile + ".err", encoding: .utf8)) ?? ""
        try? FileManager.default.removeItem(atPath: outputFile + ".err")
        try #require(status == 0, "scripts/postgres.sh \(command) failed: \(errors)")
        return (try? String(contentsOfFile: outputFile, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
    }

    /// Stops the server and deletes its folder.
    func remove() async throws {
        try await run("stop")
        try? FileManager.default.removeItem(atPath: directory)
    }
}
