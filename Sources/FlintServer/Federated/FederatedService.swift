import FlintWire
import Foundation

/// The rules of federated sign-in (`accounts:signInWithIdp`): check what the provider vouches for, then
/// find, create or link the account the way Firebase does with one account per email address.
public struct FederatedService: Sendable {
    let store: Store
    let tokens: TokenService
    let secrets: SecretBox
    let apple: AppleSignIn
    let facebook: FacebookSignIn
    /// Apple's token and revocation endpoints.
    let appleID: AppleIDClient
    let pendingCredentials: SingleUseTokens<PendingCredential>
    let gate: SecondFactorGate
    let clock: any FlintClock
    let random: any RandomSource
    /// Emulator mode: provider tokens are read without verification and no outside call is made.
    let emulator: Bool

    /// What a `pendingToken` carries: an identity a provider vouched for, to finish a sign-in or link
    /// after a conflict without the provider's (possibly single-use) token.
    struct PendingCredential: Codable, Sendable {
        var projectID: String
        var identity: ProviderIdentity
    }

    // MARK: signInWithIdp

    public func signInWithIdp(_ request: SignInWithIdpRequest, caller: Caller) async throws -> SignInWithIdpResponse {
        if request.tenantId != nil { throw FlintError(.unsupportedTenantOperation) }
        let (identity, providerTokens, pending) = try await verifiedIdentity(request, caller: caller)
        do {
            let resolution = try await resolve(identity, request: request, caller: caller)
            if let pending, !(try await pendingCredentials.redeem(pending)) { throw FlintError(.invalidPendingToken) }
            return try await answer(resolution, identity: identity, providerTokens: providerTokens, caller: caller)
        } catch let error as FlintError where request.returnIdpCredential == true && error.status == .badRequest {
            // With `returnIdpCredential`, account conflicts come back as a 200 carrying the provider's
            // data and a pending token, from which the SDK builds the updated credential.
            var response = try conflictReport(identity, providerTokens: providerTokens, caller: caller)
            response.errorMessage = error.message
            return response
        }
    }

    /// The identity the request proves: from a pending token, or from the provider's credential.
    private func verifiedIdentity(_ request: SignInWithIdpRequest, caller: Caller) async throws
        -> (ProviderIdentity, ProviderTokens, SingleUseTokens<PendingCredential>.Opened?) {
        if let token = request.pendingToken, !token.isEmpty {
            guard let opened = pendingCredentials.open(token), opened.payload.projectID == caller.projectID else {
                throw FlintError(.invalidPendingToken)
            }
            guard pendingCredentials.isLive(opened) else { throw FlintError(.invalidPendingToken, "The pending token has expired.") }
            return (opened.payload.identity, ProviderTokens(), opened)
        }
        let assertion = try IdpAssertion.parse(requestURI: request.requestUri, postBody: request.postBody)
        let providerTokens = ProviderTokens(idToken: assertion.idToken, accessToken: assertion.accessToken)
        if emulator { return (try EmulatorAssertions.identity(assertion), providerTokens, nil) }

        let settings = caller.project.settings.identityProviders
        guard let configuration = settings[assertion.providerID], configuration.enabled else {
            throw FlintError(.operationNotAllowed, "The identity provider configuration is not found or disabled.")
        }
        let identity: ProviderIdentity
        switch assertion.providerID {
        case ProviderID.apple:
            identity = try await apple.verify(assertion, configuration: configuration)
        case ProviderID.facebook:
            identity = try await facebook.verify(assertion, configuration: configuration) {
                try configuration.sealedClientSecret.map { try openSecret($0, providerID: ProviderID.facebook, caller: caller) }
            }
        default:
            throw FlintError(.invalidProviderID, "Flint verifies apple.com and facebook.com credentials only.")
        }
        return (identity, providerTokens, nil)
    }

    // MARK: Finding the account

    /// Where a verified identity leads.
    private enum Resolution {
        /// Tokens for this user (saved with the identity attached); `linked` when the caller was signed in
        /// already (a link), so no second factor is asked.
        case signedIn(UserAccount, isNewUser: Bool, linked: Bool = false)
        /// Another account has the identity's email: the user must sign in to it first and link.
        case needsConfirmation(UserAccount)
    }

    private func resolve(_ identity: ProviderIdentity, request: SignInWithIdpRequest, caller: Caller) async throws -> Resolution {
        if let idToken = request.idToken, !idToken.isEmpty, request.autoCreate != false {
            return try await link(identity, idToken: idToken, caller: caller)
        }
        let projectID = caller.projectID
        if var owner = try await store.user(projectID: projectID, providerID: identity.providerID, rawID: identity.rawID) {
            Self.refresh(identity, on: &owner)
            return .signedIn(owner, isNewUser: false)
        }
        // Re-authentication (`autoCreate: false`) never creates or takes over an account.
        if request.autoCreate == false { throw FlintError(.userNotFound) }

        if let email = identity.email, let holder = try await store.user(projectID: projectID, email: email) {
            return try takeOverOrConfirm(holder, identity: identity)
        }
        var user = UserAccount(projectID: projectID, localID: random.localID(), createdAt: clock.milliseconds)
        user.email = identity.email
        user.emailVerified = identity.email != nil && identity.emailVerified
        user.displayName = identity.displayName
        user.photoURL = identity.photoURL
        user.identities = [identity.federatedIdentity]
        user.lastLoginAt = user.createdAt
        do {
            try await store.createUser(user)
        } catch StoreError.duplicate(.federatedIdentity) {
            // Another request created the same user a moment ago: sign in as that user.
            guard let winner = try await store.user(projectID: projectID, providerID: identity.providerID, rawID: identity.rawID)
            else { throw FlintError.internalError }
            return .signedIn(winner, isNewUser: false)
        } catch StoreError.duplicate(.email) {
            guard let email = identity.email, let holder = try await store.user(projectID: projectID, email: email)
            else { throw FlintError.internalError }
            return try takeOverOrConfirm(holder, identity: identity)
        }
        return .signedIn(user, isNewUser: true)
    }

    /// An identity whose email another account holds. Production asks for confirmation (Firebase's
    /// `account-exists-with-different-credential`): the user signs in to that account and links. The
    /// emulator, as the official one does, links straight away when the provider vouches for the email,
    /// and resets an account whose own email was never verified (whoever made it cannot prove it).
    private func takeOverOrConfirm(_ holder: UserAccount, identity: ProviderIdentity) throws -> Resolution {
        guard emulator, identity.emailVerified else { return .needsConfirmation(holder) }
        var user = holder
        if !holder.emailVerified {
            user.passwordHash = nil
            user.passwordSalt = nil
            user.passwordUpdatedAt = nil
            user.phoneNumber = nil
            user.identities = []
            user.emailLinkSignin = false
            user.displayName = identity.displayName
            user.photoURL = identity.photoURL
            user.validSince = clock.seconds
        }
        user.emailVerified = true
        user.identities.removeAll { $0.providerID == identity.providerID }
        user.identities.append(identity.federatedIdentity)
        return .signedIn(user, isNewUser: false)
    }

    /// Adds the identity to the user of `idToken`.
    private func link(_ identity: ProviderIdentity, idToken: String, caller: Caller) async throws -> Resolution {
        var user = try await tokens.verifyIDToken(idToken, projectID: caller.projectID).user
        if try await store.user(projectID: caller.projectID, providerID: identity.providerID, rawID: identity.rawID) != nil {
            throw FlintError(.federatedUserIDAlreadyLinked)
        }
        if user.identities.contains(where: { $0.providerID == identity.providerID }) {
            throw FlintError(.providerAlreadyLinked)
        }
        if let email = identity.email, user.email != email,
           let holder = try await store.user(projectID: caller.projectID, email: email), holder.localID != user.localID {
            throw FlintError(.emailExists)
        }
        if user.email == nil, let email = identity.email {
            user.email = email
            user.emailVerified = identity.emailVerified
        }
        if user.displayName == nil { user.displayName = identity.displayName }
        if user.photoURL == nil { user.photoURL = identity.photoURL }
        user.identities.append(identity.federatedIdentity)
        return .signedIn(user, isNewUser: false, linked: true)
    }

    /// Keeps a linked identity's stored profile current (the provider may have a new name or photo).
    private static func refresh(_ identity: ProviderIdentity, on user: inout UserAccount) {
        guard let index = user.identities.firstIndex(where: {
            $0.providerID == identity.providerID && $0.rawID == identity.rawID
        }) else { return }
        var updated = identity.federatedIdentity
        // Apple sends the name once: keep the stored one when this sign-in carries none.
        updated.displayName = identity.displayName ?? user.identities[index].displayName
        updated.email = identity.email ?? user.identities[index].email
        user.identities[index] = updated
    }

    // MARK: Answers

    private func answer(_ resolution: Resolution, identity: ProviderIdentity, providerTokens: ProviderTokens,
                        caller: Caller) async throws -> SignInWithIdpResponse {
        var response = try profileResponse(identity, providerTokens: providerTokens)
        switch resolution {
        case .needsConfirmation(let holder):
            response.needConfirmation = true
            response.email = identity.email
            response.verifiedProvider = holder.identities.map(\.providerID)
            response.pendingToken = try pendingCredentials.make(PendingCredential(projectID: caller.projectID, identity: identity))
            if emulator { response.localId = holder.localID }
            return response
        case .signedIn(var user, let isNewUser, let linked):
            if user.disabled { throw FlintError(.userDisabled) }
            if !linked, let challenge = try gate.challenge(for: user, signInProvider: identity.providerID) {
                // The identity (and any profile refresh) is saved; the tokens wait for the second factor.
                try await save(user)
                response.localId = user.localID
                response.mfaPendingCredential = challenge.pendingCredential
                response.mfaInfo = challenge.mfaInfo
                return response
            }
            if !isNewUser {
                user.lastLoginAt = clock.milliseconds
                try await save(user)
            }
            let issued = try await tokens.issue(for: user, signInProvider: identity.providerID)
            response.localId = user.localID
            response.email = user.email
            response.emailVerified = user.emailVerified
            response.displayName = user.displayName
            response.photoUrl = user.photoURL
            response.isNewUser = isNewUser ? true : nil
            response.idToken = issued.idToken
            response.refreshToken = issued.refreshToken
            response.expiresIn = issued.expiresIn
            return response
        }
    }

    /// The provider's side of every answer.
    private func profileResponse(_ identity: ProviderIdentity, providerTokens: ProviderTokens) throws -> SignInWithIdpResponse {
        var response = SignInWithIdpResponse()
        response.federatedId = identity.rawID
        response.providerId = identity.providerID
        response.email = identity.email
        response.emailVerified = identity.emailVerified
        response.displayName = identity.displayName
        response.fullName = identity.displayName
        response.firstName = identity.firstName
        response.lastName = identity.lastName
        response.photoUrl = identity.photoURL
        response.rawUserInfo = String(decoding: try JSONEncoder().encode(JSONValue.object(identity.rawUserInfo)), as: UTF8.self)
        response.oauthIdToken = providerTokens.idToken
        response.oauthAccessToken = providerTokens.accessToken
            ?? (emulator ? "FirebaseAuthEmulatorFakeAccessToken_\(identity.providerID)" : nil)
        return response
    }

    /// A conflict reported in a 200: the provider's data plus a pending token standing in for the credential.
    private func conflictReport(_ identity: ProviderIdentity, providerTokens: ProviderTokens, caller: Caller) throws
        -> SignInWithIdpResponse {
        var response = try profileResponse(identity, providerTokens: providerTokens)
        response.pendingToken = try pendingCredentials.make(PendingCredential(projectID: caller.projectID, identity: identity))
        return response
    }

    /// A provider secret (Facebook's app secret, Apple's private key) the admin API sealed.
    func openSecret(_ sealed: String, providerID: String, caller: Caller) throws -> String {
        let context = IdentityProviderConfigService.secretContext(projectID: caller.projectID, providerID: providerID)
        return String(decoding: try secrets.open(sealed, context: context), as: UTF8.self)
    }

    private func save(_ user: UserAccount) async throws {
        do {
            try await store.updateUser(user)
        } catch StoreError.duplicate(.email) {
            throw FlintError(.emailExists)
        } catch StoreError.duplicate(.federatedIdentity) {
            throw FlintError(.federatedUserIDAlreadyLinked)
        }
    }
}
