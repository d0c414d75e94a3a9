@testable import FlintAuth
import FlintServer
import FlintWire
import Foundation
import Testing

/// `Auth.signIn(withCustomToken:)`.
@Suite struct CustomTokenTests {
    /// A custom token as an Admin SDK mints it, unsigned: emulator mode does not check signatures.
    static func unsignedToken(uid: String, claims: [String: Any]? = nil) throws -> String {
        var payload: [String: Any] = ["aud": ServiceAccounts.customTokenAudience, "uid": uid,
                                      "iat": Int(Date().timeIntervalSince1970)]
        payload["claims"] = claims
        let header = try JSONSerialization.data(withJSONObject: ["alg": "none", "typ": "JWT"])
        return Base64URL.encode(header) + "." + Base64URL.encode(try JSONSerialization.data(withJSONObject: payload)) + "."
    }

    @Test func signsInAndCreatesTheUserOnFirstUse() async throws {
        try await withHarness { harness in
            let token = try Self.unsignedToken(uid: "custom-\(UUID().uuidString.prefix(8))", claims: ["role": "admin"])
            let first = try await harness.auth.signIn(withCustomToken: token)
            #expect(first.user.uid.hasPrefix("custom-"))
            #expect(harness.auth.currentUser === first.user)
            #expect(first.user.isAnonymous == false)
            #expect(first.additionalUserInfo?.isNewUser == true)
            #expect(first.additionalUserInfo?.providerID == "")
            #expect(first.credential == nil)

            let result = try await first.user.getIDTokenResult()
            #expect(result.signInProvider == "custom")
            #expect(result.claims["role"] as? String == "admin")

            let again = try await harness.auth.signIn(withCustomToken: token)
            #expect(again.user.uid == first.user.uid)
            #expect(again.additionalUserInfo?.isNewUser == false)
        }
    }

    @Test func completionForm() async throws {
        try await withHarness { harness in
            let token = try Self.unsignedToken(uid: "custom-completion")
            let (uid, onMain) = await withCheckedContinuation { continuation in
                harness.auth.signIn(withCustomToken: token) { result, _ in
                    continuation.resume(returning: (result?.user.uid, isOnMainQueue()))
                }
            }
            #expect(uid == "custom-completion")
            #expect(onMain)
            #expect(harness.auth.currentUser?.uid == "custom-completion")
        }
    }

    @Test func rejectedTokens() async throws {
        try await withHarness { harness in
            await expectAuthError(.invalidCustomToken) { try await harness.auth.signIn(withCustomToken: "not-a-jwt") }
            #expect(harness.auth.currentUser == nil)
        }
        // A production server checks the signature against the project's service accounts.
        try await withHarness(emulator: false) { harness in
            let token = try Self.unsignedToken(uid: "forged")
            await expectAuthError(.invalidCustomToken) { try await harness.auth.signIn(withCustomToken: token) }
        }
    }

    @Test func requestShape() async throws {
        let client = FakeHTTPClient { sent in
            switch sent.rpc {
            case "accounts:signInWithCustomToken" where sent.string("token") == "of-another-project":
                .error("CREDENTIAL_MISMATCH")
            case "accounts:signInWithCustomToken":
                .ok(["idToken": "id-token", "refreshToken": "refresh-token", "expiresIn": "3600", "localId": "uid-c",
                     "isNewUser": false])
            case "accounts:lookup":
                .ok(["users": [["localId": "uid-c"]]])
            default:
                .error("UNEXPECTED_RPC : \(sent.rpc)", status: 404)
            }
        }
        try await withFakeAuth(client: client) { auth in
            auth.tenantID = "tenant-1"
            let result = try await auth.signIn(withCustomToken: "minted")
            #expect(result.user.uid == "uid-c")
            #expect(result.user.tenantID == "tenant-1")
            let sent = try #require(client.requests("accounts:signInWithCustomToken").first)
            #expect(sent.string("token") == "minted")
            #expect(sent.body["returnSecureToken"] as? Bool == true)
            #expect(sent.string("tenantId") == "tenant-1")
            #expect(client.requests.map(\.rpc) == ["accounts:signInWithCustomToken", "accounts:lookup"])
            await expectAuthError(.customTokenMismatch) { try await auth.signIn(withCustomToken: "of-another-project") }
        }
    }
}
