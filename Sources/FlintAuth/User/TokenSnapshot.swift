import FlintWire
import Foundation

/// A user's tokens: the ID (access) token, the refresh token and when the ID token expires.
struct TokenSnapshot: Codable, Sendable, Equatable {
    /// Tokens with less than this much validity left are refreshed before use (FirebaseAuth: 5 minutes).
    static let refreshMargin: TimeInterval = 5 * 60

    var accessToken: String
    var refreshToken: String
    /// `now + expiresIn` when the token was received; nil (unknown) means "refresh before use".
    var expirationDate: Date?

    /// Tokens from an answer that carries them. `expiresIn` is seconds as a string, as on the wire.
    init(accessToken: String?, refreshToken: String?, expiresIn: String?, now: Date = Date()) throws {
        guard let accessToken, !accessToken.isEmpty, let refreshToken, !refreshToken.isEmpty else {
            throw AuthErrorUtils.internalError(response: "The server's answer carries no ID token or refresh token")
        }
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.expirationDate = expiresIn.flatMap(TimeInterval.init).map { now.addingTimeInterval($0) }
    }

    /// The tokens of a sign-in, sign-up or link answer.
    init(_ response: SignInResponse) throws {
        try self.init(accessToken: response.idToken, refreshToken: response.refreshToken, expiresIn: response.expiresIn)
    }

    /// The tokens of an `accounts:update` answer, if it carries new ones (password and email changes do).
    init?(_ response: UpdateAccountResponse) {
        try? self.init(accessToken: response.idToken, refreshToken: response.refreshToken, expiresIn: response.expiresIn)
    }

    /// The tokens of a multi-factor answer, which has no `expiresIn`: the ID token's `exp` says when it expires.
    init(_ response: MFATokensResponse) throws {
        try self.init(accessToken: response.idToken, refreshToken: response.refreshToken, expiresIn: nil)
        expirationDate = (try? AuthTokenResult(token: accessToken))?.expirationDate
    }

    /// The tokens of a passkey answer; without `expiresIn`, the ID token's `exp` says when it expires.
    init(_ response: PasskeyFinalizeResponse) throws {
        try self.init(accessToken: response.idToken, refreshToken: response.refreshToken, expiresIn: response.expiresIn)
        if expirationDate == nil {
            expirationDate = (try? AuthTokenResult(token: accessToken))?.expirationDate
        }
    }

    /// The tokens of a Secure Token answer; a missing refresh token keeps `previousRefreshToken`.
    init(_ response: SecureTokenResponse, previousRefreshToken: String) throws {
        let refreshToken = response.refreshToken.isEmpty ? previousRefreshToken : response.refreshToken
        try self.init(accessToken: response.accessToken, refreshToken: refreshToken, expiresIn: response.expiresIn)
    }

    /// The ID token if it stays valid for more than `refreshMargin` after `now`.
    func freshAccessToken(at now: Date = Date()) -> String? {
        guard let expirationDate, expirationDate.timeIntervalSince(now) > Self.refreshMargin else { return nil }
        return accessToken
    }
}
