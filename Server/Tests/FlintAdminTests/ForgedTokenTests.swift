import FlintAdmin
import FlintTestSupport
import Foundation
import Testing

/// Token verification against tokens made by an independent implementation (Python's `cryptography`, see
/// `forge_tokens.py`): the genuine ones pass, every forgery is refused with the error firebase-admin gives it, with
/// the keys published as Google's X.509 map or as a JWK Set. The cases follow firebase-admin-python's unit tests of
/// `verify_id_token`, plus the known attacks (alg `none`, HS256 keyed with the public key, a changed payload).
@Suite struct ForgedTokenTests {
    enum Publication: String, CaseIterable, Sendable { case x509, jwks }

    /// Each forgery, and what verifying it as an ID token of the project throws.
    static let refusals: [(token: String, code: AdminError.Code)] = [
        ("signed-by-another-key", .invalidIDToken), ("unknown-kid", .invalidIDToken), ("no-kid", .invalidIDToken),
        ("custom-token", .invalidIDToken), ("alg-none", .invalidIDToken), ("hs256-with-the-public-key", .invalidIDToken),
        ("rs256-key-under-1024-bits", .invalidIDToken), ("payload-changed-after-signing", .invalidIDToken),
        ("wrong-audience", .invalidIDToken), ("wrong-issuer", .invalidIDToken), ("session-cookie-issuer", .invalidIDToken),
        ("no-subject", .invalidIDToken), ("empty-subject", .invalidIDToken), ("subject-of-129-characters", .invalidIDToken),
        ("numeric-subject", .invalidIDToken), ("issued-in-the-future", .invalidIDToken),
        ("signed-in-in-the-future", .invalidIDToken), ("no-auth-time", .invalidIDToken), ("no-expiry", .invalidIDToken),
        ("string-expiry", .invalidIDToken), ("expired", .idTokenExpired), ("expired-a-second-ago", .idTokenExpired),
    ]

    /// Runs `body` with a client of `Forgery.project` whose keys are published as `publication` says, at `Forgery.now`
    /// on `clock`.
    static func withVerifier(_ publication: Publication, clock: TestClock = TestClock(Forgery.now), clockSkew: Int = 0,
                             _ body: (AdminAuth, Forgery, FakeGoogleAdminAPI) async throws -> Void) async throws {
        let forgery = try await Forgery.make()
        let google = try await FakeGoogleAdminAPI.start(clientEmail: "unused@forged.test", keyID: "unused",
                                                        publicKey: PooledRSAKeys.shared.makeKey().publicKey)
        let jwks = try await FakeJWKSServer.start(keys: forgery.jwks)
        google.publish(certificates: forgery.certificates, cacheControl: "public, max-age=600")
        let keys: AdminEndpoints.KeySource = switch publication {
        case .x509: .x509Certificates(URL(string: google.idTokenKeysURL)!)
        case .jwks: .jwks(URL(string: jwks.url)!)
        }
        let auth = try AdminAuth(projectID: Forgery.project, credential: .emulatorOwner,
                                 endpoints: googleShapedEndpoints(api: google.baseURL, idTokenKeys: keys, sessionCookieKeys: keys),
                                 clockSkew: clockSkew, now: { clock.now() })
        do {
            try await body(auth, forgery, google)
        } catch {
            await google.stop()
            await jwks.stop()
            throw error
        }
        await google.stop()
        await jwks.stop()
    }

    @Test(arguments: Publication.allCases)
    func genuineTokensPassAndEveryForgeryIsRefused(publication: Publication) async throws {
        try await Self.withVerifier(publication) { auth, forgery, _ in
            let token = try await auth.verifyIDToken(try forgery.token("valid"))
            #expect(token.uid == "user-1" && token.email == "ada@example.com" && token.signInProvider == "password")
            #expect(token.audience == Forgery.project && token.tenantID == nil)
            #expect(token.issuedAt == Forgery.now.addingTimeInterval(-100) && token.authTime == Forgery.now.addingTimeInterval(-200))
            #expect(try await auth.verifyIDToken(try forgery.token("valid-in-tenant")).tenantID == "tenant-1")

            for (name, code) in Self.refusals {
                await expectAdminError(code, name) { try await auth.verifyIDToken(try forgery.token(name)) }
            }
            // Not tokens at all.
            for garbage in ["", "a.b", "a.b.c.d", "not a token", "e30.e30.", "....."] {
                await expectAdminError(.invalidIDToken, garbage) { try await auth.verifyIDToken(garbage) }
            }
            // An ID token is no session cookie (its issuer differs), and the reverse.
            await expectAdminError(.invalidSessionCookie) { try await auth.verifySessionCookie(try forgery.token("valid")) }
            await expectAdminError(.idTokenExpired) { try await auth.verifyIDToken(try forgery.token("expired")) }
        }
    }

    /// A tenant's client takes its own tenant's tokens only; the project's takes every tenant's.
    @Test func tenantsAreChecked() async throws {
        try await Self.withVerifier(.x509) { auth, forgery, _ in
            let inTenant = try await auth.tenant("tenant-1").verifyIDToken(try forgery.token("valid-in-tenant"))
            #expect(inTenant.uid == "user-1")
            await expectAdminError(.tenantIDMismatch) { try await auth.tenant("tenant-2").verifyIDToken(try forgery.token("valid-in-tenant")) }
            await expectAdminError(.tenantIDMismatch) { try await auth.tenant("tenant-1").verifyIDToken(try forgery.token("valid")) }
        }
    }

    /// `clockSkew` forgives clocks that disagree by that much, and no more.
    @Test func clockSkewForgivesThatMuchOnly() async throws {
        try await Self.withVerifier(.x509, clockSkew: 60) { auth, forgery, _ in
            let expiredLately = try await auth.verifyIDToken(try forgery.token("expired-a-second-ago"))
            #expect(expiredLately.uid == "user-1")
            await expectAdminError(.idTokenExpired) { try await auth.verifyIDToken(try forgery.token("expired")) }
            await expectAdminError(.invalidIDToken) { try await auth.verifyIDToken(try forgery.token("issued-in-the-future")) }
        }
        try await Self.withVerifier(.x509, clock: TestClock(Forgery.now.addingTimeInterval(40)), clockSkew: 60) { auth, forgery, _ in
            // Issued 100 s after the forger's `now`, 60 s ahead of this clock: just within the skew.
            let early = try await auth.verifyIDToken(try forgery.token("issued-in-the-future"))
            #expect(early.uid == "user-1")
        }
        #expect(throws: AdminError.self) {
            try AdminAuth(projectID: "p", credential: .emulatorOwner, endpoints: .firebase, clockSkew: 61)
        }
    }

    /// Keys are fetched once and kept as long as `Cache-Control: max-age` says; without it, every time.
    @Test func keysAreKeptAsLongAsTheirCacheControlSays() async throws {
        let clock = TestClock(Forgery.now)
        try await Self.withVerifier(.x509, clock: clock) { auth, forgery, google in
            _ = try await auth.verifyIDToken(try forgery.token("valid"))
            _ = try await auth.verifyIDToken(try forgery.token("valid"))
            #expect(google.keyFetches == 1)
            clock.advance(seconds: 601)
            _ = try await auth.verifyIDToken(try forgery.token("valid"))
            #expect(google.keyFetches == 2)
        }
        try await Self.withVerifier(.x509, clock: clock) { auth, forgery, google in
            google.publish(certificates: forgery.certificates, cacheControl: nil)
            clock.advance(seconds: -601)
            _ = try await auth.verifyIDToken(try forgery.token("valid"))
            _ = try await auth.verifyIDToken(try forgery.token("valid"))
            #expect(google.keyFetches == 2)
        }
    }

    /// Keys that cannot be fetched fail verification with `certificateFetchFailed`, not as a bad token.
    @Test func unreachableKeysAreACertificateFetchFailure() async throws {
        try await Self.withVerifier(.x509) { auth, forgery, google in
            await google.stop()
            await expectAdminError(.certificateFetchFailed) { try await auth.verifyIDToken(try forgery.token("valid")) }
        }
    }

    /// Against an emulator, as the Admin SDKs do there: neither the header, the signature nor the times are checked
    /// (its tokens are unsigned, and its clock may be the developer's), but the audience, issuer and subject are, and a
    /// custom token is still no ID token.
    @Test func anEmulatorsUnsignedTokensPassButTheirClaimsAreChecked() async throws {
        let forgery = try await Forgery.make()
        let auth = try AdminAuth(projectID: Forgery.project, credential: .emulatorOwner,
                                 endpoints: .emulator(host: "127.0.0.1:1"), now: { Forgery.now })
        #expect(try await auth.verifyIDToken(try forgery.token("alg-none")).uid == "user-1")
        #expect(try await auth.verifyIDToken(try forgery.token("no-kid")).uid == "user-1")
        await expectAdminError(.invalidIDToken) { try await auth.verifyIDToken(try forgery.token("wrong-audience")) }
        await expectAdminError(.invalidIDToken) { try await auth.verifyIDToken(try forgery.token("wrong-issuer")) }
        #expect(try await auth.verifyIDToken(try forgery.token("expired")).uid == "user-1")
        await expectAdminError(.invalidIDToken) { try await auth.verifyIDToken(try forgery.token("empty-subject")) }
        await expectAdminError(.invalidIDToken) { try await auth.verifyIDToken(try forgery.token("custom-token")) }
    }
}
