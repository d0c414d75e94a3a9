import FlintWire
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The pages emailed links open, as Firebase Hosting serves them on an app's auth domain:
///
/// - `GET /__/auth/action?mode=…&oobCode=…&apiKey=…[&continueUrl=…][&lang=…]`: for `signIn`, a 303 to the
///   `continueUrl` (on an authorized domain) with the link's parameters, which is how the link reaches the
///   app; for the other modes a page whose script applies the code through the public REST API.
/// - `GET /__/auth/links?link=<action URL>`: what a browser sees when a universal/app link did not open
///   the app: a 303 to the inner link, only if it is this server's own action page.
struct ActionRoutes: Sendable {
    let callers: CallerResolver
    /// The server's external base URL (`AuthServer.publicURL`).
    let address: PublicAddress

    static let actionPath = "/__/auth/action"
    static let linksPath = "/__/auth/links"

    var endpoints: [Endpoint] {
        let routes = self
        return [
            Endpoint(method: .get, paths: [Self.actionPath],
                     contract: .page(query: ["mode", "oobCode", "apiKey", "continueUrl", "lang", "tenantId"])) { request, _ in try await routes.action(request) },
            Endpoint(method: .get, paths: [Self.linksPath], contract: .page(query: ["link"])) { request, _ in routes.links(request) },
        ]
    }

    /// The parameters `signIn` carries on to the `continueUrl`, as the emulator does.
    static let carriedParameters = ["apiKey", "oobCode", "mode", "lang", "tenantId"]

    func action(_ request: Request) async throws -> Response {
        let query = request.uri.queryParameters
        let messages = ActionPage.messages(for: query.get("lang"))
        func refuse(_ detail: String) -> Response {
            Self.html(ActionPage.errorHTML(detail, messages: messages), status: .badRequest, scripted: false)
        }
        let modeName = query.get("mode") ?? ""
        guard modeName == "signIn" || ActionPage.Mode(rawValue: modeName) != nil else { return refuse(messages.unknownMode) }
        guard let code = query.get("oobCode"), !code.isEmpty, code.utf8.count <= 512 else { return refuse(messages.missingCode) }
        guard let apiKey = query.get("apiKey"), !apiKey.isEmpty, apiKey.utf8.count <= 256 else {
            return refuse(messages.missingAPIKey)
        }
        guard let project = try await callers.project(forAPIKey: apiKey) else { return refuse(messages.invalidAPIKey) }
        let continueURL = query.get("continueUrl").flatMap { $0.isEmpty ? nil : $0 }
        let allowedContinueURL = continueURL.flatMap { Self.allowedContinueURL($0, settings: project.settings) }

        guard let mode = ActionPage.Mode(rawValue: modeName) else {
            // signIn: hand the link over to the app (or web page) at continueUrl.
            guard let target = allowedContinueURL, var components = URLComponents(string: target) else {
                return refuse(messages.unauthorizedContinue)
            }
            let carried = Self.carriedParameters.compactMap { name in query.get(name).map { URLQueryItem(name: name, value: $0) } }
            components.percentEncodedQueryItems = (components.percentEncodedQueryItems ?? [])
                + carried.map { URLQueryItem(name: $0.name, value: FormURLEncoding.escape($0.value ?? "")) }
            guard let location = components.string else { return refuse(messages.unauthorizedContinue) }
            return Response(status: .seeOther, headers: [.location: location, .cacheControl: "no-store",
                                                          .referrerPolicy: "no-referrer"])
        }
        // A tenant's link names it; the page's calls then act in that tenant (an unknown one fails there, plainly).
        let tenantID = query.get("tenantId").flatMap { Realm.isValidTenantID($0) ? $0 : nil }
        let configuration = ActionPage.Configuration(mode: mode, oobCode: code, apiKey: apiKey, tenantId: tenantID,
                                                     messages: messages.script)
        return Self.html(try ActionPage.html(configuration, continueURL: allowedContinueURL, messages: messages),
                         status: .ok, scripted: true)
    }

    /// The inner link when it is this server's own action page (the request's origin or the public URL),
    /// as a path on this server; anything else is refused (no open redirect).
    func links(_ request: Request) -> Response {
        let messages = ActionPage.messages(for: nil)
        guard let link = request.uri.queryParameters.get("link"),
              let inner = URLComponents(string: link), inner.path == Self.actionPath,
              let scheme = inner.scheme?.lowercased(), scheme == "http" || scheme == "https",
              inner.user == nil, inner.password == nil, let host = inner.host?.lowercased(), !host.isEmpty,
              isOwnOrigin(scheme: scheme, host: host, port: inner.port, request: request)
        else {
            return Self.html(ActionPage.errorHTML(messages.foreignLink, messages: messages), status: .badRequest, scripted: false)
        }
        var location = Self.actionPath
        if let query = inner.percentEncodedQuery, !query.isEmpty { location += "?" + query }
        return Response(status: .seeOther, headers: [.location: location, .cacheControl: "no-store",
                                                      .referrerPolicy: "no-referrer"])
    }

    private func isOwnOrigin(scheme: String, host: String, port: Int?, request: Request) -> Bool {
        let defaultPort = scheme == "https" ? 443 : 80
        let hostAndPort = port.map { "\(host):\($0)" } ?? host
        let hostAndDefaultPort = "\(host):\(port ?? defaultPort)"
        // The request's own origin (its Host header; the scheme is the proxy's business).
        if let authority = request.head.authority?.lowercased(),
           authority == hostAndPort || authority == hostAndDefaultPort || (port == defaultPort && authority == host) {
            return true
        }
        // The configured public URL.
        if let base = URLComponents(string: address.url), base.scheme?.lowercased() == scheme,
           base.host?.lowercased() == host, (base.port ?? defaultPort) == (port ?? defaultPort) {
            return true
        }
        return false
    }

    /// `continueUrl` when it is http(s) on one of the project's authorized domains.
    static func allowedContinueURL(_ raw: String, settings: ProjectSettings) -> String? {
        guard raw.utf8.count <= 2048, let url = URLComponents(string: raw),
              let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              url.user == nil, url.password == nil, let host = url.host?.lowercased(), !host.isEmpty,
              settings.authorizedDomains.contains(where: { $0.lowercased() == host })
        else { return nil }
        return raw
    }

    static func html(_ text: String, status: HTTPResponse.Status, scripted: Bool) -> Response {
        HostedPage.response(text, status: status, contentSecurityPolicy: scripted
            ? ActionPage.contentSecurityPolicy : ActionPage.errorContentSecurityPolicy)
    }
}
