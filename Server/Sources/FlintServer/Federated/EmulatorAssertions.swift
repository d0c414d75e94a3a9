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
        if assertion.providerID == ProviderID.google {
            identity.readGoogleProfile(fromClaims: claims, defaultLocale: "en")   // the emulator's locale
        } else {
            identity.readProfile(fromClaims: claims)
        }
        // A SAML provider vouches for the address it names.
        if identity.providerID.hasPrefix("saml.") { identity.emailVerified = true }
        if let saml = assertion.samlResponse { try readSAML(saml, into: &identity) }
        return identity
    }

    /// A SAML response, as the official emulator takes it: JSON with `assertion.subject.nameId`. For a
    /// SAML provider (`saml.*`) the name id is the email when it is one, and the attribute statements are
    /// the raw user info.
    private static func readSAML(_ text: String, into identity: inout ProviderIdentity) throws {
        guard case .object(let response)? = try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)) else {
            throw FlintError(.invalidIDPResponse, "SAMLResponse is not a JSON object.")
        }
        guard case .object(let samlAssertion)? = response["assertion"] else {
            throw FlintError(.invalidIDPResponse, "SAMLResponse has no assertion.")
        }
        guard case .object(let subject)? = samlAssertion["subject"] else {
            throw FlintError(.invalidIDPResponse, "SAMLResponse has no assertion.subject.")
        }
        guard let nameID = subject["nameId"]?.stringValue, !nameID.isEmpty else {
            throw FlintError(.invalidIDPResponse, "SAMLResponse has no assertion.subject.nameId.")
        }
        guard identity.providerID.hasPrefix("saml.") else { return }
        if let email = try? Validation.email(nameID) { identity.email = email }
        if case .object(let attributes)? = samlAssertion["attributeStatements"] { identity.rawUserInfo = attributes }
    }

    /// A JSON object string, or the payload of anything shaped like a JWT. Only the payload is read: a
    /// production token pasted into a test (its signature zeroed, say) parses as the emulator's does.
    private static func claims(_ token: String) -> [String: JSONValue]? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        let data = token.hasPrefix("{") ? Data(token.utf8)
            : parts.count == 3 && !parts[0].isEmpty ? Base64URL.decode(parts[1]) : nil
        guard let data, case .object(let object)? = try? JSONDecoder().decode(JSONValue.self, from: data) else { return nil }
        return object
    }
}
