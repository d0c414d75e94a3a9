import AsyncHTTPClient
import Crypto
import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
import Testing
import _CryptoExtras

/// A signing key of a fake provider, with its JWK.
private enum TestKey {
    case rsa(kid: String, _RSA.Signing.PrivateKey)
    case p256(kid: String, P256.Signing.PrivateKey)

    static func rsa(_ kid: String) throws -> TestKey { .rsa(kid: kid, try _RSA.Signing.PrivateKey(keySize: .bits2048)) }
    static func p256(_ kid: String) -> TestKey { .p256(kid: kid, P256.Signing.PrivateKey()) }

    var kid: String {
        switch self {
        case .rsa(let kid, _), .p256(let kid, _): kid
        }
    }

    var jwk: [String: String] {
        switch self {
        case .rsa(let kid, let key):
            let primitives = try! key.publicKey.getKeyPrimitives()
            return ["kty": "RSA", "kid": kid, "alg": "RS256", "use": "sig",
                    "n": Base64URL.encode(primitives.modulus), "e": Base64URL.encode(primitives.publicExponent)]
        case .p256(let kid, let key):
            let point = key.publicKey.x963Representation.dropFirst()
            return ["kty": "EC", "kid": kid, "crv": "P-256", "alg": "ES256", "use": "sig",
                    "x": Base64URL.encode(point.prefix(32)), "y": Base64URL.encode(point.suffix(32))]
        }
    }

    /// A compact JWS of `claims`; `header` overrides the usual `alg`/`kid`.
    func sign(_ claims: [String: Any], header: [String: String]? = nil) throws -> String {
        let alg = if case .rsa = self { "RS256" } else { "ES256" }
        let headerJSON = try JSONSerialization.data(withJSONObject: header ?? ["alg": alg, "kid": kid], options: .sortedKeys)
        let input = Base64URL.encode(headerJSON) + "." + Base64URL.encode(try JSONSerialization.data(withJSONObject: claims))
        let signature: Data
        switch self {
        case .rsa(_, let key):
            signature = try key.signature(for: Data(input.utf8), padding: .insecurePKCS1v1_5).rawRepresentation
        case .p256(_, let key):
            signature = try key.signature(for: Data(input.utf8)).rawRepresentation
        }
        return input + "." + Base64URL.encode(signature)
    }
}

private let issuer = "https://appleid.apple.com"
private let audience = "com.example.app"

private func hexSHA256(_ text: String) -> String {
    SHA256.hash(data: Data(text.utf8)).map { String(format: "%02x", $0) }.joined()
}

/// A fake provider publishing `keys`, a cache and verifier on it; stops the fake afterwards.
private func withProvider(_ keys: [TestKey], clock: TestClock = TestClock(),
                          _ body: (FakeJWKSServer, IdentityTokenVerifier) async throws -> Void) async throws {
    let fake = try await FakeJWKSServer.start(keys: keys.map(\.jwk))
    let cache = JWKSCache(url: fake.url, http: OutsideHTTP(client: .shared), clock: clock)
    do {
        try await body(fake, IdentityTokenVerifier(keys: cache, clock: clock))
    } catch {
        await fake.stop()
        throw error
    }
    await fake.stop()
}

@Suite struct IdentityTokenVerifierTests {
    let clock = TestClock(Date(timeIntervalSince1970: 1_700_000_000))

    func claims(_ overrides: [String: Any] = [:]) -> [String: Any] {
        var claims: [String: Any] = [
            "iss": issuer, "aud": audience, "sub": "001234.abcdef", "email": "ada@privaterelay.appleid.com",
            "email_verified": "true", "is_private_email": "true", "nonce": hexSHA256("raw-nonce"),
            "iat": clock.seconds - 10, "exp": clock.seconds + 600,
        ]
        for (name, value) in overrides { claims[name] = value }
        return claims
    }

    func verify(_ verifier: IdentityTokenVerifier, _ token: String, rawNonce: String? = "raw-nonce",
                rule: IdentityTokenVerifier.NonceRule = .sha256Hex) async throws -> VerifiedIdentityToken {
        try await verifier.verify(token, expectedIssuers: [issuer], audiences: [audience, "other"],
                                  rawNonce: rawNonce, nonceRule: rule)
    }

    func refusal(_ body: () async throws -> Void) async -> IdentityTokenError? {
        do {
            try await body()
            return nil
        } catch let error as IdentityTokenError {
            return error
        } catch {
            Issue.record("unexpected \(error)")
            return nil
        }
    }

    @Test func validRSAAndECTokensVerify() async throws {
        let rsa = try TestKey.rsa("r1"), ec = TestKey.p256("e1")
        try await withProvider([rsa, ec], clock: clock) { _, verifier in
            let verified = try await verify(verifier, try rsa.sign(claims(["aud": ["x", audience], "name": "Ada"])))
            #expect(verified.subject == "001234.abcdef")
            #expect(verified.email == "ada@privaterelay.appleid.com")
            #expect(verified.emailVerified == true)
            #expect(verified.isPrivateEmail == true)
            #expect(verified.audiences == ["x", audience])
            #expect(verified.name == "Ada")
            #expect(verified.claims["sub"] == .string("001234.abcdef"))
            let fromEC = try await verify(verifier, try ec.sign(claims(["email_verified": false])))
            #expect(fromEC.emailVerified == false)
            #expect(fromEC.issuer == issuer)
        }
    }

    @Test func forgedAndMisalgorithmedTokensAreRefused() async throws {
        let rsa = try TestKey.rsa("r1"), ec = TestKey.p256("e1")
        try await withProvider([rsa, ec], clock: clock) { _, verifier in
            // Same kid, another key.
            let impostor = try TestKey.rsa("r1")
            #expect(await refusal { _ = try await verify(verifier, try impostor.sign(claims())) } == .badSignature)
            // alg none with an empty signature.
            let unsigned = try rsa.sign(claims(), header: ["alg": "none", "kid": "r1"])
            let parts = unsigned.split(separator: ".")
            #expect(await refusal { _ = try await verify(verifier, "\(parts[0]).\(parts[1]).") }
                == .unsupportedAlgorithm("none"))
            // HS256 keyed with the public key's JWK text.
            let header = Base64URL.encode(try JSONSerialization.data(withJSONObject: ["alg": "HS256", "kid": "r1"]))
            let input = header + "." + Base64URL.encode(try JSONSerialization.data(withJSONObject: claims()))
            let mac = HMAC<SHA256>.authenticationCode(
                for: Data(input.utf8), using: SymmetricKey(data: Data(rsa.jwk["n"]!.utf8)))
            #expect(await refusal { _ = try await verify(verifier, input + "." + Base64URL.encode(Data(mac))) }
                == .unsupportedAlgorithm("HS256"))
            // ES256 claimed for an RSA key.
            #expect(await refusal { _ = try await verify(verifier, try ec.sign(claims(), header: ["alg": "ES256", "kid": "r1"])) }
                == .unsupportedAlgorithm("ES256"))
            // No kid.
            #expect(await refusal { _ = try await verify(verifier, try rsa.sign(claims(), header: ["alg": "RS256"])) }
                == .unknownKey)
            // Not a JWS, and too large.
            #expect(await refusal { _ = try await verify(verifier, "a.b") } == .malformed("not a compact JWS"))
            let huge = try rsa.sign(claims(["pad": String(repeating: "x", count: 20_000)]))
            #expect(await refusal { _ = try await verify(verifier, huge) } == .malformed("too large"))
        }
    }

    @Test func claimChecks() async throws {
        let rsa = try TestKey.rsa("r1")
        try await withProvider([rsa], clock: clock) { _, verifier in
            func refused(_ overrides: [String: Any], rawNonce: String? = "raw-nonce",
                         rule: IdentityTokenVerifier.NonceRule = .sha256Hex) async throws -> IdentityTokenError? {
                let token = try rsa.sign(claims(overrides))
                return await refusal { _ = try await verify(verifier, token, rawNonce: rawNonce, rule: rule) }
            }
            #expect(try await refused(["iss": "https://evil.example"]) == .wrongIssuer)
            #expect(try await refused(["aud": "com.someone.else"]) == .wrongAudience)
            #expect(try await refused(["aud": ["a", "b"]]) == .wrongAudience)
            #expect(try await refused(["exp": clock.seconds - 61]) == .expired)
            #expect(try await refused(["exp": clock.seconds - 30]) == nil)  // within the skew
            #expect(try await refused(["iat": clock.seconds + 120]) == .issuedInFuture)
            #expect(try await refused(["nonce": hexSHA256("another")]) == .nonceMismatch)
            #expect(try await refused(["nonce": "raw-nonce"]) == .nonceMismatch)  // raw nonce, hashed rule
            #expect(try await refused(["nonce": "raw-nonce"], rule: .plain) == nil)
            #expect(try await refused([:], rule: .plain) == nil)
            #expect(try await refused([:], rawNonce: nil) == .missingNonce)
            var noNonce = claims()
            noNonce["nonce"] = nil
            let token = try rsa.sign(noNonce)
            #expect(await refusal { _ = try await verify(verifier, token) } == .missingNonce)
            #expect(await refusal { _ = try await verify(verifier, token, rawNonce: nil) } == nil)
        }
        #expect(IdentityTokenError.nonceMismatch.flintError.message == "MISSING_OR_INVALID_NONCE")
        #expect(IdentityTokenError.badSignature.flintError.message.hasPrefix("INVALID_IDP_RESPONSE"))
    }

    @Test func unknownKidRefetchesAtMostOncePerFloor() async throws {
        let rsa = try TestKey.rsa("r1")
        try await withProvider([rsa], clock: clock) { fake, verifier in
            _ = try await verify(verifier, try rsa.sign(claims()))
            #expect(fake.requestCount == 1)
            clock.advance(seconds: 61)
            let forged1 = try TestKey.rsa("forged-1"), forged2 = try TestKey.rsa("forged-2")
            #expect(await refusal { _ = try await verify(verifier, try forged1.sign(claims())) } == .unknownKey)
            #expect(fake.requestCount == 2)
            #expect(await refusal { _ = try await verify(verifier, try forged2.sign(claims())) } == .unknownKey)
            #expect(fake.requestCount == 2)
            // Known keys are still served from the cache.
            _ = try await verify(verifier, try rsa.sign(claims()))
            #expect(fake.requestCount == 2)
        }
    }

    @Test func rotatedKeyIsPickedUp() async throws {
        let old = try TestKey.rsa("old"), new = TestKey.p256("new")
        try await withProvider([old], clock: clock) { fake, verifier in
            _ = try await verify(verifier, try old.sign(claims()))
            fake.setKeys([old.jwk, new.jwk])
            clock.advance(seconds: 61)
            let verified = try await verify(verifier, try new.sign(claims()))
            #expect(verified.subject == "001234.abcdef")
            #expect(fake.requestCount == 2)
        }
    }

    @Test func concurrentCallersShareOneFetch() async throws {
        let rsa = try TestKey.rsa("r1")
        try await withProvider([rsa], clock: clock) { fake, verifier in
            let token = try rsa.sign(claims())
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<8 { group.addTask { _ = try await verify(verifier, token) } }
                try await group.waitForAll()
            }
            #expect(fake.requestCount == 1)
        }
    }

    @Test func cacheHonoursMaxAgeAndServesStaleWhenProviderIsDown() async throws {
        let rsa = try TestKey.rsa("r1")
        try await withProvider([rsa], clock: clock) { fake, verifier in
            fake.setCacheControl("public, max-age=300")
            _ = try await verify(verifier, try rsa.sign(claims()))
            clock.advance(seconds: 200)
            _ = try await verify(verifier, try rsa.sign(claims()))
            #expect(fake.requestCount == 1)
            clock.advance(seconds: 200)  // past max-age: refetched
            _ = try await verify(verifier, try rsa.sign(claims()))
            #expect(fake.requestCount == 2)
            fake.setDown(true)
            clock.advance(seconds: 400)
            _ = try await verify(verifier, try rsa.sign(claims()))  // stale keys
            #expect(fake.requestCount == 3)
            _ = try await verify(verifier, try rsa.sign(claims()))  // within the floor: no new attempt
            #expect(fake.requestCount == 3)
        }
    }

    @Test func providerDownWithNothingCachedIsUnavailable() async throws {
        let rsa = try TestKey.rsa("r1")
        try await withProvider([rsa], clock: clock) { fake, verifier in
            fake.setDown(true)
            let error = await refusal { _ = try await verify(verifier, try rsa.sign(claims())) }
            guard case .providerUnavailable = error else {
                Issue.record("expected providerUnavailable, got \(String(describing: error))")
                return
            }
        }
    }
}
