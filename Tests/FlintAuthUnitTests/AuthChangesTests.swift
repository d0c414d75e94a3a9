@testable import FlintAuth
import Foundation
import Testing

/// `Auth.authStateChanges` and `Auth.idTokenChanges`: the listeners as async sequences.
@Suite struct AuthChangesTests {
    @Test func authStateChangesFollowSignInAndSignOut() async throws {
        try await withStubAuth { auth in
            var changes = auth.authStateChanges.makeAsyncIterator()
            #expect(await changes.next() == .some(nil))
            let user = try await auth.signInAnonymously().user
            #expect(await changes.next() == user)
            // A new ID token is not a change of the signed-in user: the next value is the sign-out.
            _ = try await user.getIDToken(forcingRefresh: true)
            try auth.signOut()
            #expect(await changes.next() == .some(nil))
        }
    }

    @Test func idTokenChangesAlsoFollowNewTokens() async throws {
        try await withStubAuth { auth in
            var changes = auth.idTokenChanges.makeAsyncIterator()
            #expect(await changes.next() == .some(nil))
            let user = try await auth.signInAnonymously().user
            #expect(await changes.next() == user)
            _ = try await user.getIDToken(forcingRefresh: true)
            #expect(await changes.next() == user)
            try auth.signOut()
            #expect(await changes.next() == .some(nil))
        }
    }

    @Test func theFirstValueIsTheCurrentUser() async throws {
        try await withStubAuth { auth in
            let user = try await auth.signInAnonymously().user
            var states = auth.authStateChanges.makeAsyncIterator()
            var tokens = auth.idTokenChanges.makeAsyncIterator()
            #expect(await states.next() == user)
            #expect(await tokens.next() == user)
        }
    }

    @Test func cancellingTheLoopRemovesItsListener() async throws {
        try await withStubAuth { auth in
            let (seen, seeing) = AsyncStream.makeStream(of: String?.self)
            let loop = Task {
                for await user in auth.authStateChanges {
                    seeing.yield(user?.uid)
                }
                seeing.finish()
            }
            var seenUIDs = seen.makeAsyncIterator()
            #expect(await seenUIDs.next() == .some(nil))
            #expect(auth.state[\.listeners].count == 1)

            loop.cancel()
            await loop.value
            #expect(auth.state[\.listeners].isEmpty)
            // The loop has ended: the sign-in reaches nobody.
            try await auth.signInAnonymously()
            #expect(await seenUIDs.next() == nil)
        }
    }

    @Test func leavingTheLoopRemovesItsListener() async throws {
        try await withStubAuth { auth in
            for await user in auth.idTokenChanges {
                #expect(user == nil)
                #expect(auth.state[\.listeners].count == 1)
                break
            }
            #expect(auth.state[\.listeners].isEmpty)
        }
    }
}
