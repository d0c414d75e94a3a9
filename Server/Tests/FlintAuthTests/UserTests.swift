@testable import FlintAuth
import Foundation
import Testing

/// Operations on a signed-in user.
@Suite struct UserTests {
    @Test func reloadPicksUpChangesMadeElsewhere() async throws {
        try await withHarness { harness in
            let email = Harness.email()
            let user = try await harness.auth.createUser(withEmail: email, password: "secret1").user
            #expect(user.displayName == nil)

            // The same account, signed in on another "device".
            let other = harness.makeAuth(store: InMemoryCredentialStore())
            let otherUser = try await other.signIn(withEmail: email, password: "secret1").user
            let change = otherUser.createProfileChangeRequest()
            change.displayName = "Ada"
            try await change.commitChanges()

            #expect(user.displayName == nil)
            try await user.reload()
            #expect(user.displayName == "Ada")
            #expect(user.metadata.lastSignInDate != nil)
        }
    }

    @Test func profileChangeRequest() async throws {
        try await withHarness { harness in
            let user = try await harness.auth.createUser(withEmail: Harness.email(), password: "secret1").user
            let change = user.createProfileChangeRequest()
            change.displayName = "Grace Hopper"
            change.photoURL = URL(string: "https://example.com/grace.png")
            try await change.commitChanges()
            #expect(user.displayName == "Grace Hopper")
            #expect(user.photoURL == URL(string: "https://example.com/grace.png"))

            // Assigning nil removes; untouched properties stay.
            let removal = user.createProfileChangeRequest()
            removal.displayName = nil
            try await removal.commitChanges()
            #expect(user.displayName == nil)
            #expect(user.photoURL == URL(string: "https://example.com/grace.png"))

            // The profile reaches new ID tokens.
            let claims = try await user.getIDTokenResult(forcingRefresh: true).claims
            #expect(claims["picture"] as? String == "https://example.com/grace.png")
        }
    }

    @Test func updatePasswordThenSignInWithIt() async throws {
        try await withHarness { harness in
            let email = Harness.email()
            let user = try await harness.auth.createUser(withEmail: email, password: "secret1").user
            try await user.updatePassword(to: "secret2")
            // The session survives its own password change (new tokens were adopted).
            try await user.reload()
            #expect(harness.auth.currentUser === user)

            try harness.auth.signOut()
            await expectAuthError(.wrongPassword) { try await harness.auth.signIn(withEmail: email, password: "secret1") }
            let again = try await harness.auth.signIn(withEmail: email, password: "secret2")
            #expect(again.user.uid == user.uid)
        }
    }

    @Test func updateEmail() async throws {
        try await withHarness { harness in
            let user = try await harness.auth.createUser(withEmail: Harness.email(), password: "secret1").user
            let newEmail = Harness.email("renamed")
            try await user.updateEmail(to: newEmail)
            #expect(user.email == newEmail)
            #expect(try await user.getIDTokenResult().claims["email"] as? String == newEmail)
        }
    }

    @Test func deleteThenSignInFails() async throws {
        try await withHarness { harness in
            let email = Harness.email()
            let user = try await harness.auth.createUser(withEmail: email, password: "secret1").user
            let log = EventLog()
            harness.auth.addStateDidChangeListener { log.record("state", $1) }

            try await user.delete()
            #expect(harness.auth.currentUser == nil)
            await drainCallbacks(harness.auth)
            #expect(log.all == ["state:\(user.uid)", "state:nil"])
            await expectAuthError(.userNotFound) { try await harness.auth.signIn(withEmail: email, password: "secret1") }
        }
    }

    @Test func linkAnonymousUserWithEmail() async throws {
        try await withHarness { harness in
            let anonymous = try await harness.auth.signInAnonymously().user
            let email = Harness.email()
            let result = try await anonymous.link(with: EmailAuthProvider.credential(withEmail: email, password: "secret1"))

            #expect(result.user === anonymous)
            #expect(result.additionalUserInfo == nil)
            #expect(!anonymous.isAnonymous)
            #expect(anonymous.email == email)
            #expect(anonymous.providerData.map(\.providerID) == ["password"])
            #expect(harness.auth.currentUser === anonymous)

            await expectAuthError(.providerAlreadyLinked) {
                try await anonymous.link(with: EmailAuthProvider.credential(withEmail: Harness.email(), password: "secret1"))
            }
            try harness.auth.signOut()
            #expect(try await harness.auth.signIn(withEmail: email, password: "secret1").user.uid == anonymous.uid)
        }
    }

    @Test func unlinkPassword() async throws {
        try await withHarness { harness in
            let user = try await harness.auth.signInAnonymously().user
            try await user.link(with: EmailAuthProvider.credential(withEmail: Harness.email(), password: "secret1"))
            let unlinked = try await user.unlink(fromProvider: EmailAuthProvider.id)
            #expect(unlinked === user)
            #expect(user.providerData.isEmpty)
            #expect(user.email == nil)
            await expectAuthError(.noSuchProvider) { try await user.unlink(fromProvider: EmailAuthProvider.id) }
        }
    }

    @Test func reauthenticate() async throws {
        try await withHarness { harness in
            let otherEmail = Harness.email("other")
            try await harness.auth.createUser(withEmail: otherEmail, password: "secret1")
            let email = Harness.email()
            let user = try await harness.auth.createUser(withEmail: email, password: "secret1").user

            let result = try await user.reauthenticate(with: EmailAuthProvider.credential(withEmail: email, password: "secret1"))
            #expect(result.user === user)
            #expect(result.additionalUserInfo?.providerID == "password")

            await expectAuthError(.userMismatch) {
                try await user.reauthenticate(with: EmailAuthProvider.credential(withEmail: otherEmail, password: "secret1"))
            }
            await expectAuthError(.userMismatch) {
                try await user.reauthenticate(with: EmailAuthProvider.credential(withEmail: Harness.email("nobody"), password: "x12345"))
            }
            await expectAuthError(.wrongPassword) {
                try await user.reauthenticate(with: EmailAuthProvider.credential(withEmail: email, password: "wrong-one"))
            }
            #expect(harness.auth.currentUser === user)
        }
    }

    @Test func deletedElsewhereSignsOutLocally() async throws {
        try await withHarness { harness in
            let email = Harness.email()
            let user = try await harness.auth.createUser(withEmail: email, password: "secret1").user

            let other = harness.makeAuth(store: InMemoryCredentialStore())
            try await other.signIn(withEmail: email, password: "secret1").user.delete()

            await expectAuthError(.userNotFound) { try await user.reload() }
            #expect(harness.auth.currentUser == nil)
            #expect(harness.makeAuth().currentUser == nil) // and the store was cleared
        }
    }
}
