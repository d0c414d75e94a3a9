import Foundation

/// Shows and takes away the web page of a web flow; built from the app's `AuthUIDelegate`.
protocol WebPagePresenter: Sendable {
    /// Shows `url`. `userDidCancel` is called if the user closes the page before it finishes.
    func present(_ url: URL, userDidCancel: @escaping @Sendable () -> Void)
    /// Takes the page away once the flow has its answer.
    func dismiss()
}

/// The web flow of an `Auth` (at most one at a time): a page shown to the user that ends by opening
/// `{scheme}://firebaseauth/link?deep_link_id=…`, which the app hands to `Auth.canHandle(_:)`.
final class WebFlowCoordinator: Sendable {
    private struct Flow: Sendable {
        let eventID: String
        let authType: String
        let callbackScheme: String
        let presenter: any WebPagePresenter
        let outcome: OneShot<Result<URL, any Error>>
    }

    private let current = Locked<Flow?>(nil)

    /// Shows `url` and returns the callback URL the app passes to `canHandle(_:)`.
    /// Throws `webContextAlreadyPresented` if another flow is showing, `webContextCancelled` if the user
    /// closes the page (or the calling task is cancelled).
    func run(_ url: URL, eventID: String, authType: String, callbackScheme: String,
             presenter: any WebPagePresenter) async throws -> URL {
        let outcome = OneShot<Result<URL, any Error>>()
        let flow = Flow(eventID: eventID, authType: authType, callbackScheme: callbackScheme, presenter: presenter,
                        outcome: outcome)
        try current.withLock { current in
            guard current == nil else { throw AuthErrorUtils.error(.webContextAlreadyPresented) }
            current = flow
        }
        defer {
            current.withLock { current in
                if current?.outcome === outcome { current = nil }
            }
        }
        presenter.present(url) {
            outcome.resolve(.failure(AuthErrorUtils.error(.webContextCancelled)))
        }
        let result = await withTaskCancellationHandler {
            await outcome.wait()
        } onCancel: {
            if outcome.resolve(.failure(AuthErrorUtils.error(.webContextCancelled))) {
                presenter.dismiss()
            }
        }
        return try result.get()
    }

    /// Finishes the flow if `url` is its callback: takes the page away and returns true.
    func handle(_ url: URL) -> Bool {
        let flow: Flow? = current.withLock { current in
            guard let flow = current,
                  Self.isCallback(url, eventID: flow.eventID, authType: flow.authType, callbackScheme: flow.callbackScheme)
            else { return nil }
            current = nil
            return flow
        }
        guard let flow else { return false }
        if flow.outcome.resolve(.success(url)) {
            flow.presenter.dismiss()
        }
        return true
    }

    /// Whether `url` is `{callbackScheme}://firebaseauth/link?deep_link_id=<URL>` where the inner URL's
    /// query has `authType` and `eventId` as given.
    static func isCallback(_ url: URL, eventID: String, authType: String, callbackScheme: String) -> Bool {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
              components.scheme?.lowercased() == callbackScheme.lowercased(),
              components.host?.lowercased() == "firebaseauth",
              components.path == "/link",
              let inner = deepLinkQuery(of: components)
        else { return false }
        return inner["authType"] == authType && inner["eventId"] == eventID
    }

    /// The value named `name` in the deep link of `callback`; else the error the page reported as `firebaseError`
    /// (`{"code":"auth/…","message":…}`). `failure` makes the error of a callback without either, with an
    /// unreadable error, or with a code FirebaseAuth has no error for: the failure of the flow's user interaction.
    static func deepLinkValue(_ name: String, of callback: URL, failure: (String) -> NSError) throws -> String {
        guard let components = URLComponents(url: callback, resolvingAgainstBaseURL: false),
              let query = deepLinkQuery(of: components)
        else { throw failure("The callback URL carries no deep link: \(callback)") }
        if let value = query[name], !value.isEmpty {
            return value
        }
        guard let json = query["firebaseError"] else {
            throw failure("The callback URL carries neither \(name) nor an error: \(callback)")
        }
        struct WebError: Decodable {
            var code: String
            var message: String?
        }
        guard let error = try? JSONDecoder().decode(WebError.self, from: Data(json.utf8)) else {
            throw failure("The page reported an unreadable error: \(json)")
        }
        throw AuthErrorUtils.webError(code: error.code, message: error.message, otherwise: failure)
    }

    /// The query items of the URL in `deep_link_id`, by name (the first of each name).
    static func deepLinkQuery(of components: URLComponents) -> [String: String]? {
        guard let deepLink = components.queryItems?.first(where: { $0.name == "deep_link_id" })?.value,
              let inner = URLComponents(string: deepLink)
        else { return nil }
        var items: [String: String] = [:]
        for item in inner.queryItems ?? [] where items[item.name] == nil {
            items[item.name] = item.value ?? ""
        }
        return items
    }
}
