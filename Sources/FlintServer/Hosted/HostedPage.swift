import Crypto
import Foundation

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

    /// The CSP source expression allowing exactly `text` inline.
    static func hash(_ text: String) -> String {
        "sha256-" + Data(SHA256.hash(data: Data(text.utf8))).base64EncodedString()
    }
}
