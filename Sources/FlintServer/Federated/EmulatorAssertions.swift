import FlintWire
import Foundation

/// Emulator mode reads provider tokens the way the Firebase Auth emulator does, making no outside call:
/// the claims of the `id_token` (else the `access_token`) are taken from a JSON object string or from a
/// JWT whose signature, issuer, audience, expiry and nonce are not checked. `sub` is required.
enum EmulatorAssertions {
    static func identity(_ assertion: IdpAssertion) throws -> ProviderIdentity {
        let claims: [String: JSONValue]
        if let idToken = assertion.idToken {
            guard let parsed = Self.claims(idToken) else {
                throw FlintError(.invalidIDPResponse, "Unable to parse id_token: \(idToken.prefix(64)) as JWT or JSON.")
            }
            claims = parsed
        } else if let accessToken = assertion.accessToken, let parsed = Self.claims(accessToken) {
            claims = parsed
        } else {
            // The official emulator's answer for opaque access tokens (e.g. classic Facebook Login).
            let detail = [ProviderID.apple, ProviderID.google].contains(assertion.providerID)
                ? "The Auth Emulator only support sign-in with \(assertion.providerID) using id_token, not access_token."
                : "The Auth Emulator does not support \(assertion.providerID) sign-in with credentials."
            throw FlintError(.notImplemented, detail, status: .notImplemented)
        }
        guard case .string(let subject)? = claims["sub"], !subject.isEmpty else {
            throw FlintError(.invalidIDPResponse, "Invalid IdP response: the token has no string sub claim.")
        }
        if assertion.providerID == ProviderID.apple {
            return AppleSignIn.identity(subject: subject, claims: claims, email: claims["email"]?.stringValue,
                                        emailVerified: IdentityTokenVerifier.flag(claims["email_verified"]) == true, appleUser: assertion.appleUser)
        }
        var identity = ProviderIdentity(providerID: assertion.providerID, rawID: subject,
                                        email: claims["email"]?.stringValue?.lowercased(),
                                        emailVerified: IdentityTokenVerifier.flag(claims["email_verified"]) == true)
        identity.readProfile(fromClaims: claims)
        return identity
    }

    /// A JSON object string, or the payload of anything shaped like a JWT.
    private static func claims(_ token: String) -> [String: JSONValue]? {
        let data = token.hasPrefix("{") ? Data(token.utf8) : CompactJWT(token)?.payload
        guard let data, case .object(let object)? = try? JSONDecoder().decode(JSONValue.self, from: data) else { return nil }
        return object
    }
}
