@testable import FlintAuth
import FlintTestSupport
import Foundation
import Testing

/// `Auth.tenantID`: users of a tenant live in it, as FirebaseAuth's do against Identity Platform.
@Suite struct TenantAuthTests {
    @Test func usersLiveInTheirTenantAndDoNotMix() async throws {
        try await withHarness { harness in
            // Emulator mode makes tenants on first use, every sign-in method on.
            harness.auth.tenantID = "tenant-a"
            let inA = try await harness.auth.createUser(withEmail: "same@example.com", password: "secret-a").user
            #expect(inA.tenantID == "tenant-a")
            let claims = try await inA.getIDTokenResult().claims
            #expect((claims["firebase"] as? [String: Any])?["tenant"] as? String == "tenant-a")

            let other = harness.makeAuth(store: InMemoryCredentialStore())
            other.tenantID = "tenant-b"
            let inB = try await other.createUser(withEmail: "same@example.com", password: "secret-b").user
            #expect(inB.uid != inA.uid && inB.tenantID == "tenant-b")
            // A user of another tenant is refused, and a refreshed token stays in its tenant.
            await expectAuthError(.tenantIDMismatch) { try await harness.auth.updateCurrentUser(inB) }
            #expect(harness.auth.currentUser === inA)
            let refreshed = try await inB.getIDTokenResult(forcingRefresh: true).claims
            #expect((refreshed["firebase"] as? [String: Any])?["tenant"] as? String == "tenant-b")

            // Each tenant's password signs in to its own account only; the project has none.
            try harness.auth.signOut()
            await expectAuthError(.wrongPassword) { try await harness.auth.signIn(withEmail: "same@example.com", password: "secret-b") }
            #expect(try await harness.auth.signIn(withEmail: "same@example.com", password: "secret-a").user.uid == inA.uid)
            try harness.auth.signOut()
            harness.auth.tenantID = nil
            await expectAuthError(.userNotFound) { try await harness.auth.signIn(withEmail: "same@example.com", password: "secret-a") }
        }
    }
}
