import FlintWire
import Foundation

/// The action emails in the user's language: built-in wording, or a project's override
/// (`ProjectSettings.emailTemplates`). The language comes from the client's `X-Firebase-Locale`, resolved as
/// `SMSText.resolve` does (`fr-FR` → `fr`, `zh_Hans` → `zh-CN`, …) against the locales shipped here, falling
/// back to English.
public enum EmailTemplates {
    /// What was rendered: the subject, both bodies, the locale they are in and the sender name to show.
    public typealias Rendered = (subject: String, text: String, html: String?, locale: String, senderName: String?)

    /// The locales with built-in wording.
    public static var supportedLocales: [String] { wordings.keys.sorted() }

    /// Renders the email for `action`. An override keyed `"<REQUEST_TYPE>:<locale>"` (the requested locale
    /// as given, then the resolved one) wins over one keyed `"<REQUEST_TYPE>"`, which wins over the built-in
    /// wording. Overrides may use `%LINK%`, `%EMAIL%`, `%NEW_EMAIL%`, `%APP_NAME%` and `%DISPLAY_NAME%`;
    /// values put into HTML are escaped. An HTML override's text part is the HTML with its tags stripped.
    public static func render(action: OobRequestType, locale requested: String?, link: String, email: String,
                              newEmail: String?, appName: String, displayName: String?,
                              overrides: [String: ProjectSettings.EmailTemplate]) -> Rendered {
        let locale = resolve(requested)
        let values = Values(link: link, email: email, newEmail: newEmail ?? "", appName: appName,
                            displayName: displayName ?? "")
        let keys = [requested.map { "\(action.rawValue):\($0)" }, "\(action.rawValue):\(locale)", action.rawValue]
        if let template = keys.compactMap({ $0 }).lazy.compactMap({ overrides[$0] }).first {
            return renderOverride(template, locale: locale, values: values)
        }
        let wording = wordings[locale] ?? wordings["en"]!
        return renderBuiltIn(wording, action: action, locale: locale, values: values)
    }

    /// The shipped locale for a requested one (an Accept-Language style list is tried in order).
    public static func resolve(_ requested: String?) -> String {
        guard let requested else { return "en" }
        for candidate in requested.split(separator: ",") {
            let tag = String(candidate.split(separator: ";").first ?? "").trimmingCharacters(in: .whitespaces)
            guard !tag.isEmpty else { continue }
            let language = tag.split(whereSeparator: { $0 == "-" || $0 == "_" }).first.map { $0.lowercased() } ?? ""
            let resolved = SMSText.resolve(tag)
            // SMSText answers "en" for what it does not know: only take that for English itself.
            if resolved == "en", language != "en" { continue }
            if wordings[resolved] != nil { return resolved }
        }
        return "en"
    }

    /// The values substituted into a template.
    private struct Values {
        var link: String
        var email: String
        var newEmail: String
        var appName: String
        var displayName: String
    }

    private static func renderOverride(_ template: ProjectSettings.EmailTemplate, locale: String, values: Values) -> Rendered {
        let placeholders = { (escape: (String) -> String) in
            ["%LINK%": escape(values.link), "%EMAIL%": escape(values.email), "%NEW_EMAIL%": escape(values.newEmail),
             "%APP_NAME%": escape(values.appName), "%DISPLAY_NAME%": escape(values.displayName)]
        }
        let subject = substitute(template.subject, placeholders { $0 })
        let senderName = template.senderDisplayName.map { substitute($0, placeholders { $0 }) }
        if template.bodyFormat.uppercased() == "HTML" {
            let html = substitute(template.body, placeholders(HTML.escape))
            return (subject, textFromHTML(html), html, locale, senderName)
        }
        return (subject, substitute(template.body, placeholders { $0 }), nil, locale, senderName)
    }

    private static func renderBuiltIn(_ wording: Wording, action: OobRequestType, locale: String, values: Values) -> Rendered {
        let placeholders = { (escape: (String) -> String) in
            ["{app}": escape(values.appName), "{email}": escape(values.email), "{new}": escape(values.newEmail),
             "{name}": escape(values.displayName)]
        }
        let plain = placeholders { $0 }
        let html = placeholders(HTML.escape)
        let subject = substitute(wording.subjects[action]!, plain)
        let greeting = values.displayName.isEmpty ? wording.greeting : wording.namedGreeting
        var paragraphs = [greeting, wording.intros[action]!]
        let closing = action == .recoverEmail ? [wording.signoff] : [wording.ignore, wording.signoff]

        let text = (paragraphs.map { substitute($0, plain) } + [values.link] + closing.map { substitute($0, plain) })
            .joined(separator: "\n\n") + "\n"
        paragraphs = paragraphs.map { "<p>\(substitute($0, html))</p>" }
        let link = HTML.escape(values.link)
        let body = paragraphs + ["<p><a href=\"\(link)\">\(link)</a></p>"] + closing.map { "<p>\(substitute($0, html))</p>" }
        let document = htmlDocument(subject: subject, body: body, locale: locale, rightToLeft: wording.rightToLeft)
        return (subject, text, document, locale, values.appName)
    }

    /// A built-in email's HTML part: `body`'s elements (already escaped) in a document in `locale`.
    static func htmlDocument(subject: String, body: [String], locale: String, rightToLeft: Bool) -> String {
        let direction = rightToLeft ? " dir=\"rtl\"" : ""
        return """
            <!DOCTYPE html>
            <html lang="\(locale)"\(direction)>
            <head><meta charset="utf-8"><title>\(HTML.escape(subject))</title></head>
            <body>
            \(body.joined(separator: "\n"))
            </body>
            </html>

            """
    }

    /// Replaces each placeholder in one pass (a value containing a placeholder is not expanded again).
    static func substitute(_ template: String, _ values: [String: String]) -> String {
        var result = ""
        var rest = template[...]
        outer: while !rest.isEmpty {
            for (key, value) in values where rest.hasPrefix(key) {
                result += value
                rest = rest.dropFirst(key.count)
                continue outer
            }
            result.append(rest.removeFirst())
        }
        return result
    }

    /// A readable text version of `html`: scripts and styles dropped, `<a href="u">label</a>` as
    /// `label (u)`, block ends as line breaks, other tags removed, entities decoded.
    static func textFromHTML(_ html: String) -> String {
        func replace(_ pattern: String, in text: String, with template: String) -> String {
            guard let expression = try? NSRegularExpression(pattern: pattern, options: [.caseInsensitive, .dotMatchesLineSeparators])
            else { return text }
            return expression.stringByReplacingMatches(in: text, range: NSRange(text.startIndex..., in: text), withTemplate: template)
        }
        var text = html.replacingOccurrences(of: "\r\n", with: "\n")
        text = replace(#"<(script|style|head)\b.*?</\1\s*>"#, in: text, with: "")
        text = replace(#"<a\b[^>]*?\bhref\s*=\s*"([^"]*)"[^>]*>(.*?)</a\s*>"#, in: text, with: "$2 ($1)")
        text = replace(#"<a\b[^>]*?\bhref\s*=\s*'([^']*)'[^>]*>(.*?)</a\s*>"#, in: text, with: "$2 ($1)")
        text = replace(#"<br\s*/?>"#, in: text, with: "\n")
        text = replace(#"</(p|div|h[1-6]|li|tr|table|blockquote)\s*>"#, in: text, with: "\n\n")
        text = replace(#"<[^>]*>"#, in: text, with: "")
        text = decodeEntities(text)
        // "label (label)" when the label was the address itself.
        text = replace(#"(\S+) \(\1\)"#, in: text, with: "$1")
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        var collapsed: [String] = []
        for line in lines where !(line.isEmpty && (collapsed.last?.isEmpty ?? true)) { collapsed.append(line) }
        while collapsed.last?.isEmpty == true { collapsed.removeLast() }
        return collapsed.joined(separator: "\n") + "\n"
    }

    private static func decodeEntities(_ text: String) -> String {
        var result = text
        for (entity, character) in [("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&#39;", "'"), ("&apos;", "'"),
                                    ("&nbsp;", " ")] {
            result = result.replacingOccurrences(of: entity, with: character)
        }
        guard let expression = try? NSRegularExpression(pattern: "&#(x?)([0-9a-fA-F]+);") else {
            return result.replacingOccurrences(of: "&amp;", with: "&")
        }
        var decoded = ""
        var last = result.startIndex
        for match in expression.matches(in: result, range: NSRange(result.startIndex..., in: result)) {
            guard let whole = Range(match.range, in: result), let hex = Range(match.range(at: 1), in: result),
                  let digits = Range(match.range(at: 2), in: result) else { continue }
            let value = UInt32(result[digits], radix: result[hex].isEmpty ? 10 : 16)
            guard let scalar = value.flatMap(Unicode.Scalar.init) else { continue }
            decoded += result[last..<whole.lowerBound]
            decoded.unicodeScalars.append(scalar)
            last = whole.upperBound
        }
        decoded += result[last...]
        return decoded.replacingOccurrences(of: "&amp;", with: "&")
    }
}
