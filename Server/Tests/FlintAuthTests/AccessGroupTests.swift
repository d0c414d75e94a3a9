@testable import FlintAuth
import Foundation
import Testing

/// `Auth.useUserAccessGroup(_:)`, with in-memory stores standing in for the Keychain's access groups.
@Suite struct AccessGroupTests {
    /// In-memory stores by access group, shared by the `Auth`s of one test as a Keychain is by apps.
    final class Groups: Sendable {
        private let stores = Locked<[String: InMemoryCredentialStore]>([:])

        func store(_ group: String) -> any AuthCredentialStore {
            stores.withLock { stores in
                if let store = stores[group] { return store }
                let store = InMemoryCredentialStore()
                stores[group] = store
                return store
            }
        }
    }

    @Test func usersMoveIntoTheGroupAndTheChoiceIsRemembered() async throws {
        let client = FakeHTTPClient.anonymousAccounts()
        let groups = Groups()
        try await withFakeAuth(client: client) { fake in
            let app = try #require(fake.app)
            let ownStore = InMemoryCredentialStore()
            let makeAuth = { Auth(app: app, credentialStore: ownStore, httpClient: client, accessGroupStore: groups.store) }
            let auth = makeAuth()
            #expect(auth.userAccessGroup == nil)
            let own = try await auth.signInAnonymously().user
            let log = EventLog()
            auth.addStateDidChangeListener { log.record("state", $1) }

            // As in FirebaseAuth: the group's user (none yet) becomes current, and the own store forgets its user.
            try auth.useUserAccessGroup("TEAM.dev.flint.shared")
            #expect(auth.userAccessGroup == "TEAM.dev.flint.shared")
            #expect(auth.currentUser == nil)
            #expect(try ownStore.loadData(forKey: Auth.storeKey(for: app)) == nil)

            // Signing in now saves to the group, where another app's instance finds the user.
            let shared = try await auth.signInAnonymously().user
            #expect(try groups.store("TEAM.dev.flint.shared").loadData(forKey: Auth.storeKey(for: app)) != nil)
            let relaunched = makeAuth()
            #expect(relaunched.userAccessGroup == "TEAM.dev.flint.shared")
            #expect(relaunched.currentUser?.uid == shared.uid)
            let otherApp = Auth(app: app, credentialStore: InMemoryCredentialStore(), httpClient: client, accessGroupStore: groups.store)
            try otherApp.useUserAccessGroup("TEAM.dev.flint.shared")
            #expect(otherApp.currentUser?.uid == shared.uid)

            // Back to the own store, which has no user any more.
            try auth.useUserAccessGroup(nil)
            #expect(auth.userAccessGroup == nil)
            #expect(auth.currentUser == nil)
            #expect(makeAuth().userAccessGroup == nil)
            await drainCallbacks(auth)
            #expect(log.all == ["state:\(own.uid)", "state:nil", "state:\(shared.uid)", "state:nil"])
        }
    }

    @Test func signingOutOfTheGroupSignsEveryAppOut() async throws {
        let client = FakeHTTPClient.anonymousAccounts()
        let groups = Groups()
        try await withFakeAuth(client: client) { fake in
            let app = try #require(fake.app)
            let first = Auth(app: app, credentialStore: InMemoryCredentialStore(), httpClient: client, accessGroupStore: groups.store)
            let second = Auth(app: app, credentialStore: InMemoryCredentialStore(), httpClient: client, accessGroupStore: groups.store)
            try first.useUserAccessGroup("group")
            try await first.signInAnonymously()
            try first.signOut()
            try second.useUserAccessGroup("group")
            #expect(second.currentUser == nil)
        }
    }

    /// Without a Keychain (Linux), a group is refused with `keychainError` and nothing changes; nil is fine.
    @Test func withoutAKeychainGroupsAreRefused() async throws {
        #if !canImport(Security)
        try await withFakeAuth(client: FakeHTTPClient.anonymousAccounts()) { auth in
            let user = try await auth.signInAnonymously().user
            let error = #expect(throws: (any Error).self) { try auth.useUserAccessGroup("TEAM.dev.flint.shared") }
            #expect(error.flatMap(AuthErrorCode.init) == .keychainError)
            #expect(auth.userAccessGroup == nil)
            #expect(auth.currentUser?.uid == user.uid)
            try auth.useUserAccessGroup(nil)
            #expect(auth.currentUser?.uid == user.uid)
        }
        #endif
    }
}
