@testable import FlintAuth
import FlintTestSupport
import Foundation
import Testing

/// `Auth.updateCurrentUser(_:)`.
@Suite struct UpdateCurrentUserTests {
    @Test func takesOverTheUserOfAnotherInstance() async throws {
        try await withHarness { harness in
            let mine = try await harness.auth.createUser(withEmail: Harness.email(), password: "secret1").user
            let other = harness.makeAuth(store: InMemoryCredentialStore())
            let theirs = try await other.createUser(withEmail: Harness.email(), password: "secret1").user
            let log = EventLog()
            harness.auth.addStateDidChangeListener { log.record("state", $1) }

            try await harness.auth.updateCurrentUser(theirs)
            let current = try #require(harness.auth.currentUser)
            #expect(current.uid == theirs.uid)
            #expect(current.email == theirs.email)
            // This instance keeps its own copy of the session; the other keeps its user.
            #expect(current !== theirs)
            #expect(other.currentUser === theirs)
            _ = try await current.getIDToken(forcingRefresh: true)
            try await current.reload()
            #expect(harness.makeAuth().currentUser?.uid == theirs.uid)

            // A user this instance signed in before comes back as it was.
            try await harness.auth.updateCurrentUser(mine)
            #expect(harness.auth.currentUser === mine)
            await drainCallbacks(harness.auth)
            #expect(log.all == ["state:\(mine.uid)", "state:\(theirs.uid)", "state:\(mine.uid)"])
        }
    }

    @Test func refusesAUserOfAnotherProject() async throws {
        try await withHarness { harness in
            let mine = try await harness.auth.signInAnonymously().user
            let otherServer = try await TestServer.start(projectID: "demo-other")
            var failure: (any Error)?
            do {
                let name = "flint-auth-other-\(UUID().uuidString)"
                FirebaseApp.configure(name: name, options: FirebaseOptions(apiKey: otherServer.apiKey, projectID: otherServer.projectID,
                                                                           serverURL: otherServer.baseURL))
                let app = try #require(FirebaseApp.app(name: name))
                let other = Auth(app: app, credentialStore: InMemoryCredentialStore())
                let foreign = try await other.signInAnonymously().user
                await expectAuthError(.invalidUserToken) { try await harness.auth.updateCurrentUser(foreign) }
                #expect(harness.auth.currentUser === mine)
                #expect(other.currentUser === foreign)
                await app.delete()
            } catch {
                failure = error
            }
            try await otherServer.stop()
            if let failure { throw failure }
        }
    }

    /// A second `Auth` on `client`, of an app with `apiKey`.
    static func otherAuth(apiKey: String, client: FakeHTTPClient) throws -> Auth {
        let name = "flint-auth-fake-other-\(UUID().uuidString)"
        FirebaseApp.configure(name: name, options: FirebaseOptions(apiKey: apiKey, projectID: "demo-phone",
                                                                   serverURL: URL(string: "http://flint.test")))
        return Auth(app: try #require(FirebaseApp.app(name: name)), credentialStore: InMemoryCredentialStore(), httpClient: client)
    }

    @Test func theSameKeyAndServerNeedNoRequest() async throws {
        let client = FakeHTTPClient.anonymousAccounts()
        try await withFakeAuth(client: client) { auth in
            let other = Auth(app: try #require(auth.app), credentialStore: InMemoryCredentialStore(), httpClient: client)
            let user = try await other.signInAnonymously().user
            let sent = client.requests.count
            try await auth.updateCurrentUser(user)
            #expect(auth.currentUser?.uid == user.uid)
            #expect(auth.currentUser?.refreshToken == user.refreshToken)
            #expect(client.requests.count == sent)
        }
    }

    @Test func anotherKeyIsCheckedThroughThisInstance() async throws {
        let client = FakeHTTPClient.anonymousAccounts()
        try await withFakeAuth(client: client) { auth in
            let other = try Self.otherAuth(apiKey: "other-key", client: client)
            let user = try await other.signInAnonymously().user
            try await auth.updateCurrentUser(user)
            let lookup = try #require(client.requests("accounts:lookup").last)
            #expect(lookup.query["key"] == "fake-api-key")
            #expect(lookup.string("idToken") == "id-token-1")
            #expect(auth.currentUser?.uid == "uid-1")
            #expect(auth.currentUser?.displayName == "looked up with fake-api-key")
            await other.app?.delete()
        }
    }

    @Test func aRejectedUserLeavesBothInstancesAsTheyWere() async throws {
        let client = FakeHTTPClient.anonymousAccounts(rejectedKey: "fake-api-key")
        try await withFakeAuth(client: client) { auth in
            let other = try Self.otherAuth(apiKey: "other-key", client: client)
            let user = try await other.signInAnonymously().user
            await expectAuthError(.invalidUserToken) { try await auth.updateCurrentUser(user) }
            #expect(auth.currentUser == nil)
            #expect(other.currentUser === user)
            await other.app?.delete()
        }
    }

    @Test func nilUsersAndOtherTenantsAreRefused() async throws {
        let client = FakeHTTPClient.anonymousAccounts()
        try await withFakeAuth(client: client) { auth in
            let nullUser: (any Error)? = await withCheckedContinuation { continuation in
                auth.updateCurrentUser(nil) { continuation.resume(returning: $0) }
            }
            #expect(nullUser.flatMap(AuthErrorCode.init) == .nullUser)

            let user = try await Auth(app: try #require(auth.app), credentialStore: InMemoryCredentialStore(), httpClient: client)
                .signInAnonymously().user
            auth.tenantID = "tenant-1"
            await expectAuthError(.tenantIDMismatch) { try await auth.updateCurrentUser(user) }
            auth.tenantID = nil
            let error: (any Error)? = await withCheckedContinuation { continuation in
                auth.updateCurrentUser(user) { continuation.resume(returning: $0) }
            }
            #expect(error == nil)
            #expect(auth.currentUser?.uid == user.uid)
        }
    }
}
