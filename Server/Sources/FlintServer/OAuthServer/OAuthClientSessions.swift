import FlintWire
import Foundation

/// The OpenID provider's sessions: each token family a client holds for the user (what one authorization or device
/// grant issued, renewed by its refresh tokens) is a session of the user's, named by its `clientId`. Ending it revokes
/// the family: its refresh tokens are refused and its access tokens fail introspection and `userinfo`. A family has no
/// client address or user agent of its own: its token requests come from the client, not from the user's device.
struct OAuthClientSessions: ExternalSessions {
    let store: OAuthStore
    let clock: any FlintClock

    /// A family without a refresh token holds while its access token may: for their lifetime after it was issued.
    private var accessTokensSince: Int64 { clock.seconds - OAuthTokens.lifetime }

    func sessions(realm: String, localID: String) async throws -> [UserSession] {
        let tenant = Realm(key: realm).tenantID
        return try await store.liveFamilies(realm: realm, localID: localID, accessTokensSince: accessTokensSince).map { live in
            let grant = try? JSONDecoder().decode(ProviderGrant.self, from: Data(live.family.grant.utf8))
            let (provider, secondFactor) = Self.signIn(amr: grant?.amr ?? [])
            return UserSession(
                sessionId: live.family.familyID, signInProvider: provider, secondFactor: secondFactor,
                createTime: UserSession.time(live.family.createdAt), lastRefreshTime: UserSession.time(live.lastUsedAt),
                tenantId: tenant, clientId: live.family.clientID)
        }
    }

    func end(realm: String, localID: String, _ selection: SessionSelection) async throws -> [String] {
        try await store.revokeFamilies(realm: realm, localID: localID, selection, accessTokensSince: accessTokensSince,
                                       at: clock.seconds)
    }

    /// The sign-in a grant's RFC 8176 methods tell (`ProviderSessions.methods` made them): its first factor as a
    /// session names it (a federated one as `federated`: the methods do not say which provider), and its second.
    static func signIn(amr: [String]) -> (provider: String, secondFactor: String?) {
        let provider = switch amr.first {
        case "pwd": ProviderID.password
        case "sms": ProviderID.phone
        case "hwk": ProviderID.passkey
        case "ext": ProviderID.custom
        default: "federated"
        }
        guard amr.contains("mfa") else { return (provider, nil) }
        return (provider, amr.dropFirst().contains("otp") ? "totp" : "phone")
    }
}
