import FlintWire
import Foundation

/// Checks ID tokens or session cookies of one project (and, for a tenant's `AdminAuth`, one tenant), in the order
/// the Admin SDKs check them: not a custom token, the header (`kid`, `alg: RS256`), `aud`, `iss`, `sub`, the
/// signature, the times (`iat`, `auth_time`, `exp`), then the tenant. Against an emulator the header, signature and
/// times are not checked, as the Admin SDKs do there (its tokens are unsigned, `alg: none`).
struct TokenVerifier: Sendable {
    /// What is verified, which names its errors.
    enum Kind: Sendable {
        case idToken, sessionCookie

        var name: String { self == .idToken ? "ID token" : "session cookie" }
        var invalid: AdminError.Code { self == .idToken ? .invalidIDToken : .invalidSessionCookie }
        var expired: AdminError.Code { self == .idToken ? .idTokenExpired : .sessionCookieExpired }
        var revoked: AdminError.Code { self == .idToken ? .idTokenRevoked : .sessionCookieRevoked }
    }

    let kind: Kind
    let projectID: String
    let issuer: String
    let tenantID: String?
    let keys: PublicKeySet
    let isEmulator: Bool
    /// How far `iat` and `auth_time` may lie ahead and `exp` behind, for clocks that disagree (0 to 60 s).
    let clockSkew: Int64
    let now: @Sendable () -> Date

    /// The audience of custom tokens, which are sometimes passed where an ID token belongs.
    static let customTokenAudience = "https://identitytoolkit.googleapis.com/google.identity.identitytoolkit.v1.IdentityToolkit"

    func verify(_ token: String) async throws -> DecodedIDToken {
        guard !token.isEmpty else { throw refusal("the \(kind.name) is empty") }
        guard let jwt = JWT(token) else { throw refusal("the \(kind.name) is not a JWT (three base64url parts, JSON header and claims)") }
        let claims = jwt.claims
        if claims["aud"]?.stringValue == Self.customTokenAudience {
            throw refusal("a custom token was given where an \(kind.name) belongs; exchange it with a client SDK first")
        }
        // An OAuth access token of Flint's provider (RFC 9068) is never an ID token or a session cookie, whatever else
        // it claims: `verifyAccessToken` is for those.
        if let type = jwt.header.typ?.lowercased(), type == "at+jwt" || type == "application/at+jwt" {
            throw refusal("an OAuth access token was given where an \(kind.name) belongs; verify it with verifyAccessToken")
        }
        let keyID = isEmulator ? nil : try checkedKeyID(jwt)
        guard claims["aud"]?.stringValue == projectID else {
            throw refusal("the \(kind.name)'s audience is \(Self.show(claims["aud"])), not the project \(projectID)")
        }
        guard claims["iss"]?.stringValue == issuer else {
            throw refusal("the \(kind.name)'s issuer is \(Self.show(claims["iss"])), not \(issuer)")
        }
        guard let uid = claims["sub"]?.stringValue, !uid.isEmpty, uid.count <= 128 else {
            throw refusal("the \(kind.name)'s subject (sub) must be a string of 1 to 128 characters")
        }
        if let kid = keyID {
            guard let key = try await keys.key(id: kid) else {
                throw refusal("the \(kind.name) names the key \(kid), which is not among the published keys")
            }
            guard key.isValidSignature(jwt.signature, for: jwt.signingInput) else {
                throw refusal("the \(kind.name)'s signature is not valid")
            }
        }
        guard let issuedAt = Self.seconds(claims["iat"]), let expiresAt = Self.seconds(claims["exp"]),
              let authTime = Self.seconds(claims["auth_time"])
        else { throw refusal("the \(kind.name) lacks a numeric iat, exp or auth_time") }
        if !isEmulator { try checkTimes(issuedAt: issuedAt, expiresAt: expiresAt, authTime: authTime) }
        let decoded = DecodedIDToken(claims: claims, uid: uid, issuedAt: issuedAt, expiresAt: expiresAt, authTime: authTime)
        if let tenantID, decoded.tenantID != tenantID {
            throw AdminError(.tenantIDMismatch, "the \(kind.name) belongs to tenant \(decoded.tenantID ?? "(none)"), not \(tenantID)")
        }
        return decoded
    }

    /// Issued and signed in no later than now, and not expired (at `exp` it is), each give or take `clockSkew`.
    private func checkTimes(issuedAt: Int64, expiresAt: Int64, authTime: Int64) throws {
        let now = Int64(now().timeIntervalSince1970.rounded(.down))
        guard issuedAt <= now + clockSkew else { throw refusal("the \(kind.name) is issued in the future (iat \(issuedAt))") }
        guard authTime <= now + clockSkew else {
            throw refusal("the \(kind.name)'s sign-in lies in the future (auth_time \(authTime))")
        }
        guard expiresAt > now - clockSkew else {
            throw AdminError(kind.expired, "the \(kind.name) expired at \(expiresAt); get a fresh one from the client SDK")
        }
    }

    /// The key a signed token names, once its header is RS256 with a `kid`.
    private func checkedKeyID(_ jwt: JWT) throws -> String {
        guard let kid = jwt.header.kid else { throw refusal("the \(kind.name) has no kid") }
        guard jwt.header.alg == "RS256" else {
            throw refusal("the \(kind.name) is signed with \(jwt.header.alg ?? "no algorithm"), not RS256")
        }
        return kid
    }

    private func refusal(_ message: String) -> AdminError { AdminError(kind.invalid, message) }

    /// Whole seconds of a numeric claim.
    private static func seconds(_ claim: JSONValue?) -> Int64? {
        guard let number = claim?.numberValue, number.isFinite, abs(number) < 1e15 else { return nil }
        return Int64(number.rounded(.down))
    }

    private static func show(_ claim: JSONValue?) -> String {
        claim?.stringValue.map { "\"\($0)\"" } ?? "missing"
    }
}
