import Foundation
import Hummingbird

/// What every POST endpoint decodes with JSONDecoder: about 300 bytes, the size of a sign-up or sign-in request
/// (Benchmarks/floor/run.sh sends it). `/verify`'s body carries a token in `idToken` as well.
struct FloorRequest: Decodable {
    let email: String
    let password: String
    let displayName: String
    let photoUrl: String
    let tenantId: String
    let returnSecureToken: Bool
    let clientType: String
    let captchaResponse: String
    let idToken: String?
}

/// What every POST endpoint encodes with JSONEncoder: about 600 bytes without `idToken`, the size of a sign-up or
/// lookup answer; `/sign` and the store endpoints add the token they signed.
struct FloorResponse: ResponseEncodable {
    /// One of the account's providers, as Firebase lists them.
    struct ProviderInfo: Encodable {
        let providerId: String
        let federatedId: String
        let email: String
        let rawId: String
    }

    let kind = "identitytoolkit#SignupNewUserResponse"
    let localId: String
    let email: String
    let displayName: String
    let photoUrl: String
    let tenantId: String
    let emailVerified = false
    let createdAt: String
    let lastLoginAt: String
    let passwordUpdatedAt: Int
    let validSince: String
    let providerUserInfo: [ProviderInfo]
    let refreshToken: String
    let expiresIn = "3600"
    let idToken: String?

    init(for request: FloorRequest, localId: String, now: Date, idToken: String? = nil) {
        let milliseconds = Int(now.timeIntervalSince1970 * 1000)
        self.localId = localId
        email = request.email
        displayName = request.displayName
        photoUrl = request.photoUrl
        tenantId = request.tenantId
        createdAt = String(milliseconds)
        lastLoginAt = String(milliseconds)
        passwordUpdatedAt = milliseconds
        validSince = String(milliseconds / 1000)
        providerUserInfo = [ProviderInfo(
            providerId: "password", federatedId: request.email, email: request.email, rawId: request.email)]
        refreshToken = "AMf-floor-refresh-" + localId
        self.idToken = idToken
    }
}
