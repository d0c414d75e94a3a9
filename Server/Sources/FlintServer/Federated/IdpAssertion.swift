import FlintWire
import Foundation

/// What a client asserts in `accounts:signInWithIdp`: the provider and its tokens. Like Firebase, the
/// fields of the form-encoded `postBody` are merged with those of `requestUri`'s query and fragment
/// (the body wins), so a redirect URL carrying `#id_token=…` works too.
struct IdpAssertion: Sendable, Equatable {
    /// Lowercased, e.g. `apple.com`.
    var providerID: String
    var idToken: String?
    var accessToken: String?
    /// The raw nonce whose SHA-256 the ID token must carry.
    var rawNonce: String?
    /// Apple's `user` JSON: the name (and email) the app received on the first authorization.
    var appleUser: String?
    /// A SAML provider's response (emulator mode reads it as JSON: `{assertion: {subject: {nameId}, …}}`).
    var samlResponse: String?

    /// Fields longer than this are refused before any parsing (ID tokens are a few kilobytes).
    static let maximumFieldLength = IdentityTokenVerifier.maximumLength

    /// The fields of `requestUri`'s query and fragment and of `postBody`, the body winning.
    static func fields(requestURI: String?, postBody: String?) throws -> [String: String] {
        guard let requestURI, !requestURI.isEmpty else { throw FlintError(.missingRequestURI) }
        guard let components = URLComponents(string: requestURI), let scheme = components.scheme, !scheme.isEmpty
        else { throw FlintError(.invalidRequestURI) }
        var fields: [String: String] = [:]
        for (name, value) in FormURLEncoding.decode(components.percentEncodedQuery ?? "")
            + FormURLEncoding.decode(components.percentEncodedFragment ?? "")
            + FormURLEncoding.decode(postBody ?? "") {
            fields[name] = value
        }
        // A SAML response is XML of up to 256 KiB (signed, perhaps encrypted): it has its own, larger bound.
        if fields.contains(where: { $0.value.utf8.count > ($0.key == "SAMLResponse" ? SAMLSignIn.maximumEncodedLength : maximumFieldLength) }) {
            throw FlintError(.invalidIDPResponse, "A credential field is too large.")
        }
        return fields
    }

    static func parse(requestURI: String?, postBody: String?) throws -> IdpAssertion {
        let fields = try fields(requestURI: requestURI, postBody: postBody)
        guard let providerID = fields["providerId"]?.lowercased(), !providerID.isEmpty else {
            throw FlintError(.invalidCredentialOrProviderID, "Invalid IdP response/credential: \(requestURI ?? "")")
        }
        func field(_ name: String) -> String? { fields[name].flatMap { $0.isEmpty ? nil : $0 } }
        let assertion = IdpAssertion(
            providerID: providerID, idToken: field("id_token"), accessToken: field("access_token"),
            rawNonce: field("nonce"), appleUser: field("user"), samlResponse: field("SAMLResponse"))
        guard assertion.idToken != nil || assertion.accessToken != nil else {
            throw FlintError(.invalidIDPResponse, "The credential carries neither an id_token nor an access_token.")
        }
        return assertion
    }
}
