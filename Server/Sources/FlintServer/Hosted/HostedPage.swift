import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// What the hosted pages share: the document frame and the hashes their Content-Security-Policy
/// allows inline code by.
enum HostedPage {
    /// A complete page; `body` closes the `<main>` the frame opens (so scripts can follow it).
    static func document(language: String, title: String, style: String, body: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="\(HTML.escape(language))">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="robots" content="noindex">
        <title>\(HTML.escape(title))</title>
        <style>\(style)</style>
        </head>
        <body>
        <main>
        \(body)
        </body>
        </html>

        """
    }

    /// A page with the page's script: its configuration as JSON, then the script itself.
    static func scripted(language: String, title: String, style: String, script: String,
                         configuration: some Encodable, body: String) throws -> String {
        document(language: language, title: title, style: style, body: """
            \(body)
            </main>
            \(try configurationBlock(configuration))
            <script>\(script)</script>
            """)
    }

    /// A page script's configuration: JSON in a `<script type="application/json" id="flint-config">` block.
    static func configurationBlock(_ configuration: some Encodable) throws -> String {
        let json = String(decoding: try JSONBody.encoder.encode(configuration), as: UTF8.self)
            // Inside a <script> block only "</" could end it; escaping <, > and & keeps the JSON equal.
            .replacingOccurrences(of: "<", with: "\\u003c").replacingOccurrences(of: ">", with: "\\u003e")
            .replacingOccurrences(of: "&", with: "\\u0026")
        return "<script type=\"application/json\" id=\"flint-config\">\(json)</script>"
    }

    /// A page saying why a request cannot be served; no script (there is nothing to return to).
    static func error(language: String, heading: String, detail: String, style: String) -> String {
        document(language: language, title: heading, style: style, body: """
            <h1>\(HTML.escape(heading))</h1>
            <p id="error">\(HTML.escape(detail))</p>
            </main>
            """)
    }

    /// A scripted page's policy: its own script and style, requests to its own origin, nothing else.
    static func contentSecurityPolicy(script: String, style: String) -> String {
        [
            "default-src 'none'", "script-src '\(hash(script))'", "style-src '\(hash(style))'", "connect-src 'self'",
            "img-src 'none'", "base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'",
        ].joined(separator: "; ")
    }

    /// An error page's policy: its style only.
    static func errorContentSecurityPolicy(style: String) -> String {
        "default-src 'none'; style-src '\(hash(style))'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    }

    /// The CSP source expression allowing exactly `text` inline.
    static func hash(_ text: String) -> String {
        "sha256-" + Data(SHA256.hash(data: Data(text.utf8))).base64EncodedString()
    }
}

extension HostedPage {
    /// An HTML response with the headers every hosted page sends: its policy, no caching, no framing, no
    /// MIME sniffing, no referrer (by default), its own browsing context, and no powerful features.
    static func response(_ html: String, status: HTTPResponse.Status, contentSecurityPolicy: String,
                         referrerPolicy: String = "no-referrer") -> Response {
        var headers = securityHeaders(contentSecurityPolicy: contentSecurityPolicy, referrerPolicy: referrerPolicy)
        headers[.contentType] = "text/html; charset=utf-8"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: html)))
    }

    /// The headers of `response`, for answers without a page too (redirects).
    static func securityHeaders(contentSecurityPolicy: String, referrerPolicy: String = "no-referrer") -> HTTPFields {
        [
            .contentSecurityPolicy: contentSecurityPolicy, .cacheControl: "no-store", .xFrameOptions: "DENY",
            .xContentTypeOptions: "nosniff", .referrerPolicy: referrerPolicy, .crossOriginOpenerPolicy: "same-origin",
            .crossOriginResourcePolicy: "same-origin", .permissionsPolicy: "camera=(), microphone=(), geolocation=(), payment=()",
        ]
    }
}

extension HTTPField.Name {
    static let contentSecurityPolicy = Self("Content-Security-Policy")!
    static let xFrameOptions = Self("X-Frame-Options")!
    static let xContentTypeOptions = Self("X-Content-Type-Options")!
    static let referrerPolicy = Self("Referrer-Policy")!
    static let crossOriginOpenerPolicy = Self("Cross-Origin-Opener-Policy")!
    static let crossOriginResourcePolicy = Self("Cross-Origin-Resource-Policy")!
    static let permissionsPolicy = Self("Permissions-Policy")!
}
