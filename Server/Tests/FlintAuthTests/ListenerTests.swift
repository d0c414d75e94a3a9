@testable import FlintAuth
import Foundation
import Testing

/// Auth-state and ID-token listeners.
@Suite struct ListenerTests {
    @Test func firingOrder() async throws {
        try await withHarness { harness in
            let auth = harness.auth
            let log = EventLog()
            auth.addStateDidChangeListener { log.record("state", $1) }
            auth.addIDTokenDidChangeListener { log.record("token", $1) }
            await drainCallbacks(auth)
            #expect(log.all == ["state:nil", "token:nil"])

            let user = try await auth.signInAnonymously().user
            await drainCallbacks(auth)
            #expect(log.all.suffix(2) == ["state:\(user.uid)", "token:\(user.uid)"])

            // A new ID token: only the ID-token listener hears of it.
            harness.server.clock.advance(seconds: 5)
            _ = try await user.getIDToken(forcingRefresh: true)
            // No change: nobody is told.
            _ = try await user.getIDToken(forcingRefresh: false)
            try await user.reload()
            try auth.signOut()
            await drainCallbacks(auth)
            #expect(log.all == [
                "state:nil", "token:nil",
                "state:\(user.uid)", "token:\(user.uid)",
                "token:\(user.uid)",
                "state:nil", "token:nil",
            ])
        }
    }

    @Test func registrationReportsTheCurrentUser() async throws {
        try await withHarness { harness in
            let user = try await harness.auth.signInAnonymously().user
            let log = EventLog()
            harness.auth.addIDTokenDidChangeListener { log.record("token", $1) }
            await drainCallbacks(harness.auth)
            #expect(log.all == ["token:\(user.uid)"])
        }
    }

    @Test func removedListenersAreSilent() async throws {
        try await withHarness { harness in
            let auth = harness.auth
            let log = EventLog()
            let state = auth.addStateDidChangeListener { log.record("state", $1) }
            let token = auth.addIDTokenDidChangeListener { log.record("token", $1) }
            await drainCallbacks(auth)
            auth.removeStateDidChangeListener(state)
            auth.removeIDTokenDidChangeListener(token)
            try await auth.signInAnonymously()
            await drainCallbacks(auth)
            #expect(log.all == ["state:nil", "token:nil"])
        }
    }

    @Test func switchingUsersTellsStateListeners() async throws {
        try await withHarness { harness in
            let auth = harness.auth
            let email = Harness.email()
            let first = try await auth.createUser(withEmail: email, password: "secret1").user
            let log = EventLog()
            auth.addStateDidChangeListener { log.record("state", $1) }
            let second = try await auth.createUser(withEmail: Harness.email(), password: "secret1").user
            // Signing the same user in again is not a state change.
            try await auth.signIn(withEmail: email, password: "secret1")
            try await auth.signIn(withEmail: email, password: "secret1")
            await drainCallbacks(auth)
            #expect(log.all == ["state:\(first.uid)", "state:\(second.uid)", "state:\(first.uid)"])
        }
    }

    @Test func authStateDidChangeIsPostedWhenTheIDTokenChanges() async throws {
        try await withHarness { harness in
            let auth = harness.auth
            let posts = Counter()
            let observer = NotificationCenter.default.addObserver(forName: .AuthStateDidChange, object: auth, queue: nil) { notification in
                #expect(notification.object as? Auth === auth)
                posts.next()
            }
            defer { NotificationCenter.default.removeObserver(observer) }
            // Another instance's changes are posted with that instance as the object.
            let other = harness.makeAuth(store: InMemoryCredentialStore())
            try await other.signInAnonymously()
            await drainCallbacks(other)
            #expect(posts.current == 0)

            let user = try await auth.signInAnonymously().user
            await drainCallbacks(auth)
            #expect(posts.current == 1)
            harness.server.clock.advance(seconds: 5)
            _ = try await user.getIDToken(forcingRefresh: true)
            try await user.reload()
            try auth.signOut()
            await drainCallbacks(auth)
            #expect(posts.current == 3)
            #expect(Auth.authStateDidChangeNotification.rawValue == "FIRAuthStateDidChangeNotification")
        }
    }
}
