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

            for _ in 0..<3 { _ = try await client.signUp() }
            let refused = try await client.post("/v1/accounts:lookup", ["idToken": "not-a-token"])
            #expect(refused.status == 400)

            let (status, body) = try await management(server, "/metrics")
            #expect(status == 200)
            let metrics = try #require(body.stringValue)
            let signUps = #"route="/v1/accounts:signUp",method="POST",status="2xx""#
            #expect(Self.value(of: "flint_http_requests_total", containing: signUps, in: metrics) == 3)
            #expect(Self.value(of: "flint_http_request_duration_seconds_count", containing: signUps, in: metrics) == 3)
            #expect(Self.value(of: "flint_http_request_duration_seconds_bucket", containing: signUps + #",le="+Inf""#, in: metrics) == 3)
            let lookups = #"route="/v1/accounts:lookup",method="POST",status="4xx""#
            #expect(Self.value(of: "flint_http_requests_total", containing: lookups, in: metrics) == 1)
            // Sessions started, by sign-in provider: the same events the console's usage page counts.
            #expect(Self.value(of: "flint_sign_ins_total", containing: #"provider="anonymous""#, in: metrics) == 3)
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
        exposition.split(separator: "\n").first { $0.hasPrefix(metric + "{") && $0.contains(labels) }
            .flatMap { $0.split(separator: " ").last }.flatMap { Double($0) }
    }
}
