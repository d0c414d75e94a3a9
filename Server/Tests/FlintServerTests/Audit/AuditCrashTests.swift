import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
import Logging
import NIOConcurrencyHelpers
import Testing

/// The trail and the changes it records commit together: `flint serve` killed with SIGKILL in the middle of a burst of
/// sign-ups and sign-ins leaves, row by row, every account with its one `signUp` event and every session with the one
/// event that began it, and no event of a change that is not there.
@Suite struct AuditCrashTests {
    static let projectID = "demo-crash"
    /// Users of the burst, each signing up and then in; the server is killed once `killAfter` answers came back.
    static let users = 120
    static let killAfter = 40
    static let concurrency = 12

    @Test(arguments: TestDatabase.allCases)
    func aKilledServerLeavesEveryChangeWithItsEvent(database: TestDatabase) async throws {
        let scratch = try await ScratchDatabase.make(database)
        do {
            try await Self.burstAndKill(scratch)
            try await Self.compare(scratch)
        } catch {
            try? await scratch.drop()
            throw error
        }
        try await scratch.drop()
    }

    /// Starts `flint serve` on `scratch`, sends the burst, and kills the server with SIGKILL mid-burst.
    static func burstAndKill(_ scratch: ScratchDatabase) async throws {
        let (serve, url, flintPID) = try await FlintCLI(dataDirectory: scratch.dataDirectory).serve(
            ["--emulator", "--project", projectID, "--port", "0", "--management-port", "0"]
                + (scratch.databaseURL.map { ["--database-url", $0] } ?? []), bound: 120)
        let client = TestClient(baseURL: url, apiKey: "fake-api-key").flooding(connections: concurrency)

        let answered = NIOLockedValueBox(0)
        func answer() {
            let count = answered.withLockedValue { count in
                count += 1
                return count
            }
            if count == killAfter { kill(flintPID, SIGKILL) }
        }
        await withTaskGroup(of: Void.self) { group in
            for lane in 0..<concurrency {
                group.addTask {
                    for user in stride(from: lane, to: users, by: concurrency) {
                        let email = "user\(user)@example.com"
                        // After the kill every request fails: the lane stops.
                        guard let signUp = try? await client.post("/v1/accounts:signUp", [
                            "email": .string(email), "password": "crash-pass-1", "returnSecureToken": true,
                        ]), signUp.status == 200 else { return }
                        answer()
                        guard let signIn = try? await client.post("/v1/accounts:signInWithPassword", [
                            "email": .string(email), "password": "crash-pass-1", "returnSecureToken": true,
                        ]), signIn.status == 200 else { return }
                        answer()
                    }
                }
            }
        }
        let stopped = await serve.finish()
        #expect(stopped.status == 128 + SIGKILL, "flint was to be killed: \(stopped.errors)")
        #expect(answered.withLockedValue { $0 } >= killAfter)
    }

    /// Reads the database the killed server left and compares its accounts and sessions with its events.
    static func compare(_ scratch: ScratchDatabase) async throws {
        var logger = Logger(label: "audit-crash")
        logger.logLevel = .critical
        let store = try await Store.open(databaseURL: scratch.databaseURL, dataDirectory: scratch.dataDirectory, logger: logger)
        do {
            let database = store.database
            let accounts = try await database.query("SELECT local_id FROM users WHERE project_id = ?", .text(projectID))
                .compactMap { $0.string("local_id") }
            let sessions = try await database.query(
                "SELECT session_id, local_id FROM refresh_tokens WHERE project_id = ?", .text(projectID))
                .map { [$0.string("session_id") ?? "", $0.string("local_id") ?? ""] }
            let events = try await database.query(
                "SELECT type, local_id, session_id FROM audit_events WHERE realm = ? AND type IN ('signUp', 'signIn')",
                .text(projectID))
            let signUps = events.filter { $0.string("type") == "signUp" }.compactMap { $0.string("local_id") }
            let began = events.map { [$0.string("session_id") ?? "", $0.string("local_id") ?? ""] }

            // Some of the burst committed, and not all of it: the kill came in the middle.
            #expect(accounts.count >= killAfter / 2 && accounts.count < users, "\(accounts.count) accounts")
            // Each account has exactly one sign-up event, and each sign-up event its account.
            #expect(signUps.sorted() == accounts.sorted(), "accounts \(accounts.count), sign-up events \(signUps.count)")
            // Each session (its ID and user) was begun by exactly one event, and each such event's session is there.
            #expect(began.map { $0.joined(separator: " ") }.sorted() == sessions.map { $0.joined(separator: " ") }.sorted(),
                    "sessions \(sessions.count), events that begin one \(began.count)")
            try await store.close()
        } catch {
            try? await store.close()
            throw error
        }
    }
}
