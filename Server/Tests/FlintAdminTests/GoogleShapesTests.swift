import _CryptoExtras
import FlintAdmin
import FlintTestSupport
import FlintWire
import Foundation
import Testing

/// FlintAdmin against Google's shapes, served by a local fake (`FakeGoogleAdminAPI`): the service account's
/// JWT-bearer grant at its `token_uri`, checked as Google checks it, the access token kept until five minutes before it
/// expires; Identity Toolkit called with it; ID tokens verified against the X.509 map, and `checkRevoked` reading
/// `validSince` and `disabled` from the user Identity Toolkit gives.
@Suite struct GoogleShapesTests {
    /// A service account of a key made here, with `token_uri` at the fake.
    static func serviceAccount(key: _RSA.Signing.PrivateKey, keyID: String, tokenURI: String) throws -> ServiceAccount {
        let file: [String: JSONValue] = [
            "type": "service_account", "project_id": .string(Forgery.project), "private_key_id": .string(keyID),
            "private_key": .string(key.pkcs8PEMRepresentation), "client_email": "admin@forged-project.iam.gserviceaccount.com",
            "client_id": "1", "token_uri": .string(tokenURI),
        ]
        return try ServiceAccount(json: JSONEncoder().encode(JSONValue.object(file)))
    }

    static func withGoogle(tokenLifetime: Int = 3600,
                           _ body: (FakeGoogleAdminAPI, _RSA.Signing.PrivateKey, TestClock, Forgery) async throws -> Void) async throws {
        let key = try PooledRSAKeys.shared.makeKey()
        let clock = TestClock(Forgery.now)
        let google = try await FakeGoogleAdminAPI.start(
            clientEmail: "admin@forged-project.iam.gserviceaccount.com", keyID: "sa-key-1", publicKey: key.publicKey,
            tokenLifetime: tokenLifetime, now: { clock.now() })
        let forgery = try await Forgery.make()
        google.publish(certificates: forgery.certificates, cacheControl: "public, max-age=3600")
        do {
            try await body(google, key, clock, forgery)
        } catch {
            await google.stop()
            throw error
        }
        await google.stop()
    }

    static func client(_ google: FakeGoogleAdminAPI, account: ServiceAccount, clock: TestClock) throws -> AdminAuth {
        let endpoints = googleShapedEndpoints(
            api: google.baseURL, idTokenKeys: .x509Certificates(URL(string: google.idTokenKeysURL)!),
            sessionCookieKeys: .x509Certificates(URL(string: google.sessionCookieKeysURL)!))
        return try AdminAuth(credential: .serviceAccount(account), endpoints: endpoints, now: { clock.now() })
    }

    @Test func theGrantIsMadeOnceAndRenewedBeforeItExpires() async throws {
        try await Self.withGoogle { google, key, clock, _ in
            let auth = try Self.client(google, account: Self.serviceAccount(key: key, keyID: "sa-key-1", tokenURI: google.tokenURL),
                                       clock: clock)
            google.addUser(["localId": "user-1", "email": "ada@example.com", "validSince": "1699990000"])
            #expect(try await auth.user(uid: "user-1").email == "ada@example.com")
            #expect(try await auth.user(uid: "user-1").tokensValidAfterTime == Date(timeIntervalSince1970: 1_699_990_000))
            #expect(google.grants == 1, "\(google.refusedGrants)")
            // Five minutes before the hour is out, a new grant.
            clock.advance(seconds: 3300)
            _ = try await auth.user(uid: "user-1")
            #expect(google.grants == 2)
            await expectAdminError(.userNotFound) { try await auth.user(uid: "nobody") }
        }
    }

    /// A key Google does not know for the account, or a grant sent elsewhere, gets no token.
    @Test func aGrantGoogleRefusesIsAnInvalidCredential() async throws {
        try await Self.withGoogle { google, _, clock, _ in
            let stranger = try PooledRSAKeys.shared.makeKey()
            let auth = try Self.client(google, account: Self.serviceAccount(key: stranger, keyID: "sa-key-1", tokenURI: google.tokenURL),
                                       clock: clock)
            await expectAdminError(.invalidCredential) { try await auth.user(uid: "user-1") }
            #expect(google.grants == 0 && google.refusedGrants == ["Invalid JWT Signature."])
        }
    }

    /// `checkRevoked` against Google's user shape: disabled first, then `validSince` after the token's `iat`.
    @Test func checkRevokedReadsTheUserGoogleGives() async throws {
        try await Self.withGoogle { google, key, clock, forgery in
            let auth = try Self.client(google, account: Self.serviceAccount(key: key, keyID: "sa-key-1", tokenURI: google.tokenURL),
                                       clock: clock)
            let token = try forgery.token("valid")
            let issuedAt = Int(Forgery.now.timeIntervalSince1970) - 100
            google.addUser(["localId": "user-1", "validSince": .string(String(issuedAt))])
            #expect(try await auth.verifyIDToken(token, checkRevoked: true).uid == "user-1")
            google.addUser(["localId": "user-1", "validSince": .string(String(issuedAt + 1))])
            await expectAdminError(.idTokenRevoked) { try await auth.verifyIDToken(token, checkRevoked: true) }
            #expect(try await auth.verifyIDToken(token).uid == "user-1")
            google.addUser(["localId": "user-1", "validSince": .string(String(issuedAt + 1)), "disabled": true])
            await expectAdminError(.userDisabled) { try await auth.verifyIDToken(token, checkRevoked: true) }
        }
    }
}
