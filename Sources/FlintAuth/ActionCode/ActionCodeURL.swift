import Foundation

/// The parts of an email action link (`…/__/auth/action?apiKey=…&mode=…&oobCode=…&continueUrl=…&lang=…`).
public final class ActionCodeURL: NSObject, Sendable {
    /// The API key the link was made for.
    public let apiKey: String?
    /// What the link's code is for (from `mode`); `.unknown` if absent.
    public let operation: ActionCodeOperation
    /// The action code (`oobCode`).
    public let code: String?
    /// Where the user should continue (`continueUrl`).
    public let continueURL: URL?
    /// The language the email was written in (`lang`).
    public let languageCode: String?

    /// Parses `link`: an action link, or a link wrapping one in its `link` or `deep_link_id`
    /// parameter (an app link or a dynamic link). Nil if no action link parameters are found.
    public init?(link: String) {
        guard let items = EmailActionLink.actionParameters(of: link) else { return nil }
        apiKey = items["apiKey"]
        operation = ActionCodeOperation(requestTypeOrMode: items["mode"])
        code = items["oobCode"]
        continueURL = items["continueUrl"].flatMap { URL(string: $0) }
        languageCode = items["lang"]
    }
}

/// Reads the query parameters of email action links, wrapped or not.
enum EmailActionLink {
    /// The parameters that make a link an action link.
    private static let actionKeys: Set<String> = ["oobCode", "mode", "apiKey"]
    /// The parameters that carry a wrapped link: the app link of a Flint or Firebase Hosting page
    /// (`/__/auth/links?link=…`), dynamic links, and the `deep_link_id` of iOS custom-scheme links.
    private static let wrapperKeys = ["link", "deep_link_id"]

    /// The query parameters of the action link `link` is, or wraps (one level deep); nil if neither.
    static func actionParameters(of link: String) -> [String: String]? {
        let outer = queryParameters(of: link)
        if !outer.keys.filter(actionKeys.contains).isEmpty {
            return outer
        }
        for key in wrapperKeys {
            if let inner = outer[key].map(queryParameters(of:)), !inner.keys.filter(actionKeys.contains).isEmpty {
                return inner
            }
        }
        return nil
    }

    /// Whether `link` is, or wraps, a sign-in link: `mode=signIn` with a non-empty `oobCode`.
    static func isSignInLink(_ link: String) -> Bool {
        signInCode(of: link) != nil
    }

    /// The `oobCode` of the sign-in link `link` is or wraps.
    static func signInCode(of link: String) -> String? {
        guard let items = actionParameters(of: link), items["mode"] == "signIn",
              let code = items["oobCode"], !code.isEmpty
        else { return nil }
        return code
    }

    /// The decoded query parameters of a URL string; a bare query string (`a=1&b=2`) works too.
    /// The first occurrence of a name wins; `+` stands for a space, as in form encoding.
    static func queryParameters(of link: String) -> [String: String] {
        let trimmed = link.trimmingCharacters(in: .whitespacesAndNewlines)
        let query: Substring
        if let mark = trimmed.firstIndex(of: "?") {
            query = trimmed[trimmed.index(after: mark)...]
        } else if trimmed.contains("=") && !trimmed.contains("/") {
            query = Substring(trimmed)
        } else {
            return [:]
        }
        let withoutFragment = query.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        var items: [String: String] = [:]
        for pair in withoutFragment.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = decode(parts[0]), !name.isEmpty else { continue }
            let value = parts.count > 1 ? decode(parts[1]) : ""
            if items[name] == nil, let value {
                items[name] = value
            }
        }
        return items
    }

    private static func decode(_ text: Substring) -> String? {
        text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }
}
