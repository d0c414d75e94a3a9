@testable import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
import Logging
import NIOConcurrencyHelpers
import Testing
import Tracing
import W3CTraceContext

/// Spans around requests, store calls and outside calls, W3C trace context in and out, and the metrics of store
/// and outside calls.
@Suite struct TracingTests {
    static let traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
    static let callerSpanID = "00f067aa0ba902b7"
    static let sampled = "00-\(traceID)-\(callerSpanID)-01"

    @Test(arguments: TestDatabase.allCases)
    func requestJoinsTheCallersTraceWithStoreSpansInside(database: TestDatabase) async throws {
        let spans = RecordingSpanExporter()
        try await withServer(database: database, tracer: FlintTracer(exporter: spans)) { _, client in
            let reply = try await client.send("POST", "/v1/accounts:signUp", body: Data("{}".utf8),
                                          headers: ["traceparent": Self.sampled])
            #expect(reply.status == 200)

            let trace = spans.all.filter { "\($0.traceContext.traceID)" == Self.traceID }
            let request = try #require(trace.first { $0.kind == .server })
            #expect(request.operationName == "POST /v1/accounts:signUp")
            #expect(request.parentSpanID.map { "\($0)" } == Self.callerSpanID)
            #expect(request.attributes["http.response.status_code"]?.toSpanAttribute() == .int64(200))
            #expect(request.traceContext.flags.contains(.sampled))

            // Every store span descends from the request's, directly or through its transaction.
            let store = trace.filter { $0.attributes["db.system.name"] != nil }
            #expect(store.contains { $0.operationName == "INSERT users" })
            let transactions = Set(store.filter { $0.operationName == "TRANSACTION" }.map(\.traceContext.spanID))
            for span in store {
                let parent = try #require(span.parentSpanID)
                #expect(parent == request.traceContext.spanID || transactions.contains(parent), "\(span.operationName)")
            }
            #expect(store.filter { $0.operationName == "TRANSACTION" }.allSatisfy { $0.parentSpanID == request.traceContext.spanID })
        }
    }

    @Test func requestsWithoutTraceContextStartTheirOwnAndUnsampledOnesAreNotRecorded() async throws {
        let spans = RecordingSpanExporter()
        try await withServer(tracer: FlintTracer(exporter: spans)) { _, client in
            _ = try await client.send("POST", "/v1/accounts:signUp", body: Data("{}".utf8))
            _ = try await client.send("POST", "/v1/accounts:signUp", body: Data("{}".utf8))
            let roots = spans.all.filter { $0.kind == .server }
            #expect(roots.count == 2 && roots.allSatisfy { $0.parentSpanID == nil })
            #expect(Set(roots.map(\.traceContext.traceID)).count == 2)

            // Background work (the janitor, the usage flush) may record spans of its own meanwhile: look at this trace.
            let serverSpans = spans.all.filter { $0.kind == .server }.count
            _ = try await client.send("POST", "/v1/accounts:signUp", body: Data("{}".utf8),
                                      headers: ["traceparent": "00-\(Self.traceID)-\(Self.callerSpanID)-00"])
            #expect(spans.all.filter { $0.kind == .server }.count == serverSpans)
            #expect(!spans.all.contains { "\($0.traceContext.traceID)" == Self.traceID })
        }
    }

    @Test(arguments: TestDatabase.allCases)
    func outsideCallsCarryTheTraceAndAreMeasured(database: TestDatabase) async throws {
        let webhook = try await FakeWebhookReceiver.start()
        defer { Task { await webhook.stop() } }
        let spans = RecordingSpanExporter()
        try await withServer(emulator: false, database: database, tracer: FlintTracer(exporter: spans), configure: {
            $0.delivery.sms = webhook.provider()
            $0.management = ManagementConfiguration(port: 0)
        }) { server, client in
            try await server.server.projects.updateSettings(server.projectID) { $0.phone.appVerificationRequired = false }
            let sent = try await client.post("/v1/accounts:sendVerificationCode", ["phoneNumber": .string("+15551234567")],
                                             headers: ["traceparent": Self.sampled])
            #expect(sent.status == 200)

            // The webhook got the trace, as a child of Flint's client span.
            let received = try TraceContext(traceParentHeaderValue: try #require(webhook.traceParents.all.first))
            #expect("\(received.traceID)" == Self.traceID)
            let call = try #require(spans.all.first { $0.operationName == "sms_webhook" })
            #expect(call.kind == .client && call.traceContext.spanID == received.spanID)
            #expect("\(call.traceContext.traceID)" == Self.traceID)

            let metrics = try await Self.metrics(of: server)
            #expect(Self.value(of: "flint_outside_calls_total", containing: #"service="sms_webhook",outcome="success""#, in: metrics) == 1)
            #expect(Self.value(of: "flint_outside_call_duration_seconds_bucket", containing: #"service="sms_webhook",le="+Inf""#,
                               in: metrics) == 1)
            #expect(Self.value(of: "flint_store_query_duration_seconds_bucket",
                               containing: #"operation="INSERT verification_codes",le="+Inf""#, in: metrics) == 1)
            // Labels name services and statements, never a number or a URL.
            #expect(!metrics.contains("5551234567") && !metrics.contains("127.0.0.1"))
        }
    }

    @Test func refusedOutsideCallsAreCountedAsRejected() async throws {
        let webhook = try await FakeWebhookReceiver.start()
        defer { Task { await webhook.stop() } }
        try await withServer(emulator: false, configure: {
            $0.delivery.sms = webhook.provider(secret: "forged")
            $0.management = ManagementConfiguration(port: 0)
        }) { server, client in
            try await server.server.projects.updateSettings(server.projectID) { $0.phone.appVerificationRequired = false }
            let reply = try await client.post("/v1/accounts:sendVerificationCode", ["phoneNumber": .string("+15551234567")])
            #expect(reply.status == 503)
            let metrics = try await Self.metrics(of: server)
            #expect(Self.value(of: "flint_outside_calls_total", containing: #"service="sms_webhook",outcome="rejected""#, in: metrics) == 1)
            #expect(Self.value(of: "flint_outside_calls_total", containing: #"outcome="success""#, in: metrics) == nil)
        }
    }

    @Test func storeOperationsAreNamedByStatementKindAndTable() async throws {
        let spans = RecordingSpanExporter()
        let telemetry = Telemetry(tracer: FlintTracer(exporter: spans))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("flint-tracing-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try await Store.open(databaseURL: nil, dataDirectory: directory, logger: Logger(label: "test"),
                                         telemetry: telemetry)
        try await store.database.query("SELECT project_id FROM projects WHERE project_id = ?", [.text("p")])
        try await store.database.query("insert into rate_limits (bucket, window_start, count) values (?, ?, 1)", [.text("b"), .int(1)])
        try await store.database.query("UPDATE rate_limits SET count = count + 1 WHERE bucket = ?", [.text("b")])
        try await store.database.query("DELETE FROM rate_limits WHERE bucket = ?", [.text("b")])
        try await store.database.query("PRAGMA data_version", [])
        try await store.close()
        #expect(spans.all.map(\.operationName) == [
            "SELECT projects", "insert rate_limits", "UPDATE rate_limits", "DELETE rate_limits", "PRAGMA",
        ])
        #expect(spans.all.allSatisfy { $0.kind == .client && $0.parentSpanID == nil })
    }

    @Test func logLinesCarryTheTraceID() async throws {
        let lines = NIOLockedValueBox<[String]>([])
        let logger = Logger(label: "flint") {
            JSONLogHandler(label: $0, metadataProvider: FlintTracer.logMetadataProvider,
                           write: { line in lines.withLockedValue { $0.append(line) } })
        }
        let tracer = FlintTracer()
        var parent = ServiceContext.topLevel
        tracer.extract(["traceparent": Self.sampled], into: &parent, using: DictionaryExtractor())
        let span = tracer.startSpan("request", context: parent, ofKind: .server)
        ServiceContext.withValue(span.context) { logger.info("inside") }
        logger.info("outside")
        let objects = try lines.withLockedValue { $0 }.map { try JSONDecoder().decode([String: String].self, from: Data($0.utf8)) }
        #expect(objects.map { $0["trace_id"] } == [Self.traceID, nil])
    }

    /// Text lines: the logger's metadata (set before the line, formatted only when written), sorted, then the trace id.
    @Test func textLinesCarryMetadataAndTheTraceID() async throws {
        let lines = NIOLockedValueBox<[String]>([])
        var logger = Logger(label: "flint") {
            TextLogHandler(label: $0, metadataProvider: FlintTracer.logMetadataProvider,
                           write: { line in lines.withLockedValue { $0.append(line) } })
        }
        logger[metadataKey: "hb.request.id"] = "r1"
        logger[metadataKey: "b"] = "2"
        let tracer = FlintTracer()
        var parent = ServiceContext.topLevel
        tracer.extract(["traceparent": Self.sampled], into: &parent, using: DictionaryExtractor())
        let span = tracer.startSpan("request", context: parent, ofKind: .server)
        ServiceContext.withValue(span.context) { logger.info("inside", metadata: ["a": "1"]) }
        logger.debug("below the level")
        let written = lines.withLockedValue { $0 }
        #expect(written.count == 1)
        #expect(written.first?.hasSuffix(" info flint : a=1 b=2 hb.request.id=r1 trace_id=\(Self.traceID) [FlintServerTests] inside") == true)
    }

    /// `/metrics` of the server's management listener.
    private static func metrics(of server: TestServer) async throws -> String {
        let port = try #require(server.server.managementPort)
        let reply = try await TestClient(baseURL: URL(string: "http://127.0.0.1:\(port)")!, apiKey: nil)
            .send("GET", "/metrics", includeKey: false)
        return try #require(reply.body.stringValue)
    }

    /// The value of the sample of `metric` whose labels contain `labels`.
    private static func value(of metric: String, containing labels: String, in exposition: String) -> Double? {
        exposition.split(separator: "\n").first { $0.hasPrefix(metric + "{") && $0.contains(labels) }
            .flatMap { $0.split(separator: " ").last }.flatMap { Double($0) }
    }
}

private struct DictionaryExtractor: Extractor {
    func extract(key: String, from carrier: [String: String]) -> String? { carrier[key] }
}
