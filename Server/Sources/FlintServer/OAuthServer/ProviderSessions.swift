import Crypto
import FlintWire
import Foundation
import Hummingbird

/// The provider's browser sessions: once a user has signed in through the sign-in page, a cookie lets the
/// authorization endpoint serve further clients of the same realm without another sign-in (single sign-on), and
/// answer `prompt=none`. The cookie is HttpOnly, SameSite=Lax (it must come along on the top-level redirects of
/// relying parties), Secure on https, and named per realm, so a project's and each tenant's sessions are apart. Its
/// value is 256 random bits; the store keeps their SHA-256 with the session's public ID (`sid`).
struct ProviderSessions: Sendable {
    let store: OAuthStore
    /// A session counts only while its user may sign in (see `session(in:realm:)`).
    let accounts: AccountStore
    let clock: any FlintClock
    let random: any RandomSource
    let secure: @Sendable () -> Bool

    /// How long a session lasts without a new sign-in.
    static let lifetime: Int64 = 14 * 86_400

    /// How the user signed in, as the session keeps it.
    struct SignIn: Codable, Sendable, Equatable {
        var authTime: Int64
        var amr: [String]
        var acr: String
    }

    /// A live session.
    struct Session: Sendable {
        let sid: String
        let realm: String
        let localID: String
        let signIn: SignIn
    }

    /// The cookie of `realm`'s sessions.
    static func cookieName(realm: String) -> String {
        "flint_op_" + Hex.sha256(realm).prefix(12)
    }

    /// The live session of `realm` the request's cookie stands for: not expired, and its user neither disabled nor
    /// signed out everywhere since it began (`revokeRefreshTokens` ends provider sessions too; deleting the user
    /// deletes them).
    func session(in request: Request, realm: String) async throws -> Session? {
        guard let value = request.cookies[Self.cookieName(realm: realm)]?.value, (1...128).contains(value.utf8.count),
              let row = try await store.providerSession(cookieHash: Hex.sha256(value), liveAt: clock.seconds), row.realm == realm,
              let signIn = try? JSONBody.decoder.decode(SignIn.self, from: Data(row.signIn.utf8)),
              let user = try await accounts.user(projectID: realm, localID: row.localID), !user.disabled,
              row.createdAt >= user.validSince
        else { return nil }
        return Session(sid: row.sid, realm: row.realm, localID: row.localID, signIn: signIn)
    }

    /// Begins a session for a user who just signed in; returns it and the cookie that carries it.
    func begin(realm: String, localID: String, signIn: SignIn) async throws -> (Session, Cookie) {
        let value = random.token(byteCount: 32)
        let sid = random.token(byteCount: 16)
        let now = clock.seconds
        try await store.insertProviderSession(cookieHash: Hex.sha256(value), ProviderSessionRow(
            sid: sid, realm: realm, localID: localID,
            signIn: String(decoding: try JSONBody.encoder.encode(signIn), as: UTF8.self), createdAt: now,
            expiresAt: now + Self.lifetime))
        return (Session(sid: sid, realm: realm, localID: localID, signIn: signIn),
                cookie(realm: realm, value: value, maxAge: Int(Self.lifetime)))
    }

    /// Ends the request's session of `realm` (and the one `sid` names, a logout's `id_token_hint`); returns the cookie
    /// that clears it in the browser.
    func end(in request: Request, realm: String, sid: String?) async throws -> Cookie {
        if let value = request.cookies[Self.cookieName(realm: realm)]?.value, (1...128).contains(value.utf8.count) {
            try await store.endProviderSession(cookieHash: Hex.sha256(value))
        }
        if let sid { try await store.endProviderSession(sid: sid) }
        return cookie(realm: realm, value: "", maxAge: 0)
    }

    private func cookie(realm: String, value: String, maxAge: Int) -> Cookie {
        Cookie(name: Self.cookieName(realm: realm), value: value, maxAge: maxAge, path: "/", secure: secure(),
               httpOnly: true, sameSite: .lax)
    }

    /// RFC 8176's methods for a Firebase sign-in: its first factor (`sign_in_provider`) and its second, if any.
    static func methods(signInProvider: String, secondFactor: String?) -> [String] {
        var methods: [String]
        switch signInProvider {
        case ProviderID.password: methods = ["pwd"]
        case ProviderID.phone: methods = ["sms"]
        case ProviderID.passkey: methods = ["hwk", "user"]
        case ProviderID.custom: methods = ["ext"]
        default: methods = ["fed"]
        }
        if let secondFactor {
            methods.append(secondFactor == "totp" ? "otp" : "sms")
            methods.append("mfa")
        }
        return methods
    }
}
