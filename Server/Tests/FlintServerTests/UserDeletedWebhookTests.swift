import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
import Testing

/// The optional user-deletion webhook: a signed `user.deleted` event per deleted account, so apps can
/// delete the user's own data; a receiver that refuses it does not undo or fail the deletion.
@Suite struct UserDeletedWebhookTests {
    @Test(arguments: [true, false])
    func deletionIsAnnouncedWithASignedEvent(rightSecret: Bool) async throws {
        let clock = TestClock()
        let receiver = try await FakeWebhookReceiver.start(clock: clock)
        do {
            try await withServer(emulator: false, clock: clock, configure: {
                $0.delivery.userDeletedWebhook = .init(url: receiver.userDeletedURL,
                                                       secret: rightSecret ? receiver.secret : "not-the-secret")
            }) { server, client in
                let signedUp = try await client.post("/v1/accounts:signUp", [
                    "email": "grace@example.com", "password": "correct horse battery", "returnSecureToken": .bool(true),
                ])
                let localID = try #require(signedUp.string("localId"), "\(signedUp.body)")
                let deleted = try await client.post("/v1/accounts:delete", ["idToken": signedUp["idToken"] ?? .null])
                #expect(deleted.status == 200, "\(deleted.body)")
                #expect(try await server.server.store.accounts.user(projectID: server.projectID, localID: localID) == nil)
                if rightSecret {
                    let event = try #require(await receiver.deletions.waitFor(count: 1).first)
                    #expect(event.localId == localID)
                    #expect(event.projectId == server.projectID)
                    #expect(event.email == "grace@example.com")
                    #expect(event.providerIds == ["password"])
                } else {
                    #expect(receiver.deletions.all.isEmpty)
                    #expect(server.log.all.contains { $0.message == "The user-deletion webhook failed" && $0.metadata["localID"] == localID })
                }
            }
        } catch {
            await receiver.stop()
            throw error
        }
        await receiver.stop()
    }
}
