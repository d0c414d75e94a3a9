import AsyncHTTPClient
import Crypto
@testable import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
import Testing

/// Flint's clients of Apple (client secret, code exchange, revocation) and Facebook's Graph API
/// (`debug_token`, `/me` with `appsecret_proof`), against the local fakes.
@Suite struct FederatedClientsTests {
    @Test func appleRevokesTheTokensOfAnAuthorizationCode() async throws {
        let teamKey = P256.Signing.PrivateKey()
        let apple = try await FakeApple.start(teamKey: teamKey.publicKey)
        let client = AppleIDClient(baseURL: apple.baseURL, http: OutsideHTTP(client: .shared), clock: SystemClock())
        let credentials = AppleIDClient.Credentials(
            teamID: apple.teamID, keyID: apple.keyID, clientID: "com.example.app", privateKeyPEM: teamKey.pemRepresentation)
        do {
            let code = apple.makeAuthorizationCode(for: "001.user", clientID: "com.example.app")
            try await client.revoke(authorizationCode: code, credentials: credentials)
            #expect(apple.revocations.all.count == 1)
            #expect(apple.revocations.all.first?.clientID == "com.example.app")

            // The code is single use at Apple; a second revocation with it is refused.
            await #expect(throws: AppleIDClient.CodeRejected.self) {
                try await client.revoke(authorizationCode: code, credentials: credentials)
            }
            // A client secret signed with another key is refused.
            var forged = credentials
            forged.privateKeyPEM = P256.Signing.PrivateKey().pemRepresentation
            let other = apple.makeAuthorizationCode(for: "001.user", clientID: "com.example.app")
            await #expect(throws: AppleIDClient.CodeRejected.self) {
                try await client.revoke(authorizationCode: other, credentials: forged)
            }
            #expect(apple.revocations.all.count == 1)
        } catch {
            await apple.stop()
            throw error
        }
        await apple.stop()
    }

    @Test func facebookAccessTokensAreCheckedWithTheGraphAPI() async throws {
        let facebook = try await FakeFacebook.start()
        let client = FacebookGraphClient(baseURL: facebook.graphURL, http: OutsideHTTP(client: .shared))
        do {
            let token = facebook.makeUserAccessToken(userID: "10001", name: "Ada", email: "ada@example.com")
            let user = try await client.verify(accessToken: token, appID: facebook.appID, appSecret: facebook.appSecret)
            #expect(user.userID == "10001")
            #expect(user.profile["email"] == .string("ada@example.com"))
            // The app proved itself on /me (the fake refuses requests without a valid appsecret_proof).
            #expect(facebook.requests.all.contains { $0.path.hasSuffix("/me") })

            let otherApp = facebook.makeUserAccessToken(userID: "10002", appID: "999")
            await #expect(throws: FlintError.self) {
                try await client.verify(accessToken: otherApp, appID: facebook.appID, appSecret: facebook.appSecret)
            }
            let invalid = facebook.makeUserAccessToken(userID: "10003", valid: false)
            await #expect(throws: FlintError.self) {
                try await client.verify(accessToken: invalid, appID: facebook.appID, appSecret: facebook.appSecret)
            }
            await #expect(throws: FlintError.self) {
                try await client.verify(accessToken: token, appID: facebook.appID, appSecret: "wrong-secret")
            }
        } catch {
            await facebook.stop()
            throw error
        }
        await facebook.stop()
    }
}
