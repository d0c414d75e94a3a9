import Crypto
import FlintWire
import Foundation

/// Flint's own captcha: a proof of work, with no third party. The hosted page at `/__/auth/handler` gets
/// a sealed challenge, finds a nonce such that SHA-256(`challenge` + ":" + `nonce`) starts with the
/// challenge's number of zero bits, and trades it for a token the app sends as `recaptchaToken`.
///
/// Challenges and tokens are sealed with the master key (so neither can be forged, altered or moved to
/// another project), expire after ten minutes, and are used once: their ids are counted in the shared
/// store, so a second use fails on every node. Each marker's window is its expiry, so the janitor's
/// sweep of old windows removes it only once it is useless.
public struct ProofOfWork: Sendable {
    private let secrets: SecretBox
    private let counters: CounterStore
    private let clock: any FlintClock
    private let random: any RandomSource

    /// How long a challenge may be worked on, and how long a token waits for `sendVerificationCode`.
    public static let lifetimeSeconds: Int64 = 600
    /// The difficulties a challenge may carry (each bit doubles the expected work).
    public static let difficultyRange = 1...32
    /// What tells a proof-of-work token from a reCAPTCHA token.
    public static let tokenPrefix = "flint-pow."
    /// Longer nonces are refused unread (the page's nonces are a few base-36 digits).
    static let maximumNonceLength = 64
    /// Longer challenges and tokens cannot be ours and are refused before opening.
    static let maximumSealedLength = 1024

    public init(secrets: SecretBox, counters: CounterStore, clock: any FlintClock, random: any RandomSource) {
        self.secrets = secrets
        self.counters = counters
        self.clock = clock
        self.random = random
    }

    init(core: ServerCore) {
        self.init(secrets: core.secrets, counters: core.store.counters, clock: core.clock, random: core.random)
    }

    private struct Content: Codable {
        var id: String
        var projectID: String
        /// Zero for tokens.
        var bits: Int
        var expiresAt: Int64
    }

    /// A new challenge for `projectID` needing `bits` leading zero bits (clamped to `difficultyRange`).
    /// The random id inside is also the seed the work is done on.
    public func challenge(projectID: String, bits: Int) throws -> String {
        let bits = min(max(bits, Self.difficultyRange.lowerBound), Self.difficultyRange.upperBound)
        let content = Content(id: random.token(byteCount: 16), projectID: projectID, bits: bits,
                              expiresAt: clock.seconds + Self.lifetimeSeconds)
        return try seal(content, context: Self.challengeContext)
    }

    /// Checks the work done on `challenge`, uses the challenge up and returns a token (`flint-pow.…`)
    /// for one `sendVerificationCode` within ten minutes. Throws `ProofOfWorkError`.
    public func redeem(challenge: String, nonce: String, projectID: String) async throws -> String {
        guard !nonce.isEmpty, nonce.utf8.count <= Self.maximumNonceLength else { throw ProofOfWorkError.invalidNonce }
        guard let content = open(challenge, context: Self.challengeContext) else { throw ProofOfWorkError.malformedChallenge }
        guard content.projectID == projectID else { throw ProofOfWorkError.wrongProject }
        guard content.expiresAt > clock.seconds else { throw ProofOfWorkError.expired }
        guard Self.leadingZeroBits(of: challenge, nonce: nonce) >= content.bits else {
            throw ProofOfWorkError.insufficientWork
        }
        let uses = try await counters.incrementCounter("pow-challenge:\(content.id)", windowStart: content.expiresAt)
        guard uses == 1 else { throw ProofOfWorkError.alreadyUsed }
        let token = Content(id: content.id, projectID: projectID, bits: 0, expiresAt: clock.seconds + Self.lifetimeSeconds)
        return Self.tokenPrefix + (try seal(token, context: Self.tokenContext))
    }

    /// Whether `token` is one of ours rather than a reCAPTCHA token (it may still be invalid).
    public static func isProofOfWorkToken(_ token: String) -> Bool {
        token.hasPrefix(tokenPrefix)
    }

    /// Checks and uses up a token: true once for a genuine, unexpired token of `projectID`, false
    /// otherwise (including every later use). Throws only when the store fails.
    public func verifyToken(_ token: String, projectID: String) async throws -> Bool {
        guard Self.isProofOfWorkToken(token),
              let content = open(String(token.dropFirst(Self.tokenPrefix.count)), context: Self.tokenContext),
              content.projectID == projectID, content.expiresAt > clock.seconds
        else { return false }
        return try await counters.incrementCounter("pow-token:\(content.id)", windowStart: content.expiresAt) == 1
    }

    /// The number of leading zero bits of SHA-256(`challenge` + ":" + `nonce`).
    static func leadingZeroBits(of challenge: String, nonce: String) -> Int {
        let digest = SHA256.hash(data: Data((challenge + ":" + nonce).utf8))
        var count = 0
        for byte in digest {
            if byte == 0 {
                count += 8
            } else {
                count += byte.leadingZeroBitCount
                break
            }
        }
        return count
    }

    private func seal(_ content: Content, context: String) throws -> String {
        try secrets.sealToken(content, context: context)
    }

    private func open(_ text: String, context: String) -> Content? {
        guard text.utf8.count <= Self.maximumSealedLength else { return nil }
        return secrets.openToken(text, as: Content.self, context: context)
    }

    private static let challengeContext = "pow-challenge"
    private static let tokenContext = "pow-token"
}

/// Why a proof of work was refused.
public enum ProofOfWorkError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Missing, too long, or not a string the page could have sent.
    case invalidNonce
    /// Not a challenge of this server (altered, truncated or made up).
    case malformedChallenge
    /// A challenge issued for another project.
    case wrongProject
    case expired
    /// The hash has fewer leading zero bits than the challenge asks for.
    case insufficientWork
    /// The challenge was already traded for a token.
    case alreadyUsed

    public var description: String {
        switch self {
        case .invalidNonce: "the nonce is missing or too long"
        case .malformedChallenge: "the challenge is not valid"
        case .wrongProject: "the challenge belongs to another project"
        case .expired: "the challenge has expired"
        case .insufficientWork: "the proof of work does not meet the challenge's difficulty"
        case .alreadyUsed: "the challenge has already been used"
        }
    }

    /// What a client sees: bad input is `INVALID_ARGUMENT`, a failed check `CAPTCHA_CHECK_FAILED`.
    public var flintError: FlintError {
        switch self {
        case .invalidNonce, .malformedChallenge: FlintError(.invalidArgument, description)
        case .wrongProject, .expired, .insufficientWork, .alreadyUsed: FlintError(.captchaCheckFailed, description)
        }
    }
}
