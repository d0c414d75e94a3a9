import FlintWire
import Foundation
import HTTPTypes
import Hummingbird

/// The pages the official SDKs open for social sign-in in emulator mode, standing in for Google's, GitHub's and every
/// other provider's own (emulator mode only).
///
/// - `GET /emulator/auth/handler?apiKey=…&providerId=…&authType=…&…`: an account chooser listing the project's
///   accounts of that provider and a form to add one. The choice goes back to the app as the unsigned claims that
///   `signInWithIdp` takes in emulator mode, in the shape `authType` and the app's parameters ask for: a popup's opener
///   frame, the redirect's session storage, the iOS SDK's deep link (`clientId`/`appId`/`ibi`) or the Android SDK's
///   intent (`apn`). The element ids and texts are the official page's, so end-to-end suites that drive it by them
///   pass unchanged.
/// - `GET /emulator/auth/iframe?apiKey=…&appName=…`: the web SDK's hidden frame, which passes the event on.
///
/// Both have strict headers: scripts and styles by hash only, every shown value HTML-escaped (display names are
/// anyone's input), the chooser never framed, the frame only by the project's authorized domains.
struct EmulatorSignInPages: Sendable {
    let accounts: AccountStore
    let callers: CallerResolver

    static let handlerPath = "/emulator/auth/handler"
    static let iframePath = "/emulator/auth/iframe"
    /// The chooser lists at most this many accounts.
    static let listedAccounts = 200

    var endpoints: [Endpoint] {
        let pages = self
        return [
            Endpoint(method: .get, paths: [Self.handlerPath], contract: .page(query: [
                "apiKey", "providerId", "authType", "appName", "redirectUrl", "eventId", "tid", "tenantId", "clientId", "appId",
                "apn", "ibi", "scopes", "customParameters", "sessionId", "v", "hl", "error",
            ])) { request, _ in try await pages.handler(request.uri.queryParameters) },
            Endpoint(method: .get, paths: [Self.iframePath], contract: .page(query: ["apiKey", "appName", "v"])) { request, _ in
                try await pages.iframe(request.uri.queryParameters)
            },
        ]
    }

    // MARK: The account chooser

    private func handler(_ query: SignInHandler.Query) async throws -> Response {
        guard let apiKey = query.get("apiKey"), !apiKey.isEmpty, let providerID = query.get("providerId"), !providerID.isEmpty,
              providerID.utf8.count <= 128
        else { return Self.refusal("missing apiKey or providerId query parameters") }
        guard let project = try await callers.project(forAPIKey: apiKey) else { return Self.refusal("invalid apiKey") }
        let identities = try await accounts.identities(projectID: project.id, providerID: providerID, limit: Self.listedAccounts)
        let html = Self.chooser(provider: providerID.prefix(1).uppercased() + providerID.dropFirst(), identities: identities)
        return Self.response(html, contentSecurityPolicy: [
            "default-src 'none'", "script-src '\(HostedPage.hash(EmulatorSignInScripts.handler))'",
            "style-src '\(HostedPage.hash(EmulatorSignInScripts.style))'", "img-src https: http: data:", "base-uri 'none'",
            "form-action 'none'", "frame-ancestors 'none'",
        ], frameable: false)
    }

    /// The claims an account's choice hands back, as the official page makes them.
    private static func claims(_ identity: FederatedIdentity) -> String {
        var claims: [String: JSONValue] = [
            "sub": .string(identity.rawID), "iss": "", "aud": "", "exp": .number(0), "iat": .number(0), "email_verified": true,
        ]
        claims["name"] = identity.displayName.map(JSONValue.string)
        claims["screen_name"] = identity.screenName.map(JSONValue.string)
        claims["email"] = identity.email.map(JSONValue.string)
        claims["picture"] = identity.photoURL.map(JSONValue.string)
        let json = (try? JSONBody.encoder.encode(JSONValue.object(claims))).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        return FormURLEncoding.escape(json)
    }

    private static func chooser(provider: String, identities: [FederatedIdentity]) -> String {
        let provider = HTML.escape(provider)
        let accounts = identities.map { identity in
            let graphic = identity.photoURL.map {
                "<img class=\"mdc-list-item__graphic profile-photo\" src=\"\(HTML.escape($0))\" alt=\"\">"
            } ?? "<span class=\"mdc-list-item__graphic\" aria-hidden=\"true\"></span>"
            return """
                <li class="js-reuse-account mdc-list-item" tabindex="0" data-id-token="\(HTML.escape(claims(identity)))">
                  \(graphic)
                  <span class="mdc-list-item__text"><span class="mdc-list-item__primary-text">\(HTML.escape(identity.displayName ?? "(No display name)"))</span>
                  <span class="mdc-list-item__secondary-text" id="reuse-email">\(HTML.escape(identity.email ?? ""))</span></span>
                </li>
                """
        }.joined(separator: "\n")
        let help = identities.isEmpty ? "No \(provider) accounts exist in the Auth Emulator."
            : "Please select an existing account in the Auth Emulator or add a new one:"
        return HostedPage.document(language: "en", title: "Auth Emulator IDP Login Widget", style: EmulatorSignInScripts.style, body: """
            <div id="content">
              <div id="title"><span>Sign-in with <span class="js-provider-id provider-name">\(provider)</span></span></div>
              <div id="accounts-list">
                <div class="callout callout-warning js-signin-warning" hidden><div class="content"></div></div>
                <p class="subtitle js-accounts-help-text">\(help)</p>
                <ul class="mdc-list list">
            \(accounts)
                  <li id="add-account-button" class="js-new-account mdc-list-item">
                    <button class="mdc-button mdc-button--outlined" type="button"><span class="mdc-button__label">Add new account</span></button>
                  </li>
                </ul>
                <button id="cancel-button" type="button">Cancel</button>
              </div>
              <div id="add-user" hidden>
                <div class="callout">Custom claims can be added after an account is created</div>
                <button id="autogen-button" type="button"><span class="mdc-button__label">Auto-generate user information</span></button>
                <form id="main-form" novalidate>
                  <label for="email-input">Email</label>
                  <input id="email-input" type="text" autocomplete="off">
                  <span class="error-info" id="email-error"></span>
                  <label for="display-name-input">Display name (optional)</label>
                  <input id="display-name-input" type="text" autocomplete="off">
                  <label for="screen-name-input">Screen name (optional)</label>
                  <input id="screen-name-input" type="text" autocomplete="off">
                  <label for="profile-photo-input">Profile photo URL (optional)</label>
                  <input id="profile-photo-input" type="text" autocomplete="off">
                  <label for="sub-input">Provider user ID (optional; a random one otherwise)</label>
                  <input id="sub-input" type="text" autocomplete="off">
                  <div id="main-action">
                    <button id="back-button" type="button"><span class="mdc-button__label">Back</span></button>
                    <button id="sign-in" type="submit" disabled><span class="mdc-button__label">Sign in with <span class="js-provider-id provider-name">\(provider)</span></span></button>
                  </div>
                </form>
              </div>
            </div>
            </main>
            <script>\(EmulatorSignInScripts.handler)</script>
            """)
    }

    // MARK: The SDK's frame

    private func iframe(_ query: SignInHandler.Query) async throws -> Response {
        guard let apiKey = query.get("apiKey"), !apiKey.isEmpty, let appName = query.get("appName"), !appName.isEmpty else {
            return Self.refusal("missing apiKey or appName query parameters")
        }
        guard let project = try await callers.project(forAPIKey: apiKey) else { return Self.refusal("invalid apiKey") }
        // Framed by the app's pages only: the project's authorized domains, on any port.
        let ancestors = project.settings.authorizedDomains.filter(Self.isHostName).flatMap { ["http://\($0):*", "https://\($0):*"] }
        let html = """
            <!DOCTYPE html>
            <html lang="en">
            <head><meta charset="utf-8"><meta name="robots" content="noindex"><title>Auth Emulator Helper Iframe</title></head>
            <body>
            <script>\(EmulatorSignInScripts.iframe)</script>
            <script src="https://apis.google.com/js/api.js"></script>
            </body>
            </html>

            """
        return Self.response(html, contentSecurityPolicy: [
            "default-src 'none'", "script-src '\(HostedPage.hash(EmulatorSignInScripts.iframe))' https://apis.google.com",
            "frame-src https://apis.google.com", "base-uri 'none'", "form-action 'none'",
            "frame-ancestors 'self'" + ancestors.map { " " + $0 }.joined(),
        ], frameable: true)
    }

    /// A host name CSP can take as is: letters, digits, dots and hyphens.
    private static func isHostName(_ domain: String) -> Bool {
        !domain.isEmpty && domain.unicodeScalars.allSatisfy {
            $0.isASCII && ($0.properties.isAlphabetic || $0.properties.numericType != nil || $0 == "." || $0 == "-")
        }
    }

    // MARK: Answers

    /// The hosted pages' headers, except that the chooser keeps its opener (the popup flow needs `window.opener`) and
    /// the frame is framed as `frame-ancestors` says (no `X-Frame-Options`, which would forbid it everywhere).
    private static func response(_ html: String, contentSecurityPolicy: [String], frameable: Bool) -> Response {
        var headers = HostedPage.securityHeaders(contentSecurityPolicy: contentSecurityPolicy.joined(separator: "; "))
        headers[.crossOriginOpenerPolicy] = "unsafe-none"
        if frameable { headers[.xFrameOptions] = nil }
        headers[.contentType] = "text/html; charset=utf-8"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: html)))
    }

    /// The official emulator's answer to a request it cannot serve: 400 with `{"authEmulator": {"error": …}}`.
    private static func refusal(_ error: String) -> Response {
        var headers = HostedPage.securityHeaders(contentSecurityPolicy: "default-src 'none'")
        headers[.contentType] = "application/json"
        let body = (try? JSONBody.encoder.encode(["authEmulator": ["error": error]])) ?? Data()
        return Response(status: .badRequest, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }
}
