import FlintAdmin
@testable import FlintAuth
import FlintTestSupport
import Foundation
import Testing

/// The pair the issue is about: an app signs in with FlintAuth, its server verifies the tokens with FlintAdmin.
/// Claims the server sets reach the app's next token; a revocation ends both the app's session and the server's trust
/// in the tokens it had.
@Suite struct FlintAuthTokenTests {
    @Test(arguments: LiveFlintTests.modes)
    func aFlintAuthAppsTokensAreVerifiedByItsServer(mode: String) async throws {
        try await LiveFlintTests.withEither(mode, .sqlite) { admin, server, _ in
            let name = "flint-admin-\(UUID().uuidString)"
            FirebaseApp.configure(name: name, options: FirebaseOptions(
                apiKey: server.apiKey, projectID: server.projectID, serverURL: server.baseURL))
            let app = try #require(FirebaseApp.app(name: name))
            defer { Task { await app.delete() } }
            let auth = Auth(app: app, credentialStore: InMemoryCredentialStore(), httpClient: URLSessionHTTPClient.shared)

            let user = try await auth.createUser(withEmail: "app-user@example.com", password: "app password").user
            let verified = try await admin.verifyIDToken(try await user.getIDToken(), checkRevoked: true)
            #expect(verified.uid == user.uid && verified.email == "app-user@example.com")

            try await admin.setCustomUserClaims(uid: user.uid, ["tier": "gold"])
            let refreshed = try await user.getIDTokenResult(forcingRefresh: true)
            #expect(refreshed.claims["tier"] as? String == "gold")
            let claimed = try await admin.verifyIDToken(refreshed.token, checkRevoked: true)
            #expect(claimed["tier"] == "gold")

            server.clock.advance(seconds: 2)
            try await admin.revokeRefreshTokens(uid: user.uid)
            await expectAdminError(.idTokenRevoked) { try await admin.verifyIDToken(refreshed.token, checkRevoked: true) }
            await #expect(throws: (any Error).self) { try await user.getIDToken(forcingRefresh: true) }
        }
    }
}
