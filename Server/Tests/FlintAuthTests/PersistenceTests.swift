@testable import FlintAuth
import Foundation
import Testing

/// The persisted session and the file credential store.
@Suite struct PersistenceTests {
    @Test func userSurvivesANewAuthInstance() async throws {
        try await withHarness { harness in
            let email = Harness.email()
            let user = try await harness.auth.createUser(withEmail: email, password: "secret1").user
            let token = try await user.getIDToken()

            let restored = try #require(harness.makeAuth().currentUser)
            #expect(restored !== user)
            #expect(restored.uid == user.uid)
            #expect(restored.email == email)
            #expect(restored.refreshToken == user.refreshToken)
            #expect(restored.providerData.map(\.providerID) == ["password"])
            #expect(restored.metadata.creationDate == user.metadata.creationDate)
            #expect(!restored.isAnonymous)
            // The cached token came back too, and the session works.
            #expect(try await restored.getIDToken() == token)
            try await restored.reload()
        }
    }

    @Test func storeFileIsPrivate() async throws {
        try await withHarness { harness in
            try await harness.auth.signInAnonymously()
            let files = try FileManager.default.contentsOfDirectory(atPath: harness.directory.path)
            #expect(files == ["\(harness.app.name)_firebase_user.json"])

            let store = FileCredentialStore(directory: harness.directory)
            let path = store.fileURL(forKey: Auth.storeKey(for: harness.app)).path
            let fileMode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
            #expect(fileMode == 0o600)
            let directoryMode = try FileManager.default.attributesOfItem(atPath: harness.directory.path)[.posixPermissions] as? Int
            #expect(directoryMode == 0o700)
        }
    }

    @Test func signOutClearsTheStoreAndTellsListeners() async throws {
        try await withHarness { harness in
            let user = try await harness.auth.signInAnonymously().user
            let log = EventLog()
            harness.auth.addStateDidChangeListener { log.record("state", $1) }
            harness.auth.addIDTokenDidChangeListener { log.record("token", $1) }

            try harness.auth.signOut()
            #expect(harness.auth.currentUser == nil)
            try harness.auth.signOut() // a no-op without a user
            await drainCallbacks(harness.auth)
            #expect(log.all == ["state:\(user.uid)", "token:\(user.uid)", "state:nil", "token:nil"])

            #expect(try FileManager.default.contentsOfDirectory(atPath: harness.directory.path).isEmpty)
            #expect(harness.makeAuth().currentUser == nil)
        }
    }

    @Test func fileStoreReplacesItems() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("flint-auth-\(UUID().uuidString)/nested")
        defer { try? FileManager.default.removeItem(at: directory.deletingLastPathComponent()) }
        let store = FileCredentialStore(directory: directory)
        #expect(try store.loadData(forKey: "a/b") == nil)
        try store.saveData(Data("one".utf8), forKey: "a/b")
        try store.saveData(Data("two".utf8), forKey: "a/b")
        #expect(try store.loadData(forKey: "a/b") == Data("two".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["a%2Fb.json"])
        try store.removeData(forKey: "a/b")
        try store.removeData(forKey: "a/b")
        #expect(try store.loadData(forKey: "a/b") == nil)
    }

    @Test func defaultDirectoryFollowsXDG() {
        let directory = FileCredentialStore.defaultDirectory(appIdentifier: "dev.flint.app")
        #expect(directory.path.hasSuffix("/dev.flint.app/firebase-auth"))
        if let xdg = ProcessInfo.processInfo.environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
            #expect(directory.path.hasPrefix(xdg))
        } else {
            #expect(directory.path.hasPrefix(NSHomeDirectory() + "/.local/share/"))
        }
    }
}
