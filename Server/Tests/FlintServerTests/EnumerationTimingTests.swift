@testable import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
import Testing

/// Email enumeration protection (`emailPrivacyConfig.enableImprovedEmailPrivacy`, on for new production
/// projects), for real: an address with an account and one without get byte-identical answers, the same
/// lockout sequence, and answers in the same time (mail leaves from the outbox after the answer; an unknown
/// address costs a password hash like a known one).
/// One test at a time: the timing tests measure, and must not share the machine with each other.
@Suite(.serialized) struct EnumerationTimingTests {
    static let known = "known@example.com"
    static let unknown = "unknown@example.com"

    /// A production server (enumeration protection on) with `known` signed up, mailing through `smtp`.
    static func withProtectedServer(database: TestDatabase = .sqlite, smtp: SMTPTestServer? = nil,
                                    _ body: (TestServer, TestClient) async throws -> Void) async throws {
        try await withServer(emulator: false, database: database, configure: { configuration in
            if let smtp {
                configuration.delivery.email = .smtp(smtp.configuration(from: "noreply@flint.test"))
                configuration.delivery.limits = .underLoad
            }
            configuration.emailLimits.perAddressPerHour = 1000
        }) { (server: TestServer, client: TestClient) async throws in
            #expect(server.server.configuration.policy.newProjectsProtectEmails)
            _ = try await client.signUp(email: known, password: "secret123")
            try await body(server, client)
        }
    }

    /// The answer's bytes with the address it names replaced by a placeholder.
    static func anonymised(_ reply: TestClient.Reply, _ email: String) -> String {
        String(decoding: reply.data, as: UTF8.self).replacingOccurrences(of: email, with: "<email>")
    }

    static func wrongPassword(_ client: TestClient, _ email: String) async throws -> TestClient.Reply {
        try await client.post("/v1/accounts:signInWithPassword", ["email": .string(email), "password": "wrong-password"])
    }

    static func passwordReset(_ client: TestClient, _ email: String) async throws -> TestClient.Reply {
        try await client.post("/v1/accounts:sendOobCode", ["requestType": "PASSWORD_RESET", "email": .string(email)])
    }

    @Test(arguments: TestDatabase.allCases)
    func knownAndUnknownAddressesGetIdenticalAnswers(database: TestDatabase) async throws {
        try await Self.withProtectedServer(database: database) { server, client in
            let requests: [(String, (String) async throws -> TestClient.Reply)] = [
                ("password reset", { try await Self.passwordReset(client, $0) }),
                ("sign-in link", {
                    try await client.post("/v1/accounts:sendOobCode", [
                        "requestType": "EMAIL_SIGNIN", "email": .string($0), "continueUrl": "http://localhost/done",
                        "canHandleCodeInApp": true,
                    ])
                }),
                ("wrong password", { try await Self.wrongPassword(client, $0) }),
                ("sign-in methods", {
                    try await client.post("/v1/accounts:createAuthUri", [
                        "identifier": .string($0), "continueUri": "http://localhost/done", "sessionId": "fixed-session",
                    ])
                }),
            ]
            for (name, request) in requests {
                let known = try await request(Self.known)
                let unknown = try await request(Self.unknown)
                #expect(known.status == unknown.status, "\(name)")
                #expect(Self.anonymised(known, Self.known) == Self.anonymised(unknown, Self.unknown),
                        "\(name): \(known.body) vs \(unknown.body)")
            }
            await server.waitForOutbox()
        }
    }

    /// Wrong passwords past the lockout: the same answers, byte for byte, whether the address has an account.
    @Test(arguments: TestDatabase.allCases)
    func lockoutSequencesAreIdentical(database: TestDatabase) async throws {
        try await Self.withProtectedServer(database: database) { _, client in
            var sequences: [[Data]] = []
            for email in [Self.known, Self.unknown] {
                var answers: [Data] = []
                for _ in 0..<(Budget.passwordTries.fixedLimit! + 2) {
                    answers.append(try await Self.wrongPassword(client, email).data)
                }
                sequences.append(answers)
            }
            #expect(sequences[0] == sequences[1])
            #expect(String(decoding: sequences[0].last ?? Data(), as: UTF8.self).contains("TOO_MANY_ATTEMPTS_TRY_LATER"))
        }
    }

    /// Response times, known against unknown address, taken alternately after a warm-up pair. Returns the
    /// fastest of each in seconds: load on the machine only ever adds time (a two-core CI run with other suites beside
    /// it doubled a median), so the fastest round is closest to what each path itself costs — and a cost one path pays
    /// every time (a hash, a mail sent inline) shows in its fastest round too.
    static func fastestTimes(rounds: Int, before: () -> Void = {},
                            _ request: (String) async throws -> TestClient.Reply) async throws -> (known: Double, unknown: Double) {
        var times: [String: [Double]] = [:]
        for round in 0...rounds {
            for email in [known, unknown] {
                before()
                let started = ContinuousClock.now
                let reply = try await request(email)
                let elapsed = ContinuousClock.now - started
                #expect(reply.status == 200 || reply.errorCode == "INVALID_LOGIN_CREDENTIALS", "\(reply.body)")
                if round > 0 { times[email, default: []].append(elapsed / .seconds(1)) }
            }
        }
        return (times[known]?.min() ?? 0, times[unknown]?.min() ?? 0)
    }

    /// The known address must not be measurably slower: by less than the larger of 20 ms and half the unknown
    /// one's time. Sending the mail inside the request would add the relay's 300 ms.
    static func expectAlike(_ fastest: (known: Double, unknown: Double), _ what: String) {
        let bound = max(0.020, fastest.unknown / 2)
        #expect(fastest.known - fastest.unknown < bound, "\(what): known \(fastest.known) s, unknown \(fastest.unknown) s")
    }

    @Test func passwordResetTakesAsLongForKnownAndUnknownAddresses() async throws {
        // A slow relay: 300 ms per message.
        let smtp = try await SMTPTestServer.start(mode: .plain, replyDelaySeconds: 0.3)
        do {
            try await Self.withProtectedServer(smtp: smtp) { server, client in
                let rounds = 10
                let fastest = try await Self.fastestTimes(rounds: rounds) { try await Self.passwordReset(client, $0) }
                Self.expectAlike(fastest, "password reset")
                // The known address's mails did go out (after the answers), and the unknown one's did not.
                await server.waitForOutbox()
                let mail = await smtp.received.waitFor(count: rounds + 1)
                #expect(mail.count == rounds + 1 && mail.allSatisfy { $0.to == [Self.known] })
            }
        } catch {
            await smtp.stop()
            throw error
        }
        await smtp.stop()
    }

    @Test func wrongPasswordTakesAsLongForKnownAndUnknownAddresses() async throws {
        try await Self.withProtectedServer { server, client in
            // A new lockout window for every try, so every one is a real check.
            let fastest = try await Self.fastestTimes(rounds: 10, before: {
                server.clock.advance(seconds: Double(Budget.passwordTries.windowSeconds))
            }) { try await Self.wrongPassword(client, $0) }
            Self.expectAlike(fastest, "wrong password")
        }
    }
}
