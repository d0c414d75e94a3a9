import FlintWire
import Foundation

/// Shows a provider's sign-in page and hands back where the provider finally sends the browser.
///
/// FlintAuth calls it for `OAuthProvider.getCredentialWith(_:)` and `Auth.signIn(with:uiDelegate:)`. Set one on
/// `Auth.webAuthenticationPresenter`: an `ASWebAuthenticationSession` on Apple platforms, a browser the app drives
/// elsewhere.
public protocol WebAuthenticationPresenter: Sendable {
    /// Opens `url` and returns the first URL with the scheme `callbackURLScheme` the browser is sent to. Throws
    /// `CancellationError` (or any error) when the user gives up.
    func authenticate(url: URL, callbackURLScheme: String) async throws -> URL
}

extension OAuthProvider {
    /// Signs the user in at the provider's own page (the redirect flow) and returns the credential for
    /// `Auth.signIn(with:)`, `User.link(with:)` or `User.reauthenticate(with:)`.
    ///
    /// The server starts the flow (`createAuthUri`), `Auth.webAuthenticationPresenter` shows the provider's page, and
    /// the provider sends the browser back to `<bundle ID>:/__/auth/callback` (register that redirect URI with the
    /// provider). The server binds the flow's state, PKCE verifier and nonce to the session, so the credential is good
    /// once. Throws `webContextCancelled` when the user gives up, `webInternalError` without a presenter or a bundle ID.
    public func getCredentialWith(_ uiDelegate: (any AuthUIDelegate)?) async throws -> AuthCredential {
        let auth = self.auth ?? Auth.auth()
        guard let presenter = auth.webAuthenticationPresenter else {
            throw AuthErrorUtils.error(.webInternalError, message: "Set Auth.webAuthenticationPresenter to show the provider's page.")
        }
        guard let scheme = (auth.app?.configuration.bundleID ?? Bundle.main.bundleIdentifier)?.lowercased(), !scheme.isEmpty else {
            throw AuthErrorUtils.error(.webInternalError, message: "The app has no bundle ID to be called back with.")
        }
        let started = try await auth.backend.createAuthURI(
            providerID: providerID, continueURI: "\(scheme):/__/auth/callback", scopes: scopes ?? [], customParameters: customParameters ?? [:])
        guard let authURI = started.authUri.flatMap(URL.init(string:)), let sessionID = started.sessionId else {
            throw AuthErrorUtils.internalError(response: "accounts:createAuthUri answered without an authUri or a session")
        }
        let callback: URL
        do {
            callback = try await presenter.authenticate(url: authURI, callbackURLScheme: scheme)
        } catch {
            throw AuthErrorUtils.error(.webContextCancelled, message: "The sign-in page was closed: \(error)")
        }
        return OAuthCredential(provider: providerID, idToken: nil, accessToken: nil, sessionID: sessionID,
                               requestURI: callback.absoluteString)
    }

    /// Completion-handler form of `getCredentialWith(_:)`.
    public func getCredentialWith(_ uiDelegate: (any AuthUIDelegate)?,
                                  completion: (@MainActor (AuthCredential?, (any Error)?) -> Void)? = nil) {
        completeOnMainActor(completion) { try await self.getCredentialWith(uiDelegate) }
    }
}

extension Auth {
    /// Signs in at `provider`'s own page (see `OAuthProvider.getCredentialWith(_:)`).
    @discardableResult
    public func signIn(with provider: OAuthProvider, uiDelegate: (any AuthUIDelegate)?) async throws -> AuthDataResult {
        try await signIn(with: try await provider.getCredentialWith(uiDelegate))
    }

    /// Completion-handler form of `signIn(with:uiDelegate:)`.
    public func signIn(with provider: OAuthProvider, uiDelegate: (any AuthUIDelegate)?,
                       completion: (@MainActor (AuthDataResult?, (any Error)?) -> Void)? = nil) {
        completeOnMainActor(completion) { try await self.signIn(with: provider, uiDelegate: uiDelegate) }
    }

    /// What shows providers' pages for `signIn(with:uiDelegate:)` and `OAuthProvider.getCredentialWith(_:)`.
    public var webAuthenticationPresenter: (any WebAuthenticationPresenter)? {
        get { state[\.webAuthenticationPresenter] }
        set { state[\.webAuthenticationPresenter] = newValue }
    }
}
