import FlintWire
import Foundation

/// The rules of federated sign-in (`accounts:signInWithIdp`): check what the provider vouches for, then
/// find, create or link the account the way Firebase does with one account per email address.
public struct FederatedService: Sendable {
    let accounts: AccountStore
    let tokens: TokenService
    let secrets: SecretBox
    let apple: AppleSignIn
    let facebook: FacebookSignIn
    /// Google, GitHub, Microsoft and `oidc.…` providers, which have the redirect flow too.
    let providers: CodeFlowProviders
    let codeFlow: AuthorizationCodeFlow
    /// `saml.…` providers: the SP-initiated flow and the responses' checks.
    let saml: SAMLSignIn
    /// Apple's token and revocation endpoints.
    let appleID: AppleIDClient
    let pendingCredentials: SingleUseTokens<PendingCredential>
    let pipeline: SignInPipeline
    let projects: ProjectDirectory
    let clock: any FlintClock
    let random: any RandomSource
    let policy: ModePolicy

    init(core: ServerCore, tokens: TokenService, providers: ProviderClients, pipeline: SignInPipeline) {
        accounts = core.store.accounts
        projects = core.projects
        self.tokens = tokens
        secrets = core.secrets
        apple = providers.apple
        facebook = providers.facebook
        self.providers = providers.codeFlow
        codeFlow = AuthorizationCodeFlow(
            sessions: core.singleUseTokens(purpose: "federated-code-flow-session", lifetimeSeconds: 600),
            providers: providers.codeFlow, secrets: core.secrets, http: providers.http, random: core.random)
        saml = SAMLSignIn(core: core)
        appleID = providers.appleID
        pendingCredentials = core.singleUseTokens(purpose: "federated-pending-credential", lifetimeSeconds: 3600)
        self.pipeline = pipeline
        clock = core.clock
        random = core.random
        policy = core.policy
    }

    /// What a `pendingToken` carries: an identity a provider vouched for, to finish a sign-in or link
    /// after a conflict without the provider's (possibly single-use) token.
    struct PendingCredential: Codable, Sendable {
        var projectID: String
        var identity: ProviderIdentity
    }

    // MARK: signInWithIdp

    public func signInWithIdp(_ request: SignInWithIdpRequest, caller: Caller) async throws -> SignInWithIdpResponse {
        let (identity, providerTokens, pending) = try await verifiedIdentity(request, caller: caller)
        // The account to link to is checked first: its problems (a disabled user, an expired token) are
        // errors, not account conflicts.
        let linking = if let idToken = request.idToken, !idToken.isEmpty, request.autoCreate != false {
            try await tokens.verifyIDToken(idToken, projectID: caller.projectID)
        } else {
            TokenService.VerifiedIDToken?.none
        }
        do {
            let resolution = try await resolve(identity, linkingTo: linking, request: request, caller: caller)
            // Spent here, once: the one request that redeems it goes on.
            if let pending, !(try await pendingCredentials.redeem(pending)) { throw FlintError(.invalidPendingToken) }
            return try await answer(resolution, identity: identity, providerTokens: providerTokens, caller: caller)
        } catch let error as FlintError where request.returnIdpCredential == true && error.status == .badRequest
            && !error.is(.invalidPendingToken) && !error.is(.userDisabled) {
            // With `returnIdpCredential`, account conflicts come back as a 200 carrying the provider's
            // data and a pending token, from which the SDK builds the updated credential. A request that
            // came with a pending token gets that same token back (still unspent), never a new one: a
            // pending token cannot be renewed.
            var response = try profileResponse(identity, providerTokens: providerTokens)
            response.pendingToken = try request.pendingToken.flatMap { $0.isEmpty ? nil : $0 }
                ?? pendingCredentials.make(PendingCredential(projectID: caller.projectID, identity: identity))
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
            if try await pendingCredentials.isSpent(opened) { throw FlintError(.invalidPendingToken) }
            return (opened.payload.identity, ProviderTokens(), opened)
        }
        if policy.verifiesProviderTokens {
            let fields = try IdpAssertion.fields(requestURI: request.requestUri, postBody: request.postBody)
            // A SAML IdP's response, to a sign-in started here or unsolicited.
            if SAMLSignIn.carriesResponse(fields) {
                return (try await saml.finish(fields: fields, sessionID: request.sessionId, caller: caller), ProviderTokens(), nil)
            }
            // The browser's return from the provider in the redirect flow: a code (or an error) for the session.
            if let sessionID = request.sessionId, !sessionID.isEmpty, fields["state"] != nil,
               fields["code"] != nil || fields["error"] != nil {
                let (identity, tokens) = try await codeFlow.finish(sessionID: sessionID, callback: fields, caller: caller)
                return (identity, tokens, nil)
            }
        }
        let assertion = try IdpAssertion.parse(requestURI: request.requestUri, postBody: request.postBody)
        let providerTokens = ProviderTokens(idToken: assertion.idToken, accessToken: assertion.accessToken)
        if !policy.verifiesProviderTokens { return (try EmulatorAssertions.identity(assertion), providerTokens, nil) }

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
        case ProviderID.google:
            identity = try await providers.google.verify(assertion, configuration: configuration)
        case ProviderID.gitHub:
            identity = try await providers.gitHub.verify(assertion, configuration: configuration) {
                try configuration.sealedClientSecret.map { try openSecret($0, providerID: ProviderID.gitHub, caller: caller) }
            }
        case ProviderID.microsoft:
            identity = try await providers.microsoft.verify(assertion, configuration: configuration)
        case let id where id.hasPrefix(ProviderID.oidcPrefix):
            identity = try await providers.oidc.verify(assertion, configuration: configuration)
        default:
            throw FlintError(.invalidProviderID,
                             "Flint verifies apple.com, facebook.com, google.com, github.com, microsoft.com, oidc.* and saml.* credentials only.")
        }
        return (identity, providerTokens, nil)
    }

    // MARK: The redirect flow

    /// `createAuthUri` with a provider: the provider's authorization URL and the session ID that finishes the flow
    /// (`signInWithIdp` with the session ID and the URL the provider sends the browser back to). A client may choose
    /// the session ID itself (`sessionId`); Flint keeps only its hash.
    public func createAuthURI(_ request: CreateAuthURIRequest, caller: Caller) async throws -> CreateAuthURIResponse {
        // The official emulator has no redirect flow; its sign-in pages are its own (`/emulator/auth/handler`).
        guard policy.verifiesProviderTokens else {
            throw FlintError(.notImplemented, "Sign-in with IDP is not yet supported.", status: .notImplemented)
        }
        let providerID = (request.providerId ?? "").lowercased()
        guard let continueURI = request.continueUri, !continueURI.isEmpty else { throw FlintError(.missingContinueURI) }
        // A web page must be on an authorized domain; an app's own scheme must be one of a registered app of the
        // project (a tenant's are its project's), as must the app `appId` names: a SAML response would otherwise go
        // through the handler to any app that claims the scheme (`RegisteredApps`).
        try ActionCodeService.checkContinueURL(continueURI, settings: caller.project.settings,
                                               checksDomain: policy.checksContinueURLDomain, appSchemes: true)
        let apps = try await projectApps(of: caller)
        let appID = request.appId.flatMap { $0.isEmpty ? nil : $0 }
        if let appID, !RegisteredApps.names(appID, in: apps) {
            throw FlintError(.invalidArgument, "appId does not name an app of this project.")
        }
        if let scheme = URLComponents(string: continueURI)?.scheme?.lowercased(), scheme != "http", scheme != "https",
           !RegisteredApps.ownsScheme(scheme, appID: appID, in: apps) {
            throw FlintError(.invalidContinueURI, "The continueUri's scheme is not one of a registered app of this project.")
        }
        let session = request.sessionId.flatMap { $0.isEmpty ? nil : $0 }.map { ($0, Hex.sha256($0)) } ?? codeFlow.newSessionID()
        let authURI = try await startRedirectFlow(
            providerID: providerID, redirectURI: continueURI, sessionHash: session.1,
            scopes: (request.oauthScope ?? "").split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init),
            customParameters: request.customParameter ?? [:], caller: caller)
        var response = CreateAuthURIResponse(sessionId: session.0)
        response.authUri = authURI
        response.providerId = providerID
        return response
    }

    /// The apps registered with the caller's project: a tenant's are its project's.
    private func projectApps(of caller: Caller) async throws -> ProjectSettings.Apps {
        guard caller.project.realm.tenantID != nil else { return caller.project.settings.apps }
        return try await projects.project(caller.project.realm.projectID)?.settings.apps ?? ProjectSettings.Apps()
    }

    /// The provider's authorization URL of a new redirect flow, once the provider is configured and enabled.
    /// Whether the redirect flow (`startRedirectFlow`, the hosted handler) signs users in with `providerID`: the
    /// providers with a code flow, and SAML.
    static func hasRedirectFlow(_ providerID: String) -> Bool {
        providerID.hasPrefix(ProviderID.samlPrefix) || CodeFlowProviders.hasCodeFlow(providerID)
    }

    func startRedirectFlow(providerID: String, redirectURI: String, sessionHash: String, scopes: [String],
                           customParameters: [String: String], handlerReturn: AuthorizationCodeFlow.HandlerReturn? = nil,
                           caller: Caller) async throws -> String {
        let isSAML = providerID.hasPrefix(ProviderID.samlPrefix)
        guard Self.hasRedirectFlow(providerID) else { throw AuthorizationCodeFlow.unsupportedProvider }
        guard let configuration = caller.project.settings.identityProviders[providerID], configuration.enabled else {
            throw FlintError(.operationNotAllowed, "The identity provider configuration is not found or disabled.")
        }
        if isSAML {
            return try await saml.start(providerID: providerID, redirectURI: redirectURI, sessionHash: sessionHash,
                                  handlerReturn: handlerReturn, configuration: configuration, projectID: caller.projectID)
        }
        return try await codeFlow.start(
            providerID: providerID, redirectURI: redirectURI, sessionHash: sessionHash, scopes: scopes,
            customParameters: customParameters, handlerReturn: handlerReturn, configuration: configuration,
            projectID: caller.projectID)
    }

    // MARK: Finding the account

    /// Where a verified identity leads.
    private enum Resolution {
        /// Sign in to this existing account, applying `attempt`'s change (the identity linked or refreshed).
        case existing(localID: String, SignInPipeline.Attempt)
        /// Create this account and sign in to it.
        case new(UserAccount)
        /// Another account has the identity's email: the user must sign in to it first and link.
        case needsConfirmation(UserAccount)
    }

    private func resolve(_ identity: ProviderIdentity, linkingTo linking: TokenService.VerifiedIDToken?,
                         request: SignInWithIdpRequest, caller: Caller) async throws -> Resolution {
        // One account per email unless the project allows several: then an identity's email is its own, and
        // never leads to another account.
        let sharedEmails = caller.project.settings.signIn.allowDuplicateEmails
        if let linking { return try await link(identity, to: linking, sharedEmails: sharedEmails, caller: caller) }
        let projectID = caller.projectID
        if let owner = try await accounts.user(projectID: projectID, providerID: identity.providerID, rawID: identity.rawID) {
            return .existing(localID: owner.localID, signIn(identity))
        }
        // Re-authentication (`autoCreate: false`) never creates or takes over an account.
        if request.autoCreate == false { throw FlintError(.userNotFound) }

        if !sharedEmails, let email = identity.email, let holder = try await accounts.user(projectID: projectID, email: email) {
            return takeOverOrConfirm(holder, identity: identity)
        }
        var user = UserAccount(projectID: projectID, localID: random.localID(), createdAt: clock.milliseconds)
        if !sharedEmails {
            user.email = identity.email
            user.emailVerified = identity.email != nil && identity.emailVerified
        }
        user.displayName = identity.displayName
        user.photoURL = identity.photoURL
        user.identities = [identity.federatedIdentity]
        return .new(user)
    }

    /// A sign-in with an identity an account holds: its stored profile is kept current (the provider may
    /// have a new name or photo), if it is still linked when the account is locked.
    private func signIn(_ identity: ProviderIdentity) -> SignInPipeline.Attempt {
        SignInPipeline.Attempt(provider: identity.providerID) { current in
            guard let stored = current.identities.first(where: {
                $0.providerID == identity.providerID && $0.rawID == identity.rawID
            }) else { throw FlintError(.userNotFound) }
            var updated = identity.federatedIdentity
            // Apple sends the name once: keep the stored one when this sign-in carries none.
            updated.displayName = identity.displayName ?? stored.displayName
            updated.email = identity.email ?? stored.email
            return updated == stored ? AccountChange() : AccountChange([.refreshIdentity(updated)])
        }
    }

    /// An identity whose email another account holds. Production asks for confirmation (Firebase's
    /// `account-exists-with-different-credential`): the user signs in to that account and links. The
    /// emulator, as the official one does, links straight away when the provider vouches for the email;
    /// an account whose own email was unverified is the provider's user's now, and loses every credential
    /// and session of whoever made it (the rule of `AccountChange.emailOwnershipProved`).
    private func takeOverOrConfirm(_ holder: UserAccount, identity: ProviderIdentity) -> Resolution {
        guard policy.linksVouchedEmailsWithoutConfirmation, identity.emailVerified else { return .needsConfirmation(holder) }
        let now = clock.seconds
        return .existing(localID: holder.localID, SignInPipeline.Attempt(provider: identity.providerID) { current in
            // The provider's profile replaces the account's, as the official emulator does.
            var change = AccountChange.emailOwnershipProved(on: current, at: now)
            change.add(AccountChange([.displayName(identity.displayName), .photoURL(identity.photoURL)]))
            if current.emailVerified, current.identities.contains(where: { $0.providerID == identity.providerID }) {
                change.add(.unlink(providerID: identity.providerID))
            }
            change.add(.link(identity.federatedIdentity))
            return change
        })
    }

    /// Adds the identity to the signed-in user. Its email becomes the account's only if the account has
    /// none (and the project keeps one account per email); an address the provider vouches for is verified.
    private func link(_ identity: ProviderIdentity, to verified: TokenService.VerifiedIDToken, sharedEmails: Bool,
                      caller: Caller) async throws -> Resolution {
        if try await accounts.user(projectID: caller.projectID, providerID: identity.providerID, rawID: identity.rawID) != nil {
            throw FlintError(.federatedUserIDAlreadyLinked)
        }
        if !sharedEmails, let email = identity.email, verified.user.email != email,
           let holder = try await accounts.user(projectID: caller.projectID, email: email), holder.localID != verified.user.localID {
            throw FlintError(.emailExists)
        }
        return .existing(localID: verified.user.localID, .reissue(for: verified, provider: identity.providerID) { [tokens] current in
            try tokens.requireRecentSignIn(verified, toChangeCredentialsOf: current)
            if current.identities.contains(where: { $0.providerID == identity.providerID }) {
                throw FlintError(.providerAlreadyLinked)
            }
            var change = AccountChange()
            if !sharedEmails, current.email == nil, let email = identity.email {
                change.add(AccountChange([.email(email), .emailVerified(identity.emailVerified)]))
            } else if identity.emailVerified, let email = current.email, email == identity.email, !current.emailVerified {
                change.add(.emailVerified(true))
            }
            if current.displayName == nil, identity.displayName != nil { change.add(.displayName(identity.displayName)) }
            if current.photoURL == nil, identity.photoURL != nil { change.add(.photoURL(identity.photoURL)) }
            change.add(.link(identity.federatedIdentity))
            return change
        })
    }

    // MARK: Answers

    /// A SAML identity's attributes (its `rawUserInfo`), which its session's ID tokens carry as
    /// `firebase.sign_in_attributes`; nil for other providers.
    private static func signInAttributes(of identity: ProviderIdentity, response: SignInWithIdpResponse) -> String? {
        identity.providerID.hasPrefix(ProviderID.samlPrefix) && !identity.rawUserInfo.isEmpty ? response.rawUserInfo : nil
    }

    private func answer(_ resolution: Resolution, identity: ProviderIdentity, providerTokens: ProviderTokens,
                        caller: Caller) async throws -> SignInWithIdpResponse {
        var response = try profileResponse(identity, providerTokens: providerTokens)
        let outcome: SignInPipeline.Outcome
        var isNewUser = false
        switch resolution {
        case .needsConfirmation(let holder):
            response.needConfirmation = true
            response.email = identity.email
            response.verifiedProvider = holder.identities.map(\.providerID)
            response.pendingToken = try pendingCredentials.make(PendingCredential(projectID: caller.projectID, identity: identity))
            if policy.linksVouchedEmailsWithoutConfirmation { response.localId = holder.localID }
            return response
        case .existing(let localID, var attempt):
            attempt.providerTokens = providerTokens
            attempt.rawUserInfo = response.rawUserInfo
            attempt.signInAttributes = Self.signInAttributes(of: identity, response: response)
            outcome = try await pipeline.signIn(localID, projectID: caller.projectID, attempt)
        case .new(let user):
            var attempt = SignInPipeline.Attempt(provider: identity.providerID)
            attempt.providerTokens = providerTokens
            attempt.rawUserInfo = response.rawUserInfo
            attempt.signInAttributes = Self.signInAttributes(of: identity, response: response)
            do {
                outcome = try await pipeline.signIn(creating: user, attempt)
                isNewUser = true
            } catch let error as FlintError where error.is(.federatedUserIDAlreadyLinked) || error.is(.emailExists) {
                // Another request created the account a moment ago: resolve again, against it.
                return try await answer(try await resolve(identity, linkingTo: nil, request: .init(), caller: caller), identity: identity,
                                        providerTokens: providerTokens, caller: caller)
            }
        }
        // With a second factor, the identity (and any profile refresh) is saved; the tokens wait for it.
        outcome.fill(&response)
        response.localId = outcome.user.localID
        if case .signedIn(let user, _) = outcome {
            response.email = user.email
            response.emailVerified = user.emailVerified
            response.displayName = user.displayName
            response.photoUrl = user.photoURL
            response.isNewUser = isNewUser ? true : nil
        }
        return response
    }

    /// The provider's side of every answer.
    private func profileResponse(_ identity: ProviderIdentity, providerTokens: ProviderTokens) throws -> SignInWithIdpResponse {
        var response = SignInWithIdpResponse()
        // Google's federated ids are URLs (the emulator's too); other providers' are their user ids.
        response.federatedId = identity.providerID == ProviderID.google ? "https://accounts.google.com/\(identity.rawID)" : identity.rawID
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
            ?? (policy.verifiesProviderTokens ? nil : "FirebaseAuthEmulatorFakeAccessToken_\(identity.providerID)")
        return response
    }

    /// A provider secret (Facebook's app secret, Apple's private key) the admin API sealed.
    func openSecret(_ sealed: String, providerID: String, caller: Caller) throws -> String {
        try IdentityProviderConfigService.openSecret(sealed, with: secrets, projectID: caller.projectID, providerID: providerID)
    }
}
