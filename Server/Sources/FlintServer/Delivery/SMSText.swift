import Foundation

/// The verification text message in the user's language. The language comes from the client's
/// `X-Firebase-Locale` header (`fr`, `fr-FR`, `pt_BR`, `zh-Hans`, …, matched case-insensitively);
/// what is not shipped falls back to the language alone, then to English.
public enum SMSText {
    /// One sentence per locale, the code first where the language allows it.
    private static let templates: [String: @Sendable (_ code: String, _ app: String) -> String] = [
        "en": { code, app in "\(code) is your verification code for \(app)." },
        "fr": { code, app in "\(code) est votre code de vérification pour \(app)." },
        "es": { code, app in "\(code) es tu código de verificación para \(app)." },
        "de": { code, app in "\(code) ist Ihr Bestätigungscode für \(app)." },
        "pt": { code, app in "\(code) é o seu código de verificação para \(app)." },
        "it": { code, app in "\(code) è il tuo codice di verifica per \(app)." },
        "hi": { code, app in "\(app) के लिए आपका सत्यापन कोड \(code) है।" },
        "bn": { code, app in "\(app)-এর জন্য আপনার যাচাইকরণ কোড হল \(code)।" },
        "zh-CN": { code, app in "\(code) 是您的 \(app) 验证码。" },
        "zh-TW": { code, app in "\(code) 是您的 \(app) 驗證碼。" },
        "ar": { code, app in "\(code) هو رمز التحقق الخاص بك في \(app)." },
        "ja": { code, app in "\(app) の確認コードは \(code) です。" },
        "ru": { code, app in "\(code) — ваш код подтверждения для \(app)." },
        "ko": { code, app in "\(app) 인증 코드는 \(code)입니다." },
    ]

    /// The locales with their own text.
    public static var supportedLocales: [String] { templates.keys.sorted() }

    /// The message for `code` and the locale it is in (`requested` resolved against what is shipped).
    public static func message(code: String, appName: String, locale requested: String?) -> (text: String, locale: String) {
        let locale = resolve(requested)
        let template = templates[locale] ?? templates["en"]!
        return (template(code, appName), locale)
    }

    /// The shipped locale for a requested one: exact (case-insensitive) match, then Chinese script and
    /// region rules, then the bare language, then `en`. An Accept-Language style list is tried in order.
    public static func resolve(_ requested: String?) -> String {
        guard let requested else { return "en" }
        for candidate in requested.split(separator: ",") {
            let tag = candidate.split(separator: ";").first.map(String.init) ?? ""
            if let locale = match(tag) { return locale }
        }
        return "en"
    }

    private static func match(_ tag: String) -> String? {
        let parts = tag.trimmingCharacters(in: .whitespaces)
            .replacingOccurrences(of: "_", with: "-")
            .split(separator: "-")
            .map { $0.lowercased() }
        guard let language = parts.first, !language.isEmpty else { return nil }
        if language == "zh" {
            // Script first (zh-Hant-HK), then region; simplified Chinese unless told otherwise.
            let traditional: Set<String> = ["hant", "tw", "hk", "mo"]
            return parts.dropFirst().first { traditional.contains($0) || ["hans", "cn", "sg"].contains($0) }
                .map { traditional.contains($0) ? "zh-TW" : "zh-CN" } ?? "zh-CN"
        }
        return templates[language] == nil ? nil : language
    }
}
