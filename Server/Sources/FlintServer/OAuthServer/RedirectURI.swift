import FlintWire
import Foundation

/// Which URIs a client may register and how a request's redirect URI is matched against them (OAuth 2.1 §2.3.1 and
/// RFC 9700 §4.1.3: exact string comparison), with RFC 8252's one exception for native apps: a loopback URI registered
/// without a port (`http://127.0.0.1/callback`) matches the same URI on any port, since the app's listener gets a port
/// only when it starts.
enum RedirectURI {
    /// The loopback hosts of RFC 8252 §7.3 (and `localhost`, which §8.3 discourages but browsers resolve to loopback).
    static let loopbackHosts: Set<String> = ["127.0.0.1", "[::1]", "::1", "localhost"]

    /// Whether `requested` is one of `registered`.
    static func matches(_ requested: String, registered: [String]) -> Bool {
        if registered.contains(requested) { return true }
        guard var components = URLComponents(string: requested), components.scheme == "http",
              let host = components.host, loopbackHosts.contains(host), components.port != nil
        else { return false }
        components.port = nil
        guard let portless = components.string else { return false }
        return registered.contains(portless)
    }

    /// Checks a URI an admin registers: absolute, without a fragment or user info; `https`, `http` on a loopback host,
    /// or (a public client's) private-use scheme in reverse-domain form (`com.example.app:/callback`, RFC 8252 §7.1).
    static func checkRegistrable(_ uri: String, publicClient: Bool, field: String) throws {
        guard uri.utf8.count <= 2048, let components = URLComponents(string: uri), let scheme = components.scheme?.lowercased(),
              components.fragment == nil, components.user == nil, components.password == nil,
              !uri.contains(where: { $0.isWhitespace })
        else { throw FlintError(.invalidOAuthClient, "\(field): \(uri) is not an absolute URI without a fragment.") }
        switch scheme {
        case "https":
            guard components.host?.isEmpty == false else { throw FlintError(.invalidOAuthClient, "\(field): \(uri) has no host.") }
        case "http":
            guard let host = components.host, loopbackHosts.contains(host) else {
                throw FlintError(.invalidOAuthClient, "\(field): \(uri) must use https (http is for loopback addresses only).")
            }
        default:
            guard publicClient, scheme.contains("."), scheme.allSatisfy({ $0.isLetter || $0.isNumber || "+-.".contains($0) }) else {
                throw FlintError(
                    .invalidOAuthClient,
                    "\(field): \(uri) must use https, loopback http, or (a public client's) reverse-domain scheme.")
            }
        }
    }

    /// Checks a URL Flint fetches or shows (a JWKS URI, a logo): `https`, or `http` on loopback.
    static func checkWebURL(_ uri: String, field: String) throws {
        guard uri.utf8.count <= 2048, let components = URLComponents(string: uri), let host = components.host, !host.isEmpty,
              components.scheme == "https" || (components.scheme == "http" && loopbackHosts.contains(host))
        else { throw FlintError(.invalidOAuthClient, "\(field) must be an https URL.") }
    }

    /// `uri` with the answer's parameters added to its query (RFC 6749 §4.1.2: keeping the query it has).
    static func adding(_ parameters: [(String, String)], to uri: String) -> String {
        guard !parameters.isEmpty else { return uri }
        let encoded = FormURLEncoding.encode(parameters)
        return uri + (uri.contains("?") ? "&" : "?") + encoded
    }
}

/// Scope strings (RFC 6749 §3.3): space-separated tokens of printable ASCII without `"` and `\`.
enum Scopes {
    static func isScopeToken(_ token: String) -> Bool {
        (1...128).contains(token.utf8.count)
            && token.utf8.allSatisfy { $0 == 0x21 || (0x23...0x5B).contains($0) || (0x5D...0x7E).contains($0) }
    }

    /// The tokens of a `scope` parameter, in order, once each; nil if one is malformed.
    static func parse(_ scope: String?) -> [String]? {
        guard let scope else { return [] }
        guard scope.utf8.count <= 4096 else { return nil }
        var seen = Set<String>()
        var tokens: [String] = []
        for token in scope.split(separator: " ", omittingEmptySubsequences: true).map(String.init) {
            guard isScopeToken(token) else { return nil }
            if seen.insert(token).inserted { tokens.append(token) }
        }
        return tokens
    }
}
