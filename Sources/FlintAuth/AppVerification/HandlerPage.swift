import Foundation

/// The page FirebaseAuth's web flows open on the app's auth domain, `/__/auth/handler`: the reCAPTCHA of phone
/// sign-in (`authType=verifyApp`) and the providers' redirect flow (`authType=signInWithRedirect`). It ends by
/// opening `{callbackScheme}://firebaseauth/link?deep_link_id=…` (see `WebFlowCoordinator`).
enum HandlerPage {
    static let path = "/__/auth/handler"

    /// How the page knows the app (its `clientId` or `appId` parameter), and so the URL scheme it returns through.
    struct App: Sendable {
        let queryItem: URLQueryItem
        let callbackScheme: String

        /// By OAuth client ID; the scheme is the reversed ID (`123-abc.apps.googleusercontent.com` →
        /// `com.googleusercontent.apps.123-abc`).
        init(clientID: String) {
            queryItem = URLQueryItem(name: "clientId", value: clientID)
            callbackScheme = clientID.split(separator: ".", omittingEmptySubsequences: false).reversed().joined(separator: ".")
        }

        /// By app ID; the scheme is `app-` and the ID with `:` replaced by `-` (`1:123:ios:abc` → `app-1-123-ios-abc`).
        init(appID: String) {
            queryItem = URLQueryItem(name: "appId", value: appID)
            callbackScheme = "app-" + appID.replacingOccurrences(of: ":", with: "-")
        }

        /// FirebaseAuth's choice: by client ID when the app has one and registers its scheme in the main bundle's
        /// `CFBundleURLTypes`, else by app ID. Flint: when the bundle registers no URL scheme at all (as on Linux),
        /// a client ID is used as it is.
        static func of(clientID: String?, appID: String) -> App {
            guard let clientID, !clientID.isEmpty else { return App(appID: appID) }
            let byClientID = App(clientID: clientID)
            let registered = registeredURLSchemes
            return registered.isEmpty || registered.contains(byClientID.callbackScheme.lowercased())
                ? byClientID : App(appID: appID)
        }

        /// The URL schemes of the main bundle's `CFBundleURLTypes`, lowercased.
        private static var registeredURLSchemes: Set<String> {
            let types = Bundle.main.object(forInfoDictionaryKey: "CFBundleURLTypes") as? [[String: Any]] ?? []
            return Set(types.flatMap { $0["CFBundleURLSchemes"] as? [String] ?? [] }.map { $0.lowercased() })
        }
    }

    /// Ten random capital letters: the event and session IDs of the web flows, as FirebaseAuth makes them.
    static func randomID() -> String {
        let letters = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
        return String((0..<10).map { _ in letters.randomElement()! })
    }

    /// The bundle ID the page receives as `ibi`.
    static func bundleID(of app: FirebaseApp?) -> String {
        app?.configuration.bundleID ?? Bundle.main.bundleIdentifier ?? ""
    }

    /// Where the page is served: the Flint server (or emulator) `backend` sends its requests to, or, on Google's
    /// hosts, the project's `firebaseapp.com` (else `web.app`) domain.
    static func site(of backend: AuthBackend) async throws -> String {
        if let base = backend.configuration.baseURL?.absoluteString {
            return base.hasSuffix("/") ? String(base.dropLast()) : base
        }
        let domains = try await backend.authorizedDomains()
        guard let domain = domains.first(where: { $0.hasSuffix("firebaseapp.com") })
            ?? domains.first(where: { $0.hasSuffix("web.app") })
        else {
            throw AuthErrorUtils.error(.unauthorizedDomain,
                                       message: "The project has no firebaseapp.com or web.app domain for the web page.")
        }
        return "https://" + domain
    }

    /// `page` for one run of a web flow: `apiKey`, `authType`, `ibi`, `v`, `eventId` and the app's `clientId` or
    /// `appId`, then the flow's own `items`, then `hl` when the app set a language.
    static func url(_ page: String, auth: Auth, authType: String, eventID: String, app: App, items: [URLQueryItem] = [])
        throws -> URL {
        let configuration = auth.backend.configuration
        var query = [
            URLQueryItem(name: "apiKey", value: configuration.apiKey),
            URLQueryItem(name: "authType", value: authType),
            URLQueryItem(name: "ibi", value: bundleID(of: auth.app)),
            URLQueryItem(name: "v", value: AuthBackend.clientVersion),
            URLQueryItem(name: "eventId", value: eventID),
            app.queryItem,
        ] + items
        if let languageCode = configuration.languageCode {
            query.append(URLQueryItem(name: "hl", value: languageCode))
        }
        return try url(page, query: query)
    }

    /// `page` with the query `items`.
    static func url(_ page: String, query items: [URLQueryItem]) throws -> URL {
        guard var components = URLComponents(string: page) else {
            throw AuthErrorUtils.internalError(response: "Invalid web page URL \(page)")
        }
        components.queryItems = items
        // URLComponents leaves `+` alone in queries; the page would read it as a space.
        components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        guard let url = components.url else {
            throw AuthErrorUtils.internalError(response: "Invalid web page URL \(page)")
        }
        return url
    }
}
