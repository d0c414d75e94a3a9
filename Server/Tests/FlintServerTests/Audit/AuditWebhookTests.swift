import Crypto
@testable import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOConcurrencyHelpers
import ServiceLifecycle
import Testing

/// Streaming the audit trail (`AuditStreamer`): every event reaches the project's webhook once and in order, through
/// a receiver that goes down (answering 503) and comes back; a receiver that refuses the signature keeps the stream
/// where it was; and with `logEvents` each event is a JSON line in the log.
@Suite struct AuditWebhookTests {
    @Test(arguments: TestDatabase.allCases)
    func everyEventArrivesInOrderThroughAnOutage(database: TestDatabase) async throws {
        let clock = TestClock()
        let receiver = AuditReceiver(clock: clock)
        let port = try await receiver.start()
        defer { Task { await receiver.stop() } }
        try await withServer(database: database, clock: clock) { server, client in
            try await Self.configure(server, url: receiver.url(port: port), secret: receiver.secret)
            let streamer = server.server.auditStreamer
            let streaming = Task {
                while !Task.isCancelled {
                    await streamer.pass()
                    await Task.yield()
                }
            }
            try await Self.activity(client, users: 0..<6)
            // The receiver goes down: it answers 503 and takes nothing. (Closing its port and binding it again raced
            // the parallel tests' connections for the freed port.)
            receiver.isDown = true
            try await Self.activity(client, users: 6..<10)
            // The stream meets the outage and keeps its cursor.
            try await Self.wait { server.log.all.contains { $0.message == "An audit stream failed" } }
            receiver.isDown = false
            try await Self.activity(client, users: 10..<16)
            streaming.cancel()
            await streaming.value

            let expected = try await Self.trail(server)
            try await Self.pass(server) { receiver.firstArrivals.count >= expected.count }
            #expect(receiver.firstArrivals == expected)
            // Later arrivals of an event already received are repeats of a batch that was in flight.
            #expect(receiver.repeats.count <= AuditStreamer.batchSize, "\(receiver.repeats.count) repeats")
        }
    }

    @Test(arguments: TestDatabase.allCases)
    func aWrongSecretIsRefusedAndTheCursorStays(database: TestDatabase) async throws {
        let clock = TestClock()
        let receiver = AuditReceiver(clock: clock)
        let port = try await receiver.start()
        defer { Task { await receiver.stop() } }
        try await withServer(database: database, clock: clock) { server, client in
            try await Self.configure(server, url: receiver.url(port: port), secret: "not-the-receiver-secret")
            try await Self.activity(client, users: 0..<1)
            try await Self.pass(server) { receiver.refusals > 0 }
            #expect(receiver.firstArrivals.isEmpty)
            #expect(try await server.server.store.audit.streamCursor(server.projectID) == 0)
        }
    }

    @Test(arguments: TestDatabase.allCases)
    func logLinesCarryEveryEvent(database: TestDatabase) async throws {
        try await withServer(database: database) { server, client in
            _ = try await server.server.updateProjectConfig(
                server.projectID, ProjectConfig(auditTrail: .init(logEvents: true)), updateMask: "auditTrail")
            try await Self.activity(client, users: 0..<2)
            let expected = try await Self.trail(server)
            let lines = { server.log.all.compactMap { try? JSONDecoder().decode(AuditEvent.self, from: Data($0.message.utf8)) } }
            try await Self.pass(server) { lines().count >= expected.count }
            #expect(lines() == expected)
        }
    }

    /// On PostgreSQL an ID taken by a transaction that rolled back is never used: the stream waits for it while it
    /// may still commit, and passes it once it is `gapWait` old by the server's clock.
    @Test func aGapHoldsTheStreamUntilItIsOld() async throws {
        let clock = TestClock()
        let receiver = AuditReceiver(clock: clock)
        let port = try await receiver.start()
        defer { Task { await receiver.stop() } }
        try await withServer(database: .postgres, clock: clock) { server, client in
            try await Self.configure(server, url: receiver.url(port: port), secret: receiver.secret)
            try await Self.activity(client, users: 0..<1)
            let before = try await Self.trail(server).count
            try await Self.pass(server) { receiver.firstArrivals.count >= before }

            let store = server.server.store
            let entry = AuditEntry(.configChanged, realm: server.projectID, scope: nil)
            await #expect(throws: RolledBack.self) {
                try await store.database.transaction { tx in
                    try await AuditStore.append([entry], tx)
                    throw RolledBack()
                }
            }
            try await store.audit.append(entry)
            for _ in 0..<3 { await server.server.auditStreamer.pass() }
            #expect(receiver.firstArrivals.count == before)
            try await Self.pass(server) { receiver.firstArrivals.count > before }
            #expect(receiver.firstArrivals == (try await Self.trail(server)))
        }
    }

    private struct RolledBack: Error {}

    static func configure(_ server: TestServer, url: String, secret: String) async throws {
        _ = try await server.server.updateProjectConfig(
            server.projectID, ProjectConfig(auditTrail: .init(webhookUrl: url, webhookSecret: secret)), updateMask: "auditTrail")
    }

    /// Sign-ups, sign-ins and a refused sign-in per user.
    static func activity(_ client: TestClient, users: Range<Int>) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for user in users {
                group.addTask {
                    let email = "user\(user)@example.com"
                    _ = try await client.signUp(email: email, password: "secret-pass-1")
                    let wrong = try await client.post("/v1/accounts:signInWithPassword", [
                        "email": .string(email), "password": "not-the-password", "returnSecureToken": true,
                    ])
                    #expect(wrong.status == 400)
                    let signIn = try await client.post("/v1/accounts:signInWithPassword", [
                        "email": .string(email), "password": "secret-pass-1", "returnSecureToken": true,
                    ])
                    #expect(signIn.status == 200, "\(signIn.body)")
                }
            }
            try await group.waitForAll()
        }
    }

    /// The project's trail as the stream carries it, oldest first.
    static func trail(_ server: TestServer) async throws -> [AuditEvent] {
        try await server.server.store.audit.events(ofProject: server.projectID, after: 0, limit: 10_000).map(AuditRoutes.wire)
    }

    /// Passes until `done`, letting the test clock run `gapWait` after each pass that did not get there (on PostgreSQL
    /// the stream waits out gaps in the IDs by that clock), for at most a minute.
    static func pass(_ server: TestServer, until done: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while true {
            await server.server.auditStreamer.pass()
            if done() { return }
            guard ContinuousClock.now < deadline else { throw StreamTimeout() }
            server.clock.advance(seconds: TimeInterval(AuditStreamer.gapWait) / 1000)
        }
    }

    /// Waits for what background passes do, for at most a minute.
    static func wait(until done: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while !done() {
            guard ContinuousClock.now < deadline else { throw StreamTimeout() }
            await Task.yield()
        }
    }

    struct StreamTimeout: Error {}
}

/// A SIEM's receiver of the audit webhook on 127.0.0.1, doing what `WebhookSignature`'s doc comment asks of one with
/// its own code: `X-Flint-Signature` must be `t=<seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">` under its secret,
/// `t` within 5 minutes of its clock, else 401. It can stop (connections refused) and start again on the same port.
final class AuditReceiver: Sendable {
    let secret = "receiver-secret-\(UUID().uuidString)"
    private let clock: TestClock
    private let state = NIOLockedValueBox(State())

    private struct State {
        /// Every event of every accepted batch, repeats included, in arrival order.
        var arrivals: [AuditEvent] = []
        var refusals = 0
        var isDown = false
        var running: (group: ServiceGroup, task: Task<Void, Error>)?
    }

    private struct Batch: Decodable {
        var events: [AuditEvent]
    }

    init(clock: TestClock) { self.clock = clock }

    func url(port: Int) -> String { "http://127.0.0.1:\(port)/audit" }

    var refusals: Int { state.withLockedValue { $0.refusals } }

    /// While down, every delivery is answered 503 Service Unavailable and taken for nothing.
    var isDown: Bool {
        get { state.withLockedValue { $0.isDown } }
        set { state.withLockedValue { $0.isDown = newValue } }
    }

    /// Each event at its first arrival, in arrival order.
    var firstArrivals: [AuditEvent] {
        var seen = Set<String>()
        return state.withLockedValue { $0.arrivals }.filter { seen.insert($0.eventId).inserted }
    }

    /// Events that arrived again after a later one had.
    var repeats: [AuditEvent] {
        var newest = Int64.min
        return state.withLockedValue { $0.arrivals }.filter { event in
            let id = Int64(event.eventId) ?? 0
            defer { newest = max(newest, id) }
            return id <= newest
        }
    }

    /// Listens on an ephemeral port; returns it.
    func start() async throws -> Int {
        var logger = Logger(label: "audit-receiver")
        logger.logLevel = .critical
        let router = Router()
        router.post("audit") { [self] request, _ in try await self.handle(request) }
        let (ports, bound) = AsyncStream.makeStream(of: Int.self)
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0), serverName: "audit-receiver"),
            onServerRunning: { channel in
                bound.yield(channel.localAddress?.port ?? 0)
                bound.finish()
            }, logger: logger)
        let group = ServiceGroup(configuration: .init(services: [app], gracefulShutdownSignals: [], logger: logger))
        let task = Task {
            defer { bound.finish() }
            try await group.run()
        }
        state.withLockedValue { $0.running = (group, task) }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else { throw TestSupportError.serverDidNotStart }
        return port
    }

    /// Stops listening once open requests are answered.
    func stop() async {
        guard let running = state.withLockedValue({ state in defer { state.running = nil }; return state.running }) else { return }
        await running.group.triggerGracefulShutdown()
        _ = await running.task.result
    }

    private func handle(_ request: Request) async throws -> Response {
        let body = Data(try await request.body.collect(upTo: 1 << 20).readableBytesView)
        if isDown { return Response(status: .serviceUnavailable) }
        guard let header = HTTPField.Name("x-flint-signature").flatMap({ request.headers[$0] }), isSigned(body, header) else {
            state.withLockedValue { $0.refusals += 1 }
            return Response(status: .unauthorized)
        }
        let batch = try JSONDecoder().decode(Batch.self, from: body)
        #expect(HTTPField.Name("idempotency-key").flatMap { request.headers[$0] }
                    == "\(batch.events.first?.eventId ?? "")-\(batch.events.last?.eventId ?? "")")
        state.withLockedValue { $0.arrivals += batch.events }
        return Response(status: .noContent)
    }

    private func isSigned(_ body: Data, _ header: String) -> Bool {
        var fields: [String: String] = [:]
        for part in header.split(separator: ",") {
            let pair = part.split(separator: "=", maxSplits: 1).map(String.init)
            if pair.count == 2 { fields[pair[0]] = pair[1] }
        }
        guard let t = fields["t"], let seconds = Int64(t), abs(clock.seconds - seconds) <= 300, let v1 = fields["v1"] else { return false }
        let mac = HMAC<SHA256>.authenticationCode(for: Data("\(t).".utf8) + body, using: SymmetricKey(data: Data(secret.utf8)))
        let expected = mac.map { String(format: "%02x", $0) }.joined()
        // Compared whole, in time that does not depend on where they differ.
        return expected.utf8.count == v1.utf8.count && zip(expected.utf8, v1.utf8).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
