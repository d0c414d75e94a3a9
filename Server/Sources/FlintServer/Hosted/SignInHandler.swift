import FlintWire
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore

/// The redirect flow through the hosted handler page (`/__/auth/handler`), as Firebase's SDKs open it: the page sends
/// the browser to the provider and, when the provider sends it back, on to the app.
///
/// 1. `GET /__/auth/handler?apiKey=…&authType=signInWithRedirect&providerId=…&sessionId=<hex SHA-256 of the app's
///    session ID>&eventId=…&clientId=…|appId=…[&scopes=a,b][&customParameters={…}]` (the iOS SDK), or with
///    `authType=signInViaRedirect|signInViaPopup&redirectUrl=<a page on an authorized domain>` (a web page): a new
///    flow (`AuthorizationCodeFlow`) whose redirect URI is this page; 302 to the provider.
/// 2. `GET /__/auth/handler?code=…&state=…` (or `error=…`), the provider's return (a SAML IdP's: `POST` with
///    `SAMLResponse` and `RelayState`, `samlReturned`): 302 to the app with the `link`
///    to finish the flow with, `accounts:signInWithIdp` with `requestUri` = link and `sessionId` = the app's session
///    ID. The iOS SDK's shape: `{scheme}://firebaseauth/link?deep_link_id=…`, the deep link's query carrying
///    `authType`, `eventId` and `link` (or `firebaseError`); a web page gets the same fields in its URL's fragment.
///
/// The link alone signs no one in: the exchange needs the session ID, which never leaves the app.
struct SignInHandler: Sendable {
    let federated: FederatedService
    let callers: CallerResolver
    /// The server's external base URL (`AuthServer.publicURL`).
    let address: PublicAddress

    /// The iOS SDK's redirect flow.
    static let appAuthType = "signInWithRedirect"
    /// The web SDK's flows.
    static let webAuthTypes: Set<String> = ["signInViaRedirect", "signInViaPopup"]
    static let callbackPath = "/__/auth/callback"

    typealias Query = FlatDictionary<Substring, Substring>

    /// Whether `query` starts or returns from a sign-in (anything else on the handler is app verification).
    static func handles(_ query: Query) -> Bool {
        guard let authType = query.get("authType") else { return query.get("state") != nil }
        return authType == appAuthType || webAuthTypes.contains(authType)
    }

    func page(_ request: Request) async throws -> Response {
        let query = request.uri.queryParameters
        return query.get("authType") == nil ? try providerReturned(query) : try await start(query)
    }

    // MARK: Going to the provider

    private func start(_ query: Query) async throws -> Response {
        let authType = query.get("authType") ?? ""
        guard let apiKey = query.get("apiKey"), !apiKey.isEmpty, apiKey.utf8.count <= 256,
              let project = try await callers.project(forAPIKey: apiKey)
        else { return Self.refuse("The API key is not valid.") }
        // An app of a tenant names it (`tid`): the flow then uses the tenant's provider, and finishes in the tenant.
        let caller: Caller
        do {
            caller = try await callers.scoped(Caller(project: project, isAdmin: false),
                                              toTenant: query.get("tid").flatMap { $0.isEmpty ? nil : $0 })
        } catch let error as FlintError {
            return Self.refuse(error.message)
        }
        guard let eventID = query.get("eventId"), VerifyAppRequest.isValidEventID(eventID) else {
            return Self.refuse("eventId is required (letters, digits, - and _).")
        }
        let destination: AuthorizationCodeFlow.HandlerReturn
        if authType == Self.appAuthType {
            // Only the API key's project's own apps (a tenant's are its project's): see `RegisteredApps`.
            do {
                let scheme = try RegisteredApps.callbackScheme(for: RegisteredApps.Claim(query), in: project.settings.apps)
                destination = .init(authType: authType, eventID: eventID, callbackScheme: scheme)
            } catch {
                return Self.refuse(error.detail)
            }
        } else {
            // A web page: the answer goes to its URL's fragment, on an authorized domain, never to a scheme.
            guard let page = query.get("redirectUrl").flatMap({ ActionRoutes.allowedContinueURL($0, settings: caller.project.settings) }) else {
                return Self.refuse("redirectUrl must be a page on one of the project's authorized domains.")
            }
            destination = .init(authType: authType, eventID: eventID, webRedirectURL: page)
        }
        // From here on, what goes wrong is the app's to show: it goes back to the app as `firebaseError`.
        do {
            guard let sessionHash = query.get("sessionId")?.lowercased(), sessionHash.utf8.count == 64,
                  sessionHash.unicodeScalars.allSatisfy({ $0.properties.isASCIIHexDigit })
            else { throw FlintError(.invalidArgument, "sessionId must be the hex SHA-256 of the app's session ID.") }
            let customParameters: [String: String]
            do {
                customParameters = try query.get("customParameters").map { try JSONDecoder().decode([String: String].self, from: Data($0.utf8)) } ?? [:]
            } catch {
                throw FlintError(.invalidArgument, "customParameters must be a JSON object of strings.")
            }
            let authURI = try await federated.startRedirectFlow(
                providerID: (query.get("providerId") ?? "").lowercased(), redirectURI: address.url + HostedRoutes.handlerPath,
                sessionHash: sessionHash, scopes: (query.get("scopes") ?? "").split(separator: ",").map(String.init),
                customParameters: customParameters, handlerReturn: destination, caller: caller)
            return Self.redirect(to: authURI)
        } catch let error as FlintError {
            return try back(to: destination, with: .failure(WebError(error)))
        }
    }

    // MARK: Back from the provider

    private func providerReturned(_ query: Query) throws -> Response {
        let session: AuthorizationCodeFlow.Session
        do {
            session = try federated.codeFlow.open(state: query.get("state"), projectID: nil).payload
        } catch let error as FlintError {
            return Self.refuse(error.message)
        }
        guard let destination = session.handlerReturn else { return Self.refuse("This sign-in did not start on this page.") }
        if let error = query.get("error") {
            let description = query.get("error_description").map { ": \($0)" } ?? ""
            return try back(to: destination, with: .failure(error == "access_denied"
                ? WebError(code: "auth/user-cancelled", message: "The user did not grant access\(description)")
                : WebError(code: "auth/invalid-credential", message: "The provider refused the sign-in (\(error))\(description)")))
        }
        // The URL the provider sent the browser to, for `signInWithIdp` to read the code and state from.
        let fields = ["code", "state"].compactMap { name in query.get(name).map { (name, $0) } }
        return try back(to: destination, with: .success(session.redirectURI + "?" + FormURLEncoding.encode(fields)))
    }

    // MARK: Back from a SAML IdP

    /// `POST /__/auth/handler` with `SAMLResponse` and `RelayState` (the HTTP-POST binding): the browser goes on to the
    /// app with the link naming both by short handles, for `signInWithIdp`, which checks everything. Here only the
    /// sealed session the `RelayState` names is opened, to know where the browser goes.
    func samlReturned(_ request: Request) async throws -> Response {
        let form: [String: String]
        do {
            form = try await FormBody.fields(of: request, upTo: SAMLSignIn.maximumEncodedLength + 4096)
        } catch {
            return Self.refuse("The SAML response is too large.")
        }
        guard let samlResponse = form["SAMLResponse"], !samlResponse.isEmpty else {
            return Self.refuse("The IdP sent no SAMLResponse.")
        }
        guard let relayState = form["RelayState"], !relayState.isEmpty else {
            return Self.refuse("An IdP-initiated SAML response goes to the app's own callback URL, not to this page.")
        }
        let opened: SingleUseTokens<SAMLSignIn.Session>.Opened
        do {
            opened = try await federated.saml.open(relayState: relayState)
        } catch let error as FlintError {
            return Self.refuse(error.message)
        }
        // The response stays here; the link names it by a short handle (see `SAMLSignIn`).
        let session = opened.payload
        let responseHandle = try await federated.saml.keep(samlResponse, for: opened)
        let link = session.redirectURI + (session.redirectURI.contains("?") ? "&" : "?")
            + FormURLEncoding.encode([(SAMLSignIn.responseHandleField, responseHandle), ("RelayState", relayState)])
        guard let destination = session.handlerReturn else { return Self.redirect(to: link) }
        return try back(to: destination, with: .success(link))
    }

    /// Sends the browser back to the app with the link, or the error.
    private func back(to destination: AuthorizationCodeFlow.HandlerReturn, with outcome: Result<String, WebError>) throws -> Response {
        var fields = [("authType", destination.authType), ("eventId", destination.eventID)]
        switch outcome {
        case .success(let link):
            fields.append(("link", link))
        case .failure(let error):
            let body = ["code": error.code, "message": error.message]
            fields.append(("firebaseError", String(decoding: try JSONEncoder().encode(body), as: UTF8.self)))
        }
        if let scheme = destination.callbackScheme {
            let deepLink = address.url + Self.callbackPath + "?" + FormURLEncoding.encode(fields)
            return Self.redirect(to: "\(scheme)://firebaseauth/link?" + FormURLEncoding.encode([("deep_link_id", deepLink)]))
        }
        guard let page = destination.webRedirectURL, var url = URLComponents(string: page) else {
            return Self.refuse("The sign-in has nowhere to return to.")
        }
        url.percentEncodedFragment = FormURLEncoding.encode(fields)
        return Self.redirect(to: url.string ?? page)
    }

    /// An error as the SDKs read it from `firebaseError`: an `auth/…` code and a message.
    struct WebError: Error {
        var code: String
        var message: String

        init(code: String, message: String) {
            self.code = code
            self.message = message
        }

        init(_ error: FlintError) {
            message = error.message
            code = if error.is(.operationNotAllowed) {
                "auth/operation-not-allowed"
            } else if error.is(.invalidProviderID) {
                "auth/invalid-provider-id"
            } else if error.is(.invalidArgument) || error.is(.invalidProviderConfig) {
                "auth/argument-error"
            } else if error.is(.invalidIDPResponse) {
                "auth/invalid-credential"
            } else {
                "auth/internal-error"
            }
        }
    }

    private static func redirect(to location: String) -> Response {
        var headers = HostedPage.securityHeaders(contentSecurityPolicy: "default-src 'none'")
        headers[.location] = location
        return Response(status: .found, headers: headers)
    }

    /// A request the page cannot return anywhere: a page saying what is wrong.
    private static func refuse(_ detail: String) -> Response {
        let messages = CaptchaPage.messages(for: nil)
        return HostedPage.response(CaptchaPage.errorHTML(detail, messages: messages), status: .badRequest,
                                   contentSecurityPolicy: CaptchaPage.errorContentSecurityPolicy)
    }
}
