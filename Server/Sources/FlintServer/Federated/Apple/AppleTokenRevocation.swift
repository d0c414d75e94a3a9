import FlintWire

extension FederatedService {
    /// v2 `accounts:revokeToken`: revokes the signed-in user's Apple tokens with a fresh authorization
    /// code (App Store rules ask apps to do this when an account is deleted). Flint builds the client
    /// secret from the project's Apple key, exchanges the code and revokes what it yields. A code made by
    /// an app is issued to its bundle ID and one made on the web to the Services ID, so each configured
    /// client ID is tried until Apple takes the code. Emulator mode checks the request and calls no one.
    public func revokeToken(_ request: RevokeTokenRequest, caller: Caller) async throws -> EmptyResponse {
        if request.tenantId != nil { throw FlintError(.unsupportedTenantOperation) }
        _ = try await tokens.verifyIDToken(request.idToken, projectID: caller.projectID)
        guard request.providerId == ProviderID.apple else {
            throw FlintError(.invalidProviderID, "Only apple.com tokens can be revoked.")
        }
        // `3` is the iOS SDK's number for CODE.
        guard ["CODE", "3"].contains(request.tokenType?.value ?? "") else {
            throw FlintError(.invalidArgument, "tokenType must be CODE.")
        }
        guard let code = request.token, !code.isEmpty, code.utf8.count <= 4096 else {
            throw FlintError(.invalidArgument, "token (the authorization code) is missing.")
        }
        guard policy.makesOutsideCalls else { return EmptyResponse() }

        guard let configuration = caller.project.settings.identityProviders[ProviderID.apple], configuration.enabled else {
            throw FlintError(.operationNotAllowed, "The identity provider configuration is not found or disabled.")
        }
        guard let teamID = configuration.teamID, let keyID = configuration.keyID, let sealedKey = configuration.sealedPrivateKey
        else { throw FlintError(.invalidProviderConfig, "apple.com has no codeFlowConfig (team id, key id, private key).") }
        let privateKey = try openSecret(sealedKey, providerID: ProviderID.apple, caller: caller)
        let clientIDs = configuration.bundleIDs + [configuration.clientID].compactMap { $0 }
        var lastRejection = "no client ID configured"
        for clientID in clientIDs {
            do {
                try await appleID.revoke(authorizationCode: code, credentials: .init(
                    teamID: teamID, keyID: keyID, clientID: clientID, privateKeyPEM: privateKey))
                return EmptyResponse()
            } catch let rejected as AppleIDClient.CodeRejected {
                lastRejection = rejected.reason
            }
        }
        throw FlintError(.invalidIDPResponse, "Apple refused the authorization code (\(lastRejection)).")
    }
}

/// `{}`: the answer of operations that return nothing.
public struct EmptyResponse: Codable, Sendable {
    public init() {}
}
