import Crypto
import Foundation
import NIOConcurrencyHelpers

/// The provider authentication token of token-based APNs: an ES256 JWT with header `{alg, kid}` and claims
/// `{iss: team ID, iat}`, signed with the team's .p8 key. Apple rejects tokens older than an hour and
/// refuses (`TooManyProviderTokenUpdates`) tokens refreshed more often than about every 20 minutes, so one
/// token is reused for `lifetime` (50 minutes) by the injected clock.
final class APNsProviderToken: Sendable {
    /// How long one token is reused.
    static let lifetime: TimeInterval = 50 * 60

    private let teamID: String
    private let keyID: String
    private let key: P256.Signing.PrivateKey
    private let clock: any FlintClock
    private let cached = NIOLockedValueBox<(token: String, issuedAt: Date)?>(nil)

    /// Throws if `privateKeyPEM` is not a P-256 private key (PKCS#8 as Apple's .p8 files, or SEC1).
    init(teamID: String, keyID: String, privateKeyPEM: String, clock: any FlintClock) throws {
        do {
            key = try P256.Signing.PrivateKey(pemRepresentation: privateKeyPEM)
        } catch {
            throw DeliveryConfigurationError.invalid(setting: "APNs private key", reason: "not a P-256 private key in PEM (\(error))")
        }
        self.teamID = teamID
        self.keyID = keyID
        self.clock = clock
    }

    /// The current token, signing a new one when the cached one is `lifetime` old (or from the future:
    /// the clock was set back).
    func current() throws -> String {
        let now = clock.now()
        return try cached.withLockedValue { cached in
            if let cached, now >= cached.issuedAt, now.timeIntervalSince(cached.issuedAt) < Self.lifetime {
                return cached.token
            }
            let token = try sign(issuedAt: now)
            cached = (token, now)
            return token
        }
    }

    /// Forgets the cached token (after Apple called it expired), so the next push signs a new one.
    func invalidate(_ token: String) {
        cached.withLockedValue { if $0?.token == token { $0 = nil } }
    }

    private struct Claims: Encodable {
        var iss: String
        var iat: Int64
    }

    private func sign(issuedAt: Date) throws -> String {
        try ES256.sign(kid: keyID, claims: Claims(iss: teamID, iat: Int64(issuedAt.timeIntervalSince1970)), key: key)
    }
}
