@testable import FlintAuth
import Foundation
import Testing

/// ID tokens: caching, forced refresh, decoding.
@Suite struct TokenTests {
    @Test func cachedUntilForcedRefresh() async throws {
        let client = RecordingHTTPClient()
        try await withHarness(httpClient: client) { harness in
            let user = try await harness.auth.signInAnonymously().user
            let refreshToken = try #require(user.refreshToken)

            let first = try await user.getIDToken()
            #expect(try await user.getIDToken() == first)
            #expect(try await user.getIDTokenResult().token == first)
            #expect(client.count("v1/token") == 0)

            // The server's clock decides `iat`; move it so the new token differs.
            harness.server.clock.advance(seconds: 10)
            let refreshed = try await user.getIDToken(forcingRefresh: true)
            #expect(refreshed != first)
            #expect(client.count("v1/token") == 1)
            let body = try #require(client.requests.last?.body)
            let json = try #require(try JSONSerialization.jsonObject(with: body) as? [String: String])
            #expect(json == ["grant_type": "refresh_token", "refresh_token": refreshToken])

            // The new token is cached in turn, and used by later calls.
            #expect(try await user.idTokenForcingRefresh(false) == refreshed)
            #expect(client.count("v1/token") == 1)
            try await user.reload()
            #expect(client.count("v1/token") == 1)
        }
    }

    @Test func refreshesWhenLessThanFiveMinutesRemain() async throws {
        let client = RecordingHTTPClient()
        try await withHarness(httpClient: client) { harness in
            let store = InMemoryCredentialStore()
            let key = Auth.storeKey(for: harness.app)
            try await harness.makeAuth(store: store).signInAnonymously()

            // Persist the session as if its ID token had 4 minutes left.
            var snapshot = try UserSnapshot(encoded: try #require(try store.loadData(forKey: key)))
            snapshot.tokens.expirationDate = Date().addingTimeInterval(4 * 60)
            try store.saveData(try snapshot.encoded(), forKey: key)

            let user = try #require(harness.makeAuth(store: store, httpClient: client).currentUser)
            _ = try await user.getIDToken()
            #expect(client.count("v1/token") == 1)
            let expiration = try #require(user.snapshot.tokens.expirationDate)
            #expect(expiration.timeIntervalSinceNow > 50 * 60)
            // The refreshed session was persisted (dates are stored to the millisecond).
            let stored = try UserSnapshot(encoded: try #require(try store.loadData(forKey: key))).tokens
            #expect(stored.accessToken == user.snapshot.tokens.accessToken)
            #expect(try abs(#require(stored.expirationDate).timeIntervalSince(expiration)) < 0.001)
        }
    }

    @Test func freshnessRule() throws {
        let now = Date()
        let tokens = try TokenSnapshot(accessToken: "a", refreshToken: "r", expiresIn: "3600", now: now)
        #expect(tokens.expirationDate == now.addingTimeInterval(3600))
        #expect(tokens.freshAccessToken(at: now) == "a")
        #expect(tokens.freshAccessToken(at: now.addingTimeInterval(3600 - 301)) == "a")
        #expect(tokens.freshAccessToken(at: now.addingTimeInterval(3600 - 299)) == nil)
        // An unreadable expiry counts as stale, as in FirebaseAuth.
        let unknown = try TokenSnapshot(accessToken: "a", refreshToken: "r", expiresIn: nil, now: now)
        #expect(unknown.freshAccessToken(at: now) == nil)
        #expect(throws: (any Error).self) { try TokenSnapshot(accessToken: nil, refreshToken: "r", expiresIn: "1") }
    }

    @Test func tokenResultClaims() async throws {
        try await withHarness { harness in
            let email = Harness.email()
            let user = try await harness.auth.createUser(withEmail: email, password: "secret1").user
            let result = try await user.getIDTokenResult(forcingRefresh: false)

            #expect(result.signInProvider == "password")
            #expect(result.signInSecondFactor == "")
            #expect(result.claims["email"] as? String == email)
            #expect(result.claims["user_id"] as? String == user.uid)
            #expect(result.claims["sub"] as? String == user.uid)
            #expect(result.claims["aud"] as? String == harness.server.projectID)
            #expect(result.claims["email_verified"] as? Bool == false)
            let firebase = try #require(result.claims["firebase"] as? [String: Any])
            #expect(firebase["sign_in_provider"] as? String == "password")
            #expect(result.claims["exp"] as? Int == Int(result.expirationDate.timeIntervalSince1970))
            #expect(result.expirationDate.timeIntervalSince(result.issuedAtDate) == 3600)
            #expect(result.authDate <= result.issuedAtDate)
        }
    }

    @Test func completionFormsOfGetIDToken() async throws {
        try await withHarness { harness in
            let user = try await harness.auth.signInAnonymously().user
            let expected = try await user.getIDToken()
            let token: String? = await withCheckedContinuation { continuation in
                user.getIDToken { token, _ in continuation.resume(returning: token) }
            }
            #expect(token == expected)
            let result: AuthTokenResult? = await withCheckedContinuation { continuation in
                user.getIDTokenResult(forcingRefresh: true) { result, _ in continuation.resume(returning: result) }
            }
            #expect(result?.signInProvider == "anonymous")
        }
    }
}
