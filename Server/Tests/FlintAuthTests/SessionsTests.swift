@testable import FlintAuth
import FlintTestSupport
import FlintWire
import Foundation
import Testing

/// `User.sessions()`, `revokeSession(_:)` and `revokeOtherSessions()` (issue 46) against a live server: one account
/// signed in on two "devices" (two `Auth`s with stores of their own) sees both sessions, its own marked current; one
/// device ends the other's session, whose next refresh is refused (and the device signed out) while its own goes on;
/// "all but current" leaves the current one; an unknown session is `sessionNotFound`.
@Suite struct SessionsTests {
    static let password = "secret-pass-1"

    /// The `sid` claim of the user's current ID token: the ID of the session it belongs to.
    static func sessionID(_ user: User) async throws -> String {
        try #require(try await user.getIDTokenResult().claims["sid"] as? String)
    }

    /// docs/flintauth.md, "A user's sessions" (compiled, not run: DocsTests finds it here, beside `import FlintWire`).
    @MainActor static func docsSnippet() async throws {
        guard let user = Auth.auth().currentUser else { return }
        let sessions: [UserSession] = try await user.sessions()
        for session in sessions where session.current != true {
            print(session.signInProvider, session.lastRefreshUserAgent ?? "?", session.lastRefreshTime)
        }
        try await user.revokeOtherSessions()
    }

    @Test func oneDeviceEndsTheOthersSession() async throws {
        try await withHarness { harness in
            let email = Harness.email("devices")
            // Device A signs up (its sign-up's session), device B signs in: two sessions of one account.
            let deviceA = harness.auth
            let userA = try await deviceA.createUser(withEmail: email, password: Self.password).user
            let deviceB = harness.makeAuth(store: InMemoryCredentialStore())
            let userB = try await deviceB.signIn(withEmail: email, password: Self.password).user
            #expect(userA.uid == userB.uid)
            let sessionA = try await Self.sessionID(userA), sessionB = try await Self.sessionID(userB)
            #expect(sessionA != sessionB)

            // Each device sees both, its own marked current.
            let seenByA = try await userA.sessions()
            #expect(Set(seenByA.map(\.sessionId)) == [sessionA, sessionB], "\(seenByA)")
            #expect(seenByA.first { $0.sessionId == sessionA }?.current == true)
            #expect(seenByA.first { $0.sessionId == sessionB }?.current == false)
            #expect(seenByA.allSatisfy { $0.signInProvider == "password" && $0.tenantId == nil }, "\(seenByA)")
            let seenByB = try await userB.sessions()
            #expect(Set(seenByB.map(\.sessionId)) == [sessionA, sessionB], "\(seenByB)")
            #expect(seenByB.first { $0.sessionId == sessionB }?.current == true)
            #expect(seenByB.first { $0.sessionId == sessionA }?.current == false)

            // The completion-handler form gives the same list, on the main actor.
            let viaCompletion: [String] = try await withCheckedThrowingContinuation { continuation in
                userA.sessions { sessions, error in
                    #expect(isOnMainQueue())
                    if let error { continuation.resume(throwing: error) } else { continuation.resume(returning: (sessions ?? []).map(\.sessionId)) }
                }
            }
            #expect(Set(viaCompletion) == [sessionA, sessionB])

            // A ends B's session: B's next refresh is refused, which signs B out; A keeps working.
            try await userA.revokeSession(sessionB)
            await expectAuthError(.userTokenExpired) { try await userB.getIDToken(forcingRefresh: true) }
            #expect(deviceB.currentUser == nil)
            _ = try await userA.getIDToken(forcingRefresh: true)
            #expect(deviceA.currentUser === userA)
            let left = try await userA.sessions()
            #expect(left.map(\.sessionId) == [sessionA] && left.first?.current == true, "\(left)")

            // The session is gone: ending it again, or one that never was, is sessionNotFound (A stays signed in).
            await expectAuthError(.sessionNotFound) { try await userA.revokeSession(sessionB) }
            await expectAuthError(.sessionNotFound) { try await userA.revokeSession("no-such-session") }
            #expect(deviceA.currentUser === userA)
        }
    }

    @Test func revokingTheOtherSessionsLeavesTheCurrentOne() async throws {
        try await withHarness { harness in
            let email = Harness.email("others")
            let user = try await harness.auth.createUser(withEmail: email, password: Self.password).user
            let current = try await Self.sessionID(user)
            let devices = (0..<2).map { _ in harness.makeAuth(store: InMemoryCredentialStore()) }
            var others: [User] = []
            for device in devices {
                others.append(try await device.signIn(withEmail: email, password: Self.password).user)
            }
            #expect(try await user.sessions().count == 3)

            try await user.revokeOtherSessions()
            let left = try await user.sessions()
            #expect(left.map(\.sessionId) == [current] && left.first?.current == true, "\(left)")
            for (device, other) in zip(devices, others) {
                await expectAuthError(.userTokenExpired) { try await other.getIDToken(forcingRefresh: true) }
                #expect(device.currentUser == nil)
            }
            // This device goes on; with no other session, "all but current" ends nothing and is no error.
            _ = try await user.getIDToken(forcingRefresh: true)
            try await user.revokeOtherSessions()
            #expect(try await user.sessions().map(\.sessionId) == [current])
            #expect(harness.auth.currentUser === user)
        }
    }

    @Test func aTenantUsersSessionsAreTheTenants() async throws {
        try await withHarness { harness in
            // Emulator mode makes tenants on first use.
            harness.auth.tenantID = "tenant-a"
            let user = try await harness.auth.createUser(withEmail: Harness.email("tenant"), password: Self.password).user
            let sessions = try await user.sessions()
            #expect(sessions.count == 1 && sessions.first?.tenantId == "tenant-a" && sessions.first?.current == true, "\(sessions)")
            #expect(sessions.first?.sessionId == (try await Self.sessionID(user)))
            try await user.revokeOtherSessions()
            await expectAuthError(.sessionNotFound) { try await user.revokeSession("no-such-session") }
            #expect(try await user.sessions().count == 1)
        }
    }
}
