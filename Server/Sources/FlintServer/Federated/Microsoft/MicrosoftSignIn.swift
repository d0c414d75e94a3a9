import FlintWire
import Foundation

/// Sign in with Microsoft (the Microsoft identity platform, v2.0: work, school and personal accounts) by its ID token,
/// from the app or from the redirect flow.
///
/// Every tenant signs with the same keys, but each names itself in the issuer (`…/{tid}/v2.0`): the token's `tid` is
/// read first and the whole token then checked with the issuer it implies, the project's client ID as audience, its
/// expiry and nonce. A flow started for one tenant (`tenant` custom parameter: a directory ID, `consumers` or
/// `organizations`) accepts only tokens of that tenant. The provider user ID is the account's object ID (`oid`).
/// Microsoft does not vouch for the `email` claim (a directory's admin can set any address), so it is stored
/// unverified unless the token says the domain's owner verified it (`xms_edov`). Access tokens alone are refused:
/// they are Microsoft Graph's to read, and no third party can check them.
struct MicrosoftSignIn: CodeFlowProvider {
    /// `https://login.microsoftonline.com`.
    let loginURL: String
    /// `https://login.microsoftonline.com/{tenantid}/v2.0`.
    let issuerTemplate: String
    let verifier: IdentityTokenVerifier

    /// The tenant of personal Microsoft accounts.
    static let consumersTenantID = "9188040d-6c67-4c5b-b112-36a304b66dad"

    func verify(_ assertion: IdpAssertion, configuration: ProjectSettings.IdentityProvider) async throws -> ProviderIdentity {
        guard let idToken = assertion.idToken else {
            throw FlintError(.invalidIDPResponse, "Sign-in with microsoft.com needs an id_token; an access token alone cannot be checked.")
        }
        return try await verify(idToken: idToken, rawNonce: assertion.rawNonce, tenant: nil, clientID: try Self.clientID(configuration))
    }

    private func verify(idToken: String, rawNonce: String?, tenant: String?, clientID: String) async throws -> ProviderIdentity {
        guard let jwt = CompactJWT(idToken), case .object(let unverified)? = try? JSONDecoder().decode(JSONValue.self, from: jwt.payload),
              let tenantID = unverified["tid"]?.stringValue?.lowercased(), Self.isDirectoryID(tenantID)
        else { throw FlintError(.invalidIDPResponse, "The Microsoft ID token names no tenant (tid).") }
        let token: VerifiedIdentityToken
        do {
            token = try await verifier.verify(
                idToken, expectedIssuers: [issuerTemplate.replacingOccurrences(of: "{tenantid}", with: tenantID)],
                audiences: [clientID], rawNonce: rawNonce, nonceRule: .plain)
        } catch {
            throw error.flintError
        }
        if let tenant, !Self.tenant(tenant, admits: tenantID) {
            throw FlintError(.invalidIDPResponse, "The Microsoft account is not of the tenant the sign-in was started for.")
        }
        let claims = token.claims
        let email = claims["email"]?.stringValue ?? claims["preferred_username"]?.stringValue.flatMap { $0.contains("@") ? $0 : nil }
        var identity = ProviderIdentity(providerID: ProviderID.microsoft, rawID: claims["oid"]?.stringValue ?? token.subject,
                                        email: email?.lowercased(),
                                        emailVerified: IdentityTokenVerifier.flag(claims["xms_edov"]) == true)
        identity.readProfile(fromClaims: claims)
        return identity
    }

    private static func clientID(_ configuration: ProjectSettings.IdentityProvider) throws -> String {
        guard let clientID = configuration.clientID, !clientID.isEmpty else {
            throw FlintError(.invalidProviderConfig, "microsoft.com has no application (client) ID configured.")
        }
        return clientID
    }

    /// A directory (tenant) ID: a GUID.
    static func isDirectoryID(_ text: String) -> Bool {
        text.utf8.count == 36 && text.unicodeScalars.enumerated().allSatisfy { index, scalar in
            [8, 13, 18, 23].contains(index) ? scalar == "-" : scalar.properties.isASCIIHexDigit
        }
    }

    /// Whether a flow started for `tenant` accepts a token of `tenantID`.
    private static func tenant(_ tenant: String, admits tenantID: String) -> Bool {
        switch tenant.lowercased() {
        case "common": true
        case "consumers": tenantID == consumersTenantID
        case "organizations": tenantID != consumersTenantID
        case let directory where isDirectoryID(directory): directory == tenantID
        default: true  // A domain name: the endpoint of that tenant issued the token.
        }
    }

    // MARK: The code flow

    let baseScopes = ["openid", "email", "profile"]
    let outsideService = OutsideService.microsoft

    func endpoints(_ configuration: ProjectSettings.IdentityProvider, providerID: String,
                   customParameters: [String: String]) async throws -> CodeFlowEndpoints {
        let tenant = customParameters["tenant"] ?? "common"
        // The tenant goes into the endpoints' path.
        guard (1...100).contains(tenant.utf8.count),
              tenant.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || $0.properties.numericType != nil
                  || $0 == "." || $0 == "-") })
        else { throw FlintError(.invalidArgument, "The Microsoft tenant is not a directory ID or domain name.") }
        let base = "\(loginURL)/\(tenant)/oauth2/v2.0"
        return CodeFlowEndpoints(authorization: base + "/authorize", token: base + "/token", tenant: tenant)
    }

    func identity(fromTokens tokens: [String: JSONValue], session: AuthorizationCodeFlow.Session,
                  configuration: ProjectSettings.IdentityProvider) async throws -> ProviderIdentity {
        guard let idToken = tokens["id_token"]?.stringValue else {
            throw FlintError(.invalidIDPResponse, "Microsoft did not exchange the code for an ID token.")
        }
        return try await verify(idToken: idToken, rawNonce: session.nonce, tenant: session.tenant,
                                clientID: try Self.clientID(configuration))
    }
}
