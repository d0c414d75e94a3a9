#if canImport(AuthenticationServices) && !os(tvOS) && !os(watchOS)
import AuthenticationServices
import Foundation
#if canImport(UIKit)
import UIKit
#else
import AppKit
#endif

/// What shows the sign-in page when `Auth.webAuthenticationPresenter` is nil on iOS, macOS and visionOS: an
/// `ASWebAuthenticationSession` presented from the app's key window. It shares the browser's cookies
/// (`prefersEphemeralWebBrowserSession` is false), so a user already signed in at the provider is not asked again.
struct SystemWebAuthenticationPresenter: WebAuthenticationPresenter {
    func authenticate(url: URL, callbackURLScheme: String) async throws -> URL {
        let session = try await WebSignInSession.start(url: url, callbackURLScheme: callbackURLScheme)
        return try await withTaskCancellationHandler {
            try await session.outcome.wait().get()
        } onCancel: {
            Task { @MainActor in session.cancel() }
        }
    }
}

/// One `ASWebAuthenticationSession`, the window it is presented from, and its outcome.
@MainActor
private final class WebSignInSession: NSObject, ASWebAuthenticationPresentationContextProviding {
    /// The callback URL; `webContextCancelled` when the user closes the page (or the caller gives up).
    nonisolated let outcome = OneShot<Result<URL, any Error>>()
    private let anchor: ASPresentationAnchor
    private var session: ASWebAuthenticationSession?

    private init(anchor: ASPresentationAnchor) {
        self.anchor = anchor
    }

    /// Shows `url` from the key window. Throws `webInternalError` without a key window, or when the session
    /// does not start.
    static func start(url: URL, callbackURLScheme: String) throws -> WebSignInSession {
        guard let anchor = keyWindow else {
            throw AuthErrorUtils.error(.webInternalError, message: "The app has no key window to show the sign-in page from.")
        }
        let presenter = WebSignInSession(anchor: anchor)
        let outcome = presenter.outcome
        // @Sendable: the completion handler is not isolated to the main actor, whatever queue calls it.
        let session = ASWebAuthenticationSession(url: url, callbackURLScheme: callbackURLScheme) { @Sendable callbackURL, error in
            outcome.resolve(WebSignInSession.result(callbackURL: callbackURL, error: error))
        }
        session.presentationContextProvider = presenter
        session.prefersEphemeralWebBrowserSession = false
        presenter.session = session
        guard session.start() else {
            throw AuthErrorUtils.error(.webInternalError, message: "The sign-in page could not be shown.")
        }
        return presenter
    }

    /// Ends the session as if the user had closed the page.
    func cancel() {
        outcome.resolve(.failure(AuthErrorUtils.error(.webContextCancelled)))
        session?.cancel()
    }

    func presentationAnchor(for _: ASWebAuthenticationSession) -> ASPresentationAnchor {
        anchor
    }

    /// What the session's completion handler reports: the callback URL, `webContextCancelled` when the user
    /// closed the page, `webInternalError` for any other failure.
    private nonisolated static func result(callbackURL: URL?, error: (any Error)?) -> Result<URL, any Error> {
        if let callbackURL {
            return .success(callbackURL)
        }
        if let error = error as? ASWebAuthenticationSessionError, error.code == .canceledLogin {
            return .failure(AuthErrorUtils.error(.webContextCancelled))
        }
        var info: [String: Any] = [:]
        info[NSUnderlyingErrorKey] = error
        return .failure(AuthErrorUtils.error(.webInternalError, message: "The sign-in page failed.", userInfo: info))
    }

    /// The window the user is working in.
    private static var keyWindow: ASPresentationAnchor? {
        #if canImport(UIKit)
        UIApplication.shared.connectedScenes.compactMap { ($0 as? UIWindowScene)?.keyWindow }.first
        #else
        NSApplication.shared.keyWindow ?? NSApplication.shared.mainWindow
        #endif
    }
}
#endif
