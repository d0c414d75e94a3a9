import FlintWire
import Foundation

extension AdminError.Code {
    /// No client of the project's (or tenant's) OpenID provider has this ID: Flint's `OAUTH_CLIENT_NOT_FOUND`.
    public static let oauthClientNotFound = AdminError.Code(rawValue: "auth/oauth-client-not-found")
    /// Client settings the provider cannot serve (a redirect URI, scope or grant type it does not take, a change of
    /// type, a secret for a client that has none): Flint's `INVALID_OAUTH_CLIENT`.
    public static let invalidOAuthClient = AdminError.Code(rawValue: "auth/invalid-oauth-client")
    /// An `authorization_id` that names no authorization in progress (unknown, expired, ended, or another project's):
    /// Flint's `INVALID_AUTHORIZATION_ID`.
    public static let invalidAuthorizationID = AdminError.Code(rawValue: "auth/invalid-authorization-id")
}

/// Flint's OpenID provider: the clients it serves (`v2/projects/{p}[/tenants/{t}]/oauthClients`, a Flint extension in
/// the v2 style), and the server side of the team's own sign-in page (`v2/oauth/authorizations:get|approve|deny`).
/// A client of a tenant's `AdminAuth` is the tenant's.
extension AdminAuth {
    // MARK: Clients

    /// A new client. The answer carries its `clientId` and, for a confidential client without a JWKS URI, its
    /// `clientSecret`: the only time the secret is shown (`rotateOAuthClientSecret` makes another).
    public func createOAuthClient(_ client: OAuthClient) async throws -> OAuthClient {
        try await oauthCall { try await connection.call("POST", oauthClientsPath, body: client, as: OAuthClient.self) }
    }

    /// The client `clientID` (without its secret); `oauthClientNotFound` if the project (or tenant) has none.
    public func oauthClient(_ clientID: String) async throws -> OAuthClient {
        let path = try oauthClientPath(clientID)
        return try await oauthCall { try await connection.call("GET", path, as: OAuthClient.self) }
    }

    /// Changes the fields `change` sets (and, with `updateMask`, exactly those it names: a named field `change`
    /// leaves nil is cleared). A client's `type` is fixed at creation.
    public func updateOAuthClient(_ clientID: String, _ change: OAuthClient, updateMask: [String]? = nil) async throws -> OAuthClient {
        let path = try oauthClientPath(clientID) + Self.query(updateMask: updateMask ?? change.setFields)
        return try await oauthCall { try await connection.call("PATCH", path, body: change, as: OAuthClient.self) }
    }

    /// Deletes the client; the codes, tokens and grants it was given stop working.
    public func deleteOAuthClient(_ clientID: String) async throws {
        let path = try oauthClientPath(clientID)
        _ = try await oauthCall { try await connection.call("DELETE", path, as: JSONValue.self) }
    }

    /// A new secret for a confidential client without a JWKS URI, in the answer's `clientSecret` (shown this once);
    /// the old one stops working at once. Any other client is `invalidOAuthClient`.
    public func rotateOAuthClientSecret(_ clientID: String) async throws -> OAuthClient {
        let path = try oauthClientPath(clientID) + ":rotateSecret"
        return try await oauthCall {
            try await connection.call("POST", path, body: RotateOAuthClientSecretRequest(), as: OAuthClient.self)
        }
    }

    /// The clients in pages of up to `pageSize` (1 to 100; out of range is `invalidArgument`, thrown by the first
    /// page before anything is sent), without their secrets.
    public func listOAuthClients(pageSize: Int = AdminAuth.maximumOAuthClientPage) -> Pages<OAuthClient> {
        Pages { pageToken in
            try Check.pageSize(pageSize, atMost: Self.maximumOAuthClientPage)
            let query = Self.pageQuery(pageSize: pageSize, pageToken: pageToken)
            let page = try await self.oauthCall {
                try await self.connection.call("GET", self.oauthClientsPath + query, as: ListOAuthClientsResponse.self)
            }
            return (page.oauthClients, page.nextPageToken)
        }
    }

    /// The largest page of clients the server gives.
    public static let maximumOAuthClientPage = 100

    // MARK: The team's own sign-in page

    /// What the authorization `authorizationID` asks (the `authorization_id` Flint sent the browser to the team's
    /// sign-in page with): the client, its owner and logo, the scopes, the account hinted at. For the server side of
    /// the team's own sign-in page of Flint's OpenID provider.
    ///
    /// These calls name no project in their path: the server acts on the credential's own project (a service
    /// account's), and on this client's tenant, which the body names. An authorization of another project or tenant,
    /// or one unknown, expired or already ended, is `invalidAuthorizationID`.
    public func oauthAuthorization(_ authorizationID: String) async throws -> OAuthAuthorizationDetails {
        try Self.checkAuthorizationID(authorizationID)
        let request = OAuthAuthorizationLookupRequest(authorizationId: authorizationID, tenantId: tenantID)
        return try await oauthCall {
            try await connection.call("POST", "/v2/oauth/authorizations:get", body: request, as: OAuthAuthorizationDetails.self)
        }
    }

    /// Ends the authorization `authorizationID` with the consent of the user the team's page signed in (`idToken`,
    /// a fresh ID token of this project or tenant): the consent is remembered, and the answer is where to send the
    /// browser, the client's redirect URI with the code, `state` and `iss`. For the server side of the team's own
    /// sign-in page of Flint's OpenID provider.
    ///
    /// A sign-in older than the client's `max_age`, or without the second factor it asked for, is refused
    /// (`CREDENTIAL_TOO_OLD_LOGIN_AGAIN`); see ``oauthAuthorization(_:)`` for the project these calls act on.
    public func approveOAuthAuthorization(_ authorizationID: String, idToken: String) async throws -> String {
        try await decideOAuthAuthorization("approve", authorizationID, idToken: idToken)
    }

    /// Ends the authorization `authorizationID` with the user's refusal: the answer is where to send the browser, the
    /// client's redirect URI with `error=access_denied`, `state` and `iss`. For the server side of the team's own
    /// sign-in page of Flint's OpenID provider.
    public func denyOAuthAuthorization(_ authorizationID: String, idToken: String) async throws -> String {
        try await decideOAuthAuthorization("deny", authorizationID, idToken: idToken)
    }

    private func decideOAuthAuthorization(_ decision: String, _ authorizationID: String, idToken: String) async throws -> String {
        try Self.checkAuthorizationID(authorizationID)
        guard !idToken.isEmpty else { throw AdminError(.invalidIDToken, "an authorization is decided with the user's ID token") }
        let request = OAuthAuthorizationDecisionRequest(authorizationId: authorizationID, idToken: idToken, tenantId: tenantID)
        return try await oauthCall {
            try await connection.call("POST", "/v2/oauth/authorizations:" + decision, body: request,
                                      as: OAuthAuthorizationDecisionResponse.self)
        }.redirectUri
    }

    // MARK: Users' consents

    /// The clients `uid` let sign in with their account, with the scopes granted.
    public func oauthGrants(uid: String) async throws -> [OAuthGrant] {
        try Check.uid(uid)
        let path = "/v2/" + resourceName + "/accounts/" + FormURLEncoding.escape(uid) + "/oauthGrants"
        return try await oauthCall { try await connection.call("GET", path, as: ListOAuthGrantsResponse.self) }.grants
    }

    /// Withdraws `uid`'s consent to `clientID`, and ends every token the client holds for the user;
    /// `oauthClientNotFound` when there was neither.
    public func revokeOAuthGrant(uid: String, clientID: String) async throws {
        try Check.uid(uid)
        let path = "/v2/" + resourceName + "/accounts/" + FormURLEncoding.escape(uid) + "/oauthGrants/"
            + FormURLEncoding.escape(try Self.checkedClientID(clientID))
        _ = try await oauthCall { try await connection.call("DELETE", path, as: JSONValue.self) }
    }

    // MARK: Paths and errors

    /// `/v2/projects/{p}[/tenants/{t}]/oauthClients`.
    private var oauthClientsPath: String { "/v2/" + resourceName + "/oauthClients" }

    /// `/v2/projects/{p}[/tenants/{t}]/oauthClients/{id}`, for an ID that is not empty.
    private func oauthClientPath(_ clientID: String) throws -> String {
        oauthClientsPath + "/" + FormURLEncoding.escape(try Self.checkedClientID(clientID))
    }

    private static func checkedClientID(_ clientID: String) throws -> String {
        guard !clientID.isEmpty else { throw AdminError(.invalidArgument, "an OAuth client ID is not empty") }
        return clientID
    }

    private static func checkAuthorizationID(_ authorizationID: String) throws {
        guard !authorizationID.isEmpty else { throw AdminError(.invalidArgument, "an authorization ID is not empty") }
    }

    /// The provider's own server codes, which firebase-admin's table does not know, under names of their own.
    private static let oauthCodes: [String: AdminError.Code] = [
        ServerErrorCode.oauthClientNotFound.rawValue: .oauthClientNotFound,
        ServerErrorCode.invalidOAuthClient.rawValue: .invalidOAuthClient,
        ServerErrorCode.invalidAuthorizationID.rawValue: .invalidAuthorizationID,
        ServerErrorCode.oauthResourceNotFound.rawValue: .oauthResourceNotFound,
        ServerErrorCode.invalidOAuthResource.rawValue: .invalidOAuthResource,
    ]

    /// `body`, with a refusal of the provider's own codes (its clients', resources' and authorizations') named by
    /// `oauthCodes`.
    func oauthCall<Reply>(_ body: () async throws -> Reply) async throws -> Reply {
        do {
            return try await body()
        } catch let error as AdminError where error.code == .internalError {
            guard let serverCode = error.serverCode, let code = Self.oauthCodes[serverCode] else { throw error }
            throw AdminError(code, error.message, serverCode: serverCode, httpStatus: error.httpStatus)
        }
    }
}
