import FlintWire
import Foundation

/// A resource server's metadata (RFC 9728), which it serves at ``wellKnownURL(for:)`` of its resource identifier so
/// that OAuth clients (MCP clients among them) find the authorization server to get its tokens from: Flint's issuer.
///
/// ```swift
/// let metadata = ProtectedResourceMetadata(resource: "https://api.example.com/mcp",
///                                          authorizationServers: [auth.accessTokenIssuer], scopesSupported: ["mcp:tools"])
/// // GET /.well-known/oauth-protected-resource/mcp → try metadata.jsonData(), application/json
/// ```
public struct ProtectedResourceMetadata: Codable, Sendable, Equatable {
    /// The resource identifier (RFC 8707): an absolute https URI (http on a loopback host) without a fragment, the one
    /// clients name in `resource` and the one access tokens are verified for.
    public var resource: String
    /// The issuers that issue tokens for it; for Flint, ``AdminAuth/accessTokenIssuer``.
    public var authorizationServers: [String]
    /// The scopes the resource takes (recommended).
    public var scopesSupported: [String]?
    /// How it takes bearer tokens (RFC 6750): `header` (`Authorization: Bearer`).
    public var bearerMethodsSupported: [String]?
    /// A name for people.
    public var resourceName: String?
    /// A page of documentation for developers.
    public var resourceDocumentation: String?

    enum CodingKeys: String, CodingKey {
        case resource
        case authorizationServers = "authorization_servers"
        case scopesSupported = "scopes_supported"
        case bearerMethodsSupported = "bearer_methods_supported"
        case resourceName = "resource_name"
        case resourceDocumentation = "resource_documentation"
    }

    public init(resource: String, authorizationServers: [String], scopesSupported: [String]? = nil,
                bearerMethodsSupported: [String]? = ["header"], resourceName: String? = nil,
                resourceDocumentation: String? = nil) {
        self.resource = resource
        self.authorizationServers = authorizationServers
        self.scopesSupported = scopesSupported
        self.bearerMethodsSupported = bearerMethodsSupported
        self.resourceName = resourceName
        self.resourceDocumentation = resourceDocumentation
    }

    /// The metadata of `resource`, whose tokens `auth`'s provider issues (its ``AdminAuth/accessTokenIssuer``).
    public init(resource: String, issuedBy auth: AdminAuth, scopesSupported: [String]? = nil, resourceName: String? = nil,
                resourceDocumentation: String? = nil) {
        self.init(resource: resource, authorizationServers: [auth.accessTokenIssuer], scopesSupported: scopesSupported,
                  resourceName: resourceName, resourceDocumentation: resourceDocumentation)
    }

    /// The JSON document (absent fields left out), to serve as `application/json`.
    public func jsonData() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }

    /// The well-known path segment RFC 9728 registers.
    public static let wellKnownSegment = "/.well-known/oauth-protected-resource"

    /// Where the metadata of `resource` is served (RFC 9728 §3.1): `/.well-known/oauth-protected-resource` inserted
    /// between the host and the path (a terminating `/` of the path removed), the query kept.
    /// `https://api.example.com/mcp` → `https://api.example.com/.well-known/oauth-protected-resource/mcp`. Nil unless
    /// `resource` is an absolute http or https URI with a host and no fragment.
    public static func wellKnownURL(for resource: String) -> String? {
        guard let parts = Self.parts(resource) else { return nil }
        return parts.origin + wellKnownPath(parts.path) + parts.query
    }

    /// The path (and query) of ``wellKnownURL(for:)``, for a router: `/.well-known/oauth-protected-resource/mcp`.
    public static func wellKnownPath(for resource: String) -> String? {
        guard let parts = Self.parts(resource) else { return nil }
        return wellKnownPath(parts.path) + parts.query
    }

    /// ``wellKnownURL(for:)`` of ``resource``.
    public var wellKnownURL: String? { Self.wellKnownURL(for: resource) }

    private static func wellKnownPath(_ path: String) -> String {
        var path = Substring(path)
        while path.hasSuffix("/") { path = path.dropLast() }
        return wellKnownSegment + path
    }

    /// `scheme://authority`, the path as written and `?query` (or empty), of an absolute http(s) URI with a host and
    /// no fragment.
    private static func parts(_ resource: String) -> (origin: String, path: String, query: String)? {
        guard let components = URLComponents(string: resource), let scheme = components.scheme?.lowercased(),
              scheme == "https" || scheme == "http", let host = components.host, !host.isEmpty,
              components.fragment == nil, let authorityStart = resource.range(of: "://")?.upperBound
        else { return nil }
        let rest = resource[authorityStart...]
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        let origin = String(resource[..<authorityEnd])
        let afterAuthority = rest[authorityEnd...]
        let queryStart = afterAuthority.firstIndex(of: "?") ?? afterAuthority.endIndex
        return (origin, String(afterAuthority[..<queryStart]), String(afterAuthority[queryStart...]))
    }

    /// The `WWW-Authenticate` value of a 401 or 403 of this resource (RFC 6750 §3, RFC 9728 §5.1): `Bearer
    /// resource_metadata="<wellKnownURL>"`, and for a refused token its `error` (`invalid_token`, or
    /// `insufficient_scope` with the `scope` the call requires). Pass no error when the request carried no token.
    public func challenge(for error: AccessTokenError? = nil, includeDescription: Bool = false) -> String {
        BearerChallenge.header(resourceMetadata: wellKnownURL ?? resource, error: error, includeDescription: includeDescription)
    }
}

/// RFC 6750's `WWW-Authenticate: Bearer …` challenge, with RFC 9728's `resource_metadata`.
public enum BearerChallenge {
    /// `Bearer resource_metadata="…"`, then for a refused token `error="invalid_token"` or `error="insufficient_scope",
    /// scope="…"` (the scopes the call requires), and with `includeDescription` an `error_description` of the error's
    /// message. Values are quoted strings (`"` and `\` escaped); `scope` and `error_description` keep only the
    /// characters RFC 6750 §3 allows them. A request without a token gets no `error` (RFC 6750 §3.1): pass nil.
    ///
    /// - Parameters:
    ///   - resourceMetadata: the URL of the resource's metadata (``ProtectedResourceMetadata/wellKnownURL(for:)``);
    ///     nil leaves the attribute out.
    ///   - error: why the token was refused; nil for a request without one.
    ///   - scope: scopes to name when there is no error (a hint of what to ask for); an insufficient-scope error names
    ///     its own.
    ///   - includeDescription: whether to add the error's message as `error_description`.
    public static func header(resourceMetadata: String?, error: AccessTokenError? = nil, scope: [String] = [],
                              includeDescription: Bool = false) -> String {
        var attributes: [String] = []
        if let resourceMetadata { attributes.append("resource_metadata=" + quoted(resourceMetadata)) }
        if let error {
            attributes.append("error=" + quoted(error.bearerError))
            if includeDescription {
                let description = String(String.UnicodeScalarView(error.message.unicodeScalars.filter(isDescriptionCharacter)))
                if !description.isEmpty { attributes.append("error_description=" + quoted(description)) }
            }
        }
        let scopes = (error?.code == .insufficientScope ? error.map { $0.requiredScopes.isEmpty ? $0.missingScopes : $0.requiredScopes } : nil) ?? scope
        let tokens = scopes.map { String(String.UnicodeScalarView($0.unicodeScalars.filter(isScopeCharacter))) }.filter { !$0.isEmpty }
        if !tokens.isEmpty { attributes.append("scope=" + quoted(tokens.joined(separator: " "))) }
        return attributes.isEmpty ? "Bearer" : "Bearer " + attributes.joined(separator: ", ")
    }

    /// An RFC 9110 quoted-string: `"` and `\` escaped with `\`, other control characters dropped.
    static func quoted(_ value: String) -> String {
        var text = "\""
        for scalar in value.unicodeScalars where scalar == "\t" || (scalar.value >= 0x20 && scalar.value != 0x7F) {
            if scalar == "\"" || scalar == "\\" { text.append("\\") }
            text.unicodeScalars.append(scalar)
        }
        return text + "\""
    }

    /// RFC 6750 §3: `error_description` is `%x20-21 / %x23-5B / %x5D-7E`.
    private static func isDescriptionCharacter(_ scalar: Unicode.Scalar) -> Bool {
        (0x20...0x7E).contains(scalar.value) && scalar != "\"" && scalar != "\\"
    }

    /// RFC 6749 §3.3's scope-token: `%x21 / %x23-5B / %x5D-7E`.
    private static func isScopeCharacter(_ scalar: Unicode.Scalar) -> Bool {
        (0x21...0x7E).contains(scalar.value) && scalar != "\"" && scalar != "\\"
    }
}
