import FlintWire
import Foundation

/// Custom-token sign-in (`accounts:signInWithCustomToken`): a server of the app's mints a JWT for a uid
/// with the Admin SDK, signed with one of the project's service-account keys; the client exchanges it for
/// Flint tokens. The token's developer claims ride along in every ID token of the session. Emulator mode
/// accepts unsigned tokens (and `{"uid":…}` JSON), as the official emulator does. Like Firebase, custom
/// tokens skip the second factor: the minting server vouches for the user.
public struct CustomTokenService: Sendable {
    let accounts: AccountStore
    let pipeline: SignInPipeline
    let serviceAccounts: ServiceAccounts
    let clock: any FlintClock
    let policy: ModePolicy

    init(core: ServerCore, pipeline: SignInPipeline, serviceAccounts: ServiceAccounts) {
        accounts = core.store.accounts
        self.pipeline = pipeline
        self.serviceAccounts = serviceAccounts
        clock = core.clock
        policy = core.policy
    }

    /// What a custom token says: the user, the developer claims, and the tenant it is for (`tenant_id`).
    private struct Claims: Decodable {
        var aud: String?
        var uid: String?
        var claims: [String: JSONValue]?
        var tenantID: String?

        enum CodingKeys: String, CodingKey {
            case aud, uid, claims
            case tenantID = "tenant_id"
        }
    }

    public func signIn(_ request: SignInWithCustomTokenRequest, caller: Caller) async throws -> SignInResponse {
        guard let token = request.token, !token.isEmpty else { throw FlintError(.missingCustomToken) }
        guard token.utf8.count <= CompactJWT.maximumLength else { throw FlintError(.invalidCustomToken) }
        let claims = try await policy.verifiesCustomTokenSignatures ? verifiedClaims(token, caller: caller) : Self.unverifiedClaims(token)
        // A token minted for a tenant signs in to that tenant only (and one minted for none, to no tenant); the
        // emulator's plain-JSON tokens name no tenant and sign in anywhere.
        if !token.hasPrefix("{") || policy.verifiesCustomTokenSignatures, claims.tenantID != caller.project.realm.tenantID {
            throw FlintError(.tenantIDMismatch)
        }
        let (uid, developerClaims) = (claims.uid, claims.claims)
        guard let uid, !uid.isEmpty else { throw FlintError(.missingIdentifier) }
        guard uid.count <= 128 else {
            throw FlintError(.invalidCustomToken, "The uid must be a string of 1 to 128 characters.")
        }
        var sessionClaims: String?
        if let developerClaims, !developerClaims.isEmpty {
            let text = String(decoding: try JSONEncoder().encode(JSONValue.object(developerClaims)), as: UTF8.self)
            sessionClaims = try Validation.customClaims(text)
        }

        var attempt = SignInPipeline.Attempt(provider: ProviderID.custom)
        attempt.asksSecondFactor = false
        attempt.sessionClaims = sessionClaims
        var isNewUser = false
        let outcome: SignInPipeline.Outcome
        if try await accounts.user(projectID: caller.projectID, localID: uid) != nil {
            outcome = try await pipeline.signIn(uid, projectID: caller.projectID, attempt)
        } else {
            do {
                outcome = try await pipeline.signIn(
                    creating: UserAccount(projectID: caller.projectID, localID: uid, createdAt: clock.milliseconds), attempt)
                isNewUser = true
            } catch let error as FlintError where error.is(.duplicateLocalID) {
                // Another request created the user a moment ago: sign in as that user.
                outcome = try await pipeline.signIn(uid, projectID: caller.projectID, attempt)
            }
        }
        let (user, issued) = (outcome.user, try outcome.tokens())
        return SignInResponse(kind: "identitytoolkit#VerifyCustomTokenResponse", localId: user.localID,
                              idToken: issued.idToken, refreshToken: issued.refreshToken, expiresIn: issued.expiresIn,
                              isNewUser: isNewUser)
    }

    /// Production: signed by an active key of this project's service accounts, for Firebase's audience.
    private func verifiedClaims(_ token: String, caller: Caller) async throws -> Claims {
        guard let (account, assertion) = try await serviceAccounts.verify(
            token, audiences: [ServiceAccounts.customTokenAudience])
        else { throw FlintError(.invalidCustomToken) }
        guard account.projectID == caller.project.realm.projectID else { throw FlintError(.credentialMismatch) }
        return Claims(aud: assertion.aud, uid: assertion.uid, claims: assertion.claims, tenantID: assertion.tenantID)
    }

    /// Emulator mode: any JWT (signature unchecked) for Firebase's audience, or a JSON object.
    private static func unverifiedClaims(_ token: String) throws -> Claims {
        let payload = token.hasPrefix("{") ? Data(token.utf8) : CompactJWT(token)?.payload
        guard let payload, let claims = try? JSONDecoder().decode(Claims.self, from: payload) else {
            throw FlintError(.invalidCustomToken)
        }
        if !token.hasPrefix("{"), claims.aud != ServiceAccounts.customTokenAudience {
            throw FlintError(.invalidCustomToken, "The custom token's audience is not Firebase's.")
        }
        return claims
    }
}

extension CustomTokenService {
    var endpoints: [Endpoint] {
        [
            .json(Endpoint.accountPaths("signInWithCustomToken", legacy: "verifyCustomToken")) {
                (body: SignInWithCustomTokenRequest, caller) in try await signIn(body, caller: caller)
            },
        ]
    }
}
