import FlintWire
import Foundation

/// Sign in with Apple: the ID token is checked against Apple's keys, issuers, the project's bundle IDs
/// and Services ID, its expiry and the nonce (hex SHA-256 of the raw nonce the client sends; required,
/// so a captured token cannot be replayed from another session).
struct AppleSignIn: Sendable {
    let verifier: IdentityTokenVerifier
    let issuers: [String]

    func verify(_ assertion: IdpAssertion, configuration: ProjectSettings.IdentityProvider) async throws
        -> ProviderIdentity {
        guard let idToken = assertion.idToken else {
            throw FlintError(.invalidIDPResponse, "Sign in with Apple needs an id_token.")
        }
        let audiences = Set(configuration.bundleIDs + [configuration.clientID].compactMap { $0 })
        guard !audiences.isEmpty else {
            throw FlintError(.invalidProviderConfig, "apple.com has neither a Services ID nor bundle IDs configured.")
        }
        guard assertion.rawNonce != nil else { throw FlintError(.missingOrInvalidNonce) }
        let token: VerifiedIdentityToken
        do {
            token = try await verifier.verify(idToken, expectedIssuers: issuers, audiences: audiences,
                                              rawNonce: assertion.rawNonce, nonceRule: .sha256Hex)
        } catch {
            throw error.flintError
        }
        return Self.identity(subject: token.subject, claims: token.claims, email: token.email,
                             emailVerified: token.emailVerified ?? false, appleUser: assertion.appleUser)
    }

    /// Apple's claims plus the name from the `user` JSON the app got on the first authorization (Apple
    /// puts no name in the token and has no photo).
    static func identity(subject: String, claims: [String: JSONValue], email: String?, emailVerified: Bool,
                         appleUser: String?) -> ProviderIdentity {
        var identity = ProviderIdentity(providerID: ProviderID.apple, rawID: subject, email: email?.lowercased(),
                                        emailVerified: emailVerified)
        var rawUserInfo = claims
        if let appleUser, case .object(let user)? = try? JSONDecoder().decode(JSONValue.self, from: Data(appleUser.utf8)),
           case .object(let name)? = user["name"] {
            identity.firstName = name["firstName"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
            identity.lastName = name["lastName"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
            let middle = name["middleName"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
            let full = [identity.firstName, middle, identity.lastName].compactMap { $0 }.joined(separator: " ")
            identity.displayName = full.isEmpty ? nil : full
            rawUserInfo["name"] = .object(name)
        }
        identity.rawUserInfo = rawUserInfo
        return identity
    }
}
