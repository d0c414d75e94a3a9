import FlintWire

/// What an endpoint takes and answers, as the OpenAPI document (`OpenAPIDocument`) describes it. The JSON
/// endpoints get theirs from their wire types (`Endpoint.json`); pages and hand-written handlers state it.
struct EndpointContract: Sendable {
    /// The credentials an endpoint asks for.
    enum Credentials: Sendable {
        /// None (the emulator's own endpoints, public keys, pages a browser opens from an email).
        case none
        /// A project's API key (`key` query parameter or `X-Goog-Api-Key`) or admin credentials.
        case apiKey
        /// An admin bearer token: a service account's access token (in emulator mode, `Bearer owner`).
        case admin
        /// The console's session cookie.
        case consoleSession

        init(_ access: Access) {
            switch access {
            case .apiKey: self = .apiKey
            case .admin: self = .admin
            }
        }
    }

    /// A body: its media type and, for JSON, its schema.
    enum Content: Sendable {
        /// `application/json` of a wire type.
        case json(SchemaSource)
        /// `application/x-www-form-urlencoded` with these string fields (others are ignored).
        case form([String])
        /// `text/html`: a page for a browser.
        case html
        /// A redirect: the answer's `Location` is what matters.
        case redirect

        static func json<T: Decodable & SendableMetatype>(_ type: T.Type) -> Content { .json(SchemaSource(type)) }
        /// A JSON object the handler builds itself (Google's key documents, app-association files).
        static let anyJSONObject = Content.json(SchemaSource { _ in ["type": "object"] })
    }

    /// How an endpoint's errors are shaped.
    enum Failure: Sendable {
        /// Firebase's envelope (`ErrorEnvelope`).
        case firebase
        /// OAuth's (RFC 6749 §5.2): `{"error": "…", "error_description": "…"}`, the OpenID provider's protocol endpoints.
        case oauth
    }

    var credentials: Credentials
    /// The query parameters the handler reads (path parameters come from the path).
    var query: [String] = []
    /// The bodies it accepts, in any of these media types; empty for none.
    var request: [Content] = []
    var response: Content
    var failure: Failure = .firebase

    /// A page a browser opens.
    static func page(credentials: Credentials = .none, query: [String] = [], form: [String]? = nil) -> EndpointContract {
        EndpointContract(credentials: credentials, query: query, request: form.map { [.form($0)] } ?? [], response: .html)
    }
}

/// How to get a schema from the document's `SchemaRecorder`: a wire type's, or a fixed one.
struct SchemaSource: Sendable {
    let schema: @Sendable (SchemaRecorder) -> JSONValue

    init(_ schema: @escaping @Sendable (SchemaRecorder) -> JSONValue) { self.schema = schema }
    init<T: Decodable & SendableMetatype>(_ type: T.Type) { schema = { $0.schema(of: type) } }
}
