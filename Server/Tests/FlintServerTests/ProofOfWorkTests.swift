import Crypto
@testable import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
import Logging
import Testing

/// Flint's proof-of-work captcha: challenges, redemption and tokens, on both databases (single use is
/// a counter in the shared store).
@Suite struct ProofOfWorkTests {
    private static let bits = 6

    /// A `ProofOfWork` on a scratch store, with a clock the test moves.
    private func withProofOfWork(_ kind: TestDatabase = .sqlite,
                                 _ body: (ProofOfWork, TestClock) async throws -> Void) async throws {
        let scratch = try await ScratchDatabase.make(kind)
        let store = try await Store.open(
            databaseURL: scratch.databaseURL, dataDirectory: scratch.dataDirectory, logger: Logger(label: "test"))
        let clock = TestClock()
        let proofOfWork = ProofOfWork(
            secrets: SecretBox(masterKey: SymmetricKey(size: .bits256)), counters: store.counters, clock: clock, random: SystemRandomSource())
        do {
            try await body(proofOfWork, clock)
        } catch {
            try? await store.close()
            try? await scratch.drop()
            throw error
        }
        try await store.close()
        try await scratch.drop()
    }

    /// Brute-forces a nonce meeting `bits`, as the page does.
    static func solve(_ challenge: String, bits: Int = bits) -> String {
        var counter = 0
        while ProofOfWork.leadingZeroBits(of: challenge, nonce: String(counter, radix: 36)) < bits { counter += 1 }
        return String(counter, radix: 36)
    }

    /// A nonce that does not meet `bits` (so a wrong answer is tested, not a lucky one).
    static func wrongNonce(_ challenge: String, bits: Int = bits) -> String {
        var counter = 0
        while ProofOfWork.leadingZeroBits(of: challenge, nonce: "x\(counter)") >= bits { counter += 1 }
        return "x\(counter)"
    }

    @Test(arguments: TestDatabase.allCases)
    func challengeRedeemAndVerifyRoundTrip(_ kind: TestDatabase) async throws {
        try await withProofOfWork(kind) { proofOfWork, _ in
            let challenge = try proofOfWork.challenge(projectID: "p1", bits: Self.bits)
            let token = try await proofOfWork.redeem(challenge: challenge, nonce: Self.solve(challenge), projectID: "p1")
            #expect(token.hasPrefix("flint-pow."))
            #expect(ProofOfWork.isProofOfWorkToken(token))
            #expect(!ProofOfWork.isProofOfWorkToken("03AFcWeA6…a reCAPTCHA token"))
            #expect(try await proofOfWork.verifyToken(token, projectID: "p1"))
            #expect(try await !proofOfWork.verifyToken(token, projectID: "p1"), "a token is good for one use")
        }
    }

    @Test(arguments: TestDatabase.allCases)
    func challengeIsUsedOnce(_ kind: TestDatabase) async throws {
        try await withProofOfWork(kind) { proofOfWork, _ in
            let challenge = try proofOfWork.challenge(projectID: "p1", bits: Self.bits)
            let nonce = Self.solve(challenge)
            _ = try await proofOfWork.redeem(challenge: challenge, nonce: nonce, projectID: "p1")
            await #expect(throws: ProofOfWorkError.alreadyUsed) {
                try await proofOfWork.redeem(challenge: challenge, nonce: nonce, projectID: "p1")
            }
        }
    }

    @Test func wrongNonceIsRefusedAndLeavesTheChallengeUsable() async throws {
        try await withProofOfWork { proofOfWork, _ in
            let challenge = try proofOfWork.challenge(projectID: "p1", bits: Self.bits)
            await #expect(throws: ProofOfWorkError.insufficientWork) {
                try await proofOfWork.redeem(challenge: challenge, nonce: Self.wrongNonce(challenge), projectID: "p1")
            }
            await #expect(throws: ProofOfWorkError.invalidNonce) {
                try await proofOfWork.redeem(challenge: challenge, nonce: "", projectID: "p1")
            }
            await #expect(throws: ProofOfWorkError.invalidNonce) {
                try await proofOfWork.redeem(challenge: challenge, nonce: String(repeating: "0", count: 65), projectID: "p1")
            }
            _ = try await proofOfWork.redeem(challenge: challenge, nonce: Self.solve(challenge), projectID: "p1")
        }
    }

    @Test func expiredChallengeAndTokenAreRefused() async throws {
        try await withProofOfWork { proofOfWork, clock in
            let challenge = try proofOfWork.challenge(projectID: "p1", bits: Self.bits)
            let nonce = Self.solve(challenge)
            clock.advance(seconds: Double(ProofOfWork.lifetimeSeconds) + 1)
            await #expect(throws: ProofOfWorkError.expired) {
                try await proofOfWork.redeem(challenge: challenge, nonce: nonce, projectID: "p1")
            }

            let first = try proofOfWork.challenge(projectID: "p1", bits: Self.bits)
            let second = try proofOfWork.challenge(projectID: "p1", bits: Self.bits)
            let early = try await proofOfWork.redeem(challenge: first, nonce: Self.solve(first), projectID: "p1")
            let token = try await proofOfWork.redeem(challenge: second, nonce: Self.solve(second), projectID: "p1")
            clock.advance(seconds: Double(ProofOfWork.lifetimeSeconds) - 1)
            #expect(try await proofOfWork.verifyToken(early, projectID: "p1"), "good until it expires")
            clock.advance(seconds: 2)
            #expect(try await !proofOfWork.verifyToken(token, projectID: "p1"), "an expired token is refused")
        }
    }

    @Test func tamperedChallengeAndTokenAreRefused() async throws {
        try await withProofOfWork { proofOfWork, _ in
            let challenge = try proofOfWork.challenge(projectID: "p1", bits: Self.bits)
            var bytes = try #require(Base64URL.decode(challenge))
            bytes[bytes.count / 2] ^= 0x01
            let tampered = Base64URL.encode(bytes)
            await #expect(throws: ProofOfWorkError.malformedChallenge) {
                try await proofOfWork.redeem(challenge: tampered, nonce: Self.solve(tampered), projectID: "p1")
            }
            await #expect(throws: ProofOfWorkError.malformedChallenge) {
                try await proofOfWork.redeem(challenge: "not a challenge", nonce: "0", projectID: "p1")
            }

            let token = try await proofOfWork.redeem(challenge: challenge, nonce: Self.solve(challenge), projectID: "p1")
            var tokenBytes = try #require(Base64URL.decode(token.dropFirst("flint-pow.".count)))
            tokenBytes[tokenBytes.count - 1] ^= 0x80
            #expect(try await !proofOfWork.verifyToken("flint-pow." + Base64URL.encode(tokenBytes), projectID: "p1"))
            #expect(try await !proofOfWork.verifyToken("flint-pow.", projectID: "p1"))
            #expect(try await !proofOfWork.verifyToken(String(token.dropFirst("flint-pow.".count)), projectID: "p1"),
                    "without its prefix a token is not ours")
            // A challenge is not a token, even with the prefix: the two are sealed in different contexts.
            #expect(try await !proofOfWork.verifyToken("flint-pow." + challenge, projectID: "p1"))
            #expect(try await proofOfWork.verifyToken(token, projectID: "p1"), "the genuine token still works once")
        }
    }

    @Test func otherProjectsChallengesAndTokensAreRefused() async throws {
        try await withProofOfWork { proofOfWork, _ in
            let challenge = try proofOfWork.challenge(projectID: "p1", bits: Self.bits)
            let nonce = Self.solve(challenge)
            await #expect(throws: ProofOfWorkError.wrongProject) {
                try await proofOfWork.redeem(challenge: challenge, nonce: nonce, projectID: "p2")
            }
            let token = try await proofOfWork.redeem(challenge: challenge, nonce: nonce, projectID: "p1")
            #expect(try await !proofOfWork.verifyToken(token, projectID: "p2"))
            #expect(try await proofOfWork.verifyToken(token, projectID: "p1"))
        }
    }

    @Test func difficultyIsEnforcedAndClamped() async throws {
        try await withProofOfWork { proofOfWork, _ in
            // 12 bits: a nonce good for 6 bits is almost never good for 12.
            let hard = try proofOfWork.challenge(projectID: "p1", bits: 12)
            var weak = 0
            while true {
                let zeros = ProofOfWork.leadingZeroBits(of: hard, nonce: String(weak, radix: 36))
                if zeros >= 6, zeros < 12 { break }
                weak += 1
            }
            await #expect(throws: ProofOfWorkError.insufficientWork) {
                try await proofOfWork.redeem(challenge: hard, nonce: String(weak, radix: 36), projectID: "p1")
            }
            _ = try await proofOfWork.redeem(challenge: hard, nonce: Self.solve(hard, bits: 12), projectID: "p1")
            // Zero bits is raised to one: the nonce must still do some work.
            let easy = try proofOfWork.challenge(projectID: "p1", bits: 0)
            await #expect(throws: ProofOfWorkError.insufficientWork) {
                try await proofOfWork.redeem(challenge: easy, nonce: Self.wrongNonce(easy, bits: 1), projectID: "p1")
            }
        }
    }

    @Test func errorsMapToFirebaseCodes() {
        #expect(ProofOfWorkError.malformedChallenge.flintError.message.hasPrefix("INVALID_ARGUMENT"))
        #expect(ProofOfWorkError.invalidNonce.flintError.message.hasPrefix("INVALID_ARGUMENT"))
        for error in [ProofOfWorkError.wrongProject, .expired, .insufficientWork, .alreadyUsed] {
            #expect(error.flintError.message.hasPrefix("CAPTCHA_CHECK_FAILED"))
        }
    }
}
