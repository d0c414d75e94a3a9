import FlintWire
import Foundation

/// Shows a web page and hands back the URL it finally sends the browser to.
///
/// FlintAuth calls it for `OAuthProvider.getCredentialWith(_:)` and `Auth.signIn(with:uiDelegate:)`. Set one on
/// `Auth.webAuthenticationPresenter` to show the page your own way; without one FlintAuth uses an
/// `ASWebAuthenticationSession` on iOS, macOS and visionOS, and elsewhere (Linux) the web flow fails.
public protocol WebAuthenticationPresenter: Sendable {
    /// Opens `url` and returns the first URL with the scheme `callbackURLScheme` the browser is sent to. Throws
    /// `CancellationError` (or any error) when the user gives up.
    func authenticate(url: URL, callbackURLScheme: String) async throws -> URL
}

extension OAuthProvider {
    /// `authType` of the redirect flow's page and of its callback.
    static let signInWithRedirectAuthType = "signInWithRedirect"

    /// Signs the user in at the provider's own page and returns the credential for `Auth.signIn(with:)`,
    /// `User.link(with:)` or `User.reauthenticate(with:)`, as FirebaseAuth does.
    ///
    /// The page shown is the server's `/__/auth/handler` (`/emulator/auth/handler` on the emulator), which sends the
    /// browser on to the provider and, once the user has signed in there, back to the app as
    /// `<scheme>://firebaseauth/link?deep_link_id=…`. The scheme is the reversed `FirebaseOptions.clientID`
    /// (`com.googleusercontent.apps.123-abc`), else `app-` and the `googleAppID` with `:` replaced by `-`. The
    /// credential holds the URL the provider sent the browser back to and the flow's session ID, whose SHA-256 the
    /// page was given: the server accepts it once.
    ///
    /// `uiDelegate` is there for FirebaseAuth's signature; the page is shown by `Auth.webAuthenticationPresenter`,
    /// by default an `ASWebAuthenticationSession`.
    ///
    /// Throws `webContextCancelled` when the user closes the page, `webInternalError` when the app has neither a
    /// client ID nor a Google App ID or nothing can show the page, the page's own error (such as
    /// `operationNotAllowed`), or `webSignInUserInteractionFailure`.
    public func getCredentialWith(_ uiDelegate: (any AuthUIDelegate)?) async throws -> AuthCredential {
        let auth = self.auth ?? Auth.auth()
        guard let presenter = auth.webAuthenticationPresenter ?? Self.systemPresenter else {
            throw AuthErrorUtils.error(.webInternalError, message: "Set Auth.webAuthenticationPresenter to show the sign-in page.")
        }
        let app = try Self.handlerApp(of: auth)
        let eventID = HandlerPage.randomID()
        let sessionID = HandlerPage.randomID()
        let url = try await handlerURL(auth: auth, app: app, eventID: eventID, sessionID: sessionID)
        let callback: URL
        do {
            callback = try await presenter.authenticate(url: url, callbackURLScheme: app.callbackScheme)
        } catch {
            // The presenter's own Auth errors as they are; any other means the page was closed.
            guard AuthErrorCode(error) == nil else { throw error }
            throw AuthErrorUtils.error(.webContextCancelled, userInfo: [NSUnderlyingErrorKey: error])
        }
        return try credential(fromCallback: callback, eventID: eventID, sessionID: sessionID,
                              callbackScheme: app.callbackScheme)
    }

    /// FirebaseAuth's name of `getCredentialWith(_:)` in `async` code.
    public func credential(with uiDelegate: (any AuthUIDelegate)?) async throws -> AuthCredential {
        try await getCredentialWith(uiDelegate)
    }

    /// Completion-handler form of `getCredentialWith(_:)`.
    public func getCredentialWith(_ uiDelegate: (any AuthUIDelegate)?,
                                  completion: (@MainActor (AuthCredential?, (any Error)?) -> Void)? = nil) {
        completeOnMainActor(completion) { try await self.getCredentialWith(uiDelegate) }
    }

    /// What shows the page when the app sets no presenter.
    private static var systemPresenter: (any WebAuthenticationPresenter)? {
        #if canImport(AuthenticationServices) && !os(tvOS) && !os(watchOS)
        SystemWebAuthenticationPresenter()
        #else
        nil
        #endif
    }

    /// How the page knows the app. FirebaseAuth needs a Google App ID, or a client ID, to name the scheme the page
    /// returns through.
    static func handlerApp(of auth: Auth) throws -> HandlerPage.App {
        let options = auth.app?.configuration
        if let appID = options?.googleAppID, !appID.isEmpty {
            return HandlerPage.App.of(clientID: options?.clientID, appID: appID)
        }
        if let clientID = options?.clientID, !clientID.isEmpty {
            return HandlerPage.App(clientID: clientID)
        }
        throw AuthErrorUtils.error(
            .webInternalError,
            message: "Set FirebaseOptions.clientID or googleAppID: the sign-in page returns to the app through a URL scheme made of one of them.")
    }

    /// The page of one run of the flow: `{site}/__/auth/handler?apiKey=…&authType=signInWithRedirect&ibi=…`
    /// `&sessionId=<SHA-256 of sessionID>&v=…&eventId=…&providerId=…&clientId=…|appId=…` and, when set, `tid`,
    /// `scopes` (comma-separated), `customParameters` (a JSON object) and `hl`. On the emulator the page is
    /// `http://host:port/emulator/auth/handler`.
    func handlerURL(auth: Auth, app: HandlerPage.App, eventID: String, sessionID: String) async throws -> URL {
        var items = [
            URLQueryItem(name: "sessionId", value: AuthNonce.sha256(sessionID)),
            URLQueryItem(name: "providerId", value: providerID),
        ]
        if let tenantID = auth.backend.configuration.tenantID {
            items.append(URLQueryItem(name: "tid", value: tenantID))
        }
        if let scopes, !scopes.isEmpty {
            items.append(URLQueryItem(name: "scopes", value: scopes.joined(separator: ",")))
        }
        if let customParameters, !customParameters.isEmpty {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            let json = String(decoding: try encoder.encode(customParameters), as: UTF8.self)
            items.append(URLQueryItem(name: "customParameters", value: json))
        }
        let page = if let emulator = auth.state[\.emulatorURL] {
            emulator.absoluteString + "/emulator/auth/handler"
        } else {
            try await HandlerPage.site(of: auth.backend) + HandlerPage.path
        }
        return try HandlerPage.url(page, auth: auth, authType: Self.signInWithRedirectAuthType, eventID: eventID, app: app,
                                   items: items)
    }

    /// The credential of the flow's callback: the `link` its deep link carries (the URL for `signInWithIdp`) with
    /// the flow's session ID; else the error the page reported.
    func credential(fromCallback callback: URL, eventID: String, sessionID: String,
                    callbackScheme: String) throws -> OAuthCredential {
        guard WebFlowCoordinator.isCallback(callback, eventID: eventID, authType: Self.signInWithRedirectAuthType,
                                            callbackScheme: callbackScheme)
        else {
            throw AuthErrorUtils.webSignInFailure(reason: "The page ended on a URL that is not this sign-in's callback: \(callback)")
        }
        let link = try WebFlowCoordinator.deepLinkValue("link", of: callback, failure: AuthErrorUtils.webSignInFailure)
        return OAuthCredential(provider: providerID, idToken: nil, accessToken: nil, sessionID: sessionID, requestURI: link)
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

    /// What shows the sign-in page of `signIn(with:uiDelegate:)` and `OAuthProvider.getCredentialWith(_:)`; when
    /// nil, an `ASWebAuthenticationSession` on iOS, macOS and visionOS.
    public var webAuthenticationPresenter: (any WebAuthenticationPresenter)? {
        get { state[\.webAuthenticationPresenter] }
        set { state[\.webAuthenticationPresenter] = newValue }
    }
}
