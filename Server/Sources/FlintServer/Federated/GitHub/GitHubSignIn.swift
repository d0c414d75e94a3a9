import FlintWire
import Foundation

/// Sign in with GitHub, an OAuth 2 provider without OpenID Connect: an identity is an access token for GitHub's API.
///
/// An access token from the app (`GitHubAuthProvider.credential(withToken:)`) is first checked with GitHub's
/// "check a token" call (`POST /applications/{client_id}/token`, authenticated with the client ID and secret), so
/// only tokens GitHub issued to the project's OAuth app sign in; one from the redirect flow came from GitHub's token
/// endpoint for that app already. The profile is `GET /user`; the email is the account's primary address from
/// `GET /user/emails` (the `user:email` scope), verified as GitHub says, else the public one from the profile,
/// unverified. The provider user ID is GitHub's numeric user ID.
struct GitHubSignIn: CodeFlowProvider {
    /// `https://github.com`.
    let webURL: String
    /// `https://api.github.com`.
    let apiURL: String
    let http: OutsideHTTP

    func verify(_ assertion: IdpAssertion, configuration: ProjectSettings.IdentityProvider, clientSecret: () throws -> String?)
        async throws -> ProviderIdentity {
        guard let accessToken = assertion.accessToken, assertion.idToken == nil else {
            throw FlintError(.invalidIDPResponse, "Sign-in with github.com needs an access_token.")
        }
        guard let clientID = configuration.clientID, !clientID.isEmpty, let secret = try clientSecret(), !secret.isEmpty else {
            throw FlintError(.invalidProviderConfig, "github.com needs its OAuth app's client ID and client secret.")
        }
        try await checkIssued(accessToken, to: clientID, secret: secret)
        return try await identity(accessToken: accessToken)
    }

    /// GitHub's "check a token": 200 when the token is live and the app's, 404 or 422 when not.
    private func checkIssued(_ accessToken: String, to clientID: String, secret: String) async throws {
        guard accessToken.utf8.count <= 1024 else { throw FlintError(.invalidIDPResponse) }
        let basic = Data("\(clientID):\(secret)".utf8).base64EncodedString()
        let body = try JSONEncoder().encode(["access_token": accessToken])
        let answer = try await http.providerSend(
            DeliveryHTTP.post(apiURL + "/applications/" + FormURLEncoding.escape(clientID) + "/token",
                              contentType: "application/json", body: body,
                              headers: [("authorization", "Basic \(basic)"), ("accept", "application/vnd.github+json")]),
            to: .github)
        switch answer.status {
        case 200: return
        case 401, 403:
            throw FlintError(.invalidProviderConfig, "GitHub refused the OAuth app's client ID or secret.")
                .withCause("GitHub check token: HTTP \(answer.status): \(answer.bodyText)")
        default:
            throw FlintError(.invalidIDPResponse, "GitHub did not vouch for the access token.")
                .withCause("GitHub check token: HTTP \(answer.status): \(answer.bodyText)")
        }
    }

    /// The GitHub account an access token acts for.
    private func identity(accessToken: String) async throws -> ProviderIdentity {
        let user = try await http.providerGET(apiURL + "/user", from: .github, bearer: accessToken)
        guard user.isSuccess, case .object(let profile)? = try? JSONDecoder().decode(JSONValue.self, from: user.body),
              let number = profile["id"]?.numberValue, let id = Int64(exactly: number), id > 0
        else {
            throw FlintError(.invalidIDPResponse, "GitHub did not return the token's user.")
                .withCause("GitHub user: HTTP \(user.status): \(user.bodyText)")
        }
        var identity = ProviderIdentity(providerID: ProviderID.gitHub, rawID: String(id))
        if let primary = try await primaryEmail(accessToken: accessToken) {
            identity.email = primary.email.lowercased()
            identity.emailVerified = primary.verified
        } else {
            identity.email = profile["email"]?.stringValue?.lowercased()
        }
        identity.displayName = profile["name"]?.stringValue
        identity.photoURL = profile["avatar_url"]?.stringValue
        identity.screenName = profile["login"]?.stringValue
        identity.rawUserInfo = profile
        return identity
    }

    /// The account's primary address, if the token may read the addresses.
    private func primaryEmail(accessToken: String) async throws -> (email: String, verified: Bool)? {
        let answer = try await http.providerGET(apiURL + "/user/emails", from: .github, bearer: accessToken)
        guard answer.isSuccess, case .array(let entries)? = try? JSONDecoder().decode(JSONValue.self, from: answer.body) else {
            return nil
        }
        for case .object(let entry) in entries where entry["primary"] == .bool(true) {
            if let email = entry["email"]?.stringValue { return (email, entry["verified"] == .bool(true)) }
        }
        return nil
    }

    // MARK: The code flow

    let baseScopes = ["user:email"]
    let sendsNonce = false
    let outsideService = OutsideService.github

    func endpoints(_ configuration: ProjectSettings.IdentityProvider, providerID: String,
                   customParameters: [String: String]) async throws -> CodeFlowEndpoints {
        CodeFlowEndpoints(authorization: webURL + "/login/oauth/authorize", token: webURL + "/login/oauth/access_token")
    }

    func identity(fromTokens tokens: [String: JSONValue], session: AuthorizationCodeFlow.Session,
                  configuration: ProjectSettings.IdentityProvider) async throws -> ProviderIdentity {
        guard let accessToken = tokens["access_token"]?.stringValue, !accessToken.isEmpty else {
            throw FlintError(.invalidIDPResponse, "GitHub did not exchange the code for an access token.")
        }
        return try await identity(accessToken: accessToken)
    }
}
