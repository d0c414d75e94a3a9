import FlintWire
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// Flint's own sign-in, consent and signed-out pages of the provider. The sign-in page is a client of the same REST API
/// apps use (its script calls `accounts:signInWithPassword`, `accounts:signUp`, `mfaSignIn:finalize`… with the
/// project's API key), so every rule, budget, blocking function and enumeration protection of those calls holds on it;
/// it then hands the ID token it got to `/__/oauth/session`. Every form is labelled, has one submit button and the
/// standard `autocomplete` tokens, so password managers and outside test suites fill it without knowing it. Script
/// and style are allowed by hash, and no page can be framed.
enum ProviderPages {
    /// How a realm's pages look (`oauthServer` settings).
    struct Brand: Sendable {
        var name: String
        var logoURL: String?
        /// A checked `#rrggbb` colour.
        var accentColor: String

        init(_ realm: Project) {
            let settings = realm.settings.oauthServer
            name = settings?.brandName ?? realm.settings.tenant?.displayName ?? realm.realm.projectID
            logoURL = settings?.logoURL.flatMap { (try? RedirectURI.checkWebURL($0, field: "logoURL")) == nil ? nil : $0 }
            accentColor = settings?.accentColor.flatMap(Self.checkedColor) ?? "#1a56db"
        }

        /// `#rgb` or `#rrggbb`, or nil.
        static func checkedColor(_ text: String) -> String? {
            let digits = text.dropFirst()
            guard text.first == "#", [3, 6].contains(digits.count), digits.allSatisfy(\.isHexDigit) else { return nil }
            return text
        }

        var header: String {
            let logo = logoURL.map { "<img src=\"\(HTML.escape($0))\" alt=\"\" width=\"32\" height=\"32\">" } ?? ""
            return "<header>\(logo)<span>\(HTML.escape(name))</span></header>"
        }
    }

    static func style(_ brand: Brand) -> String {
        """
        body{font-family:system-ui,sans-serif;margin:0;background:#f6f7f9;color:#1f2328}
        main{max-width:24rem;margin:3rem auto;background:#fff;padding:2rem;border-radius:.75rem;box-shadow:0 1px 3px #0002}
        header{display:flex;gap:.5rem;align-items:center;font-weight:600;margin-bottom:1rem}
        label{display:block;margin:.75rem 0 .25rem}input{width:100%;box-sizing:border-box;padding:.6rem;font-size:1rem}
        button{margin-top:1rem;padding:.6rem 1rem;font-size:1rem;border:0;border-radius:.4rem;background:\(brand.accentColor);color:#fff}
        button.link,button[value=deny]{background:none;color:\(brand.accentColor);padding:.25rem}
        .methods{display:flex;flex-direction:column;gap:.5rem}.methods button{margin-top:0}
        #error:empty,#notice:empty,#factor-hint:empty{display:none}#error{color:#b42318}#notice{color:#05603a}
        :focus-visible{outline:3px solid \(brand.accentColor);outline-offset:2px}
        """
    }

    /// A page's policy: its script and style by hash, calls to its own origin, forms posted to its own origin (and to
    /// `formTarget`, where the consent form's answer redirects: browsers hold redirects after a form post to
    /// `form-action` too), logos from https, never framed.
    static func contentSecurityPolicy(script: String?, style: String, formTarget: String? = nil) -> String {
        [
            "default-src 'none'", script.map { "script-src '\(HostedPage.hash($0))'" } ?? "script-src 'none'",
            "style-src '\(HostedPage.hash(style))'", "connect-src 'self'", "img-src https:", "base-uri 'none'",
            "form-action 'self'" + (formTarget.flatMap(sourceExpression).map { " " + $0 } ?? ""), "frame-ancestors 'none'",
        ].joined(separator: "; ")
    }

    /// The CSP source of a redirect URI: its origin (`https://app.example:8443`), or a private-use scheme (`com.example.app:`).
    static func sourceExpression(of uri: String) -> String? {
        guard let components = URLComponents(string: uri), let scheme = components.scheme?.lowercased() else { return nil }
        guard scheme == "http" || scheme == "https" else { return scheme + ":" }
        guard let host = components.percentEncodedHost, !host.isEmpty,
              host.allSatisfy({ $0.isLetter || $0.isNumber || ".-[]:".contains($0) })
        else { return nil }
        return "\(scheme)://\(host)" + (components.port.map { ":\($0)" } ?? "")
    }

    static func html(_ html: String, status: HTTPResponse.Status = .ok, script: String? = nil, style: String,
                     formTarget: String? = nil) -> Response {
        HostedPage.response(html, status: status,
                            contentSecurityPolicy: contentSecurityPolicy(script: script, style: style, formTarget: formTarget))
    }

    // MARK: Error and signed-out pages

    static func error(heading: String, detail: String, status: HTTPResponse.Status, brand: Brand? = nil) -> Response {
        let style = style(brand ?? Brand.plain)
        return html(HostedPage.error(language: "en", heading: heading, detail: detail, style: style), status: status, style: style)
    }

    static func signedOut(brand: Brand) -> Response {
        let style = style(brand)
        return html(HostedPage.document(language: "en", title: "Signed out", style: style, body: """
            \(brand.header)
            <h1 id="signed-out">You are signed out</h1>
            <p>You can close this window.</p>
            </main>
            """), style: style)
    }

    // MARK: The sign-in page

    /// What the sign-in page's script is told.
    struct SignInConfiguration: Encodable {
        var apiKey: String
        var tenantId: String?
        var authorizationId: String
        var formToken: String
        var sessionEndpoint = ProviderEndpoints.sessionEndpoint
        /// Where the script gets a proof-of-work challenge before it asks for an SMS (`methods.captcha`).
        var challengeEndpoint = ProviderEndpoints.challengeEndpoint
        /// Where it trades the work for a `recaptchaToken`.
        var captchaVerifyEndpoint = HostedRoutes.verifyPath
        /// The hosted handler, which takes the browser to a federated or SAML provider and back to this page.
        var handlerEndpoint = HostedRoutes.handlerPath
        var loginHint: String?
        var methods: Methods
        var text: ProviderPageText
    }

    /// The sign-in methods the realm has enabled, as the page offers them.
    struct Methods: Encodable {
        var password: Bool
        var signUp: Bool
        var emailLink: Bool
        var phone: Bool
        var passkey: Bool
        /// Whether an SMS needs Flint's proof of work first (phone sign-in and SMS second factors).
        var captcha: Bool
        var providers: [FederatedButton]

        var any: Bool { password || emailLink || phone || passkey || !providers.isEmpty }
    }

    /// A button sending the browser to a federated or SAML provider.
    struct FederatedButton: Encodable {
        var providerId: String
        var name: String
    }

    static func signIn(_ configuration: SignInConfiguration, clientName: String, brand: Brand, language: String) throws -> Response {
        let text = configuration.text
        let methods = configuration.methods
        let style = style(brand)
        let page = try HostedPage.scripted(
            language: language, title: text.signInHeading, style: style, script: ProviderPageScript.signIn,
            configuration: configuration, body: """
                \(brand.header)
                <h1>\(HTML.escape(text.continueTo(clientName)))</h1>
                <p id="error" role="alert" aria-live="assertive"></p>
                <p id="notice" role="status" aria-live="polite"></p>
                \(methods.any ? SignInSections.all(methods, hint: configuration.loginHint ?? "", text: text)
                               : "<p>\(HTML.escape(text.noMethods))</p>")
                """)
        return html(page, script: ProviderPageScript.signIn, style: style)
    }

    // MARK: The device page

    /// Why the device page is shown again.
    enum DeviceNotice {
        case unknownCode, tooManyAttempts
    }

    /// RFC 8628's verification page: a labelled form for the user code (prefilled from `verification_uri_complete`),
    /// or, `done`, what became of the device (`approved`, `denied`, `expired`, or an OAuth error code).
    static func device(userCode: String, done: String?, notice: DeviceNotice?, brand: Brand, language: String = "en",
                       status: HTTPResponse.Status = .ok) -> Response {
        let text = ProviderPageText.forLocales([language]).text
        let style = style(brand)
        let body: String
        if let done {
            let message = switch done {
            case "approved": text.deviceApproved
            case "expired", "expired_token": text.deviceExpired
            default: text.deviceDenied
            }
            body = "<p id=\"device-done\" data-outcome=\"\(HTML.escape(done))\">\(HTML.escape(message))</p>"
        } else {
            let message = notice.map { $0 == .unknownCode ? text.deviceUnknownCode : text.deviceTooManyAttempts } ?? ""
            body = """
                <p id="error" role="alert">\(HTML.escape(message))</p>
                <form method="post" aria-labelledby="device-heading">
                <label for="user-code">\(HTML.escape(text.deviceCode))</label>
                <input id="user-code" name="user_code" value="\(HTML.escape(userCode))" autocomplete="one-time-code"
                 autocapitalize="characters" spellcheck="false" maxlength="16" required>
                <button type="submit" id="device-button">\(HTML.escape(text.continueButton))</button>
                </form>
                """
        }
        let page = HostedPage.document(language: language, title: text.deviceHeading, style: style, body: """
            \(brand.header)
            <h1 id="device-heading">\(HTML.escape(text.deviceHeading))</h1>
            \(body)
            </main>
            """)
        return html(page, status: status, style: style)
    }

    // MARK: The consent page

    /// The consent page; its form's answer redirects to `redirectURI`, the client's.
    /// `resourceNames`: the name of the resource each of its scopes is for.
    static func consent(clientName: String, ownerName: String?, scopes: [String], resourceNames: [String: String] = [:],
                        account: String, authorizationID: String, formToken: String, redirectURI: String, brand: Brand,
                        text: ProviderPageText, language: String) -> Response {
        let style = style(brand)
        let asks = scopes.map { scope in
            let resource = resourceNames[scope].map { " <span class=\"resource\">(\(HTML.escape($0)))</span>" } ?? ""
            return "<li>\(HTML.escape(text.describe(scope: scope)))\(resource)</li>"
        }.joined()
        let owner = ownerName.map { " <span id=\"owner\">(\(HTML.escape(text.by($0))))</span>" } ?? ""
        let page = HostedPage.document(language: language, title: text.consentHeading(clientName), style: style, body: """
            \(brand.header)
            <h1 id="consent-heading">\(HTML.escape(text.consentHeading(clientName)))\(owner)</h1>
            <p id="account">\(HTML.escape(text.signedInAs(account)))</p>
            <p>\(HTML.escape(text.wantsTo(clientName)))</p>
            <ul id="scopes">\(asks)</ul>
            <form method="post" action="\(ProviderEndpoints.consentPage)" aria-labelledby="consent-heading">
            <input type="hidden" name="authorization_id" value="\(HTML.escape(authorizationID))">
            <input type="hidden" name="form_token" value="\(HTML.escape(formToken))">
            <button type="submit" name="consent" value="allow">\(HTML.escape(text.allow))</button>
            <button type="submit" name="consent" value="deny">\(HTML.escape(text.deny))</button>
            </form>
            </main>
            """)
        return html(page, style: style, formTarget: redirectURI)
    }
}

extension ProviderPages.Brand {
    /// The look of a page that knows no realm.
    static let plain = ProviderPages.Brand(name: "Flint", logoURL: nil, accentColor: "#1a56db")

    init(name: String, logoURL: String?, accentColor: String) {
        self.name = name
        self.logoURL = logoURL
        self.accentColor = accentColor
    }
}
