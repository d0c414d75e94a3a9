import FlintWire
import Foundation
import Hummingbird

/// The OpenAPI 3.1 document of everything the router serves, built from the endpoints' contracts: one
/// operation per path and method, so every alias a client may call (host-prefixed, bare, legacy v3) is listed.
/// JSON schemas come from the wire types (`SchemaRecorder`); errors are Firebase's envelope.
struct OpenAPIDocument {
    let endpoints: [Endpoint]
    let mode: ModePolicy.Mode
    let serverURL: String

    /// The document as JSON, keys sorted so that it reads the same every time.
    func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(make().document)
    }

    /// The document, and the wire types whose schema may be partial (decoding them stopped early).
    func make() -> (document: JSONValue, incomplete: Set<String>) {
        let recorder = SchemaRecorder()
        var paths: [String: [String: JSONValue]] = [:]
        for endpoint in endpoints {
            for path in endpoint.paths {
                let template = Self.template(path)
                paths[template, default: [:]][endpoint.method.rawValue.lowercased()] =
                    operation(endpoint, template: template, recorder: recorder)
            }
        }
        let document: JSONValue = [
            "openapi": "3.1.0",
            "info": [
                "title": "Flint",
                "version": "1",
                "description": .string("""
                    Firebase Authentication's REST protocol (Identity Toolkit v1, v2 and legacy v3, Secure Token), the \
                    admin API, \(mode == .emulator ? "the Auth emulator's own endpoints, " : "")the published keys and \
                    the hosted pages, as this Flint server (\(mode.rawValue) mode) serves them.
                    """),
            ],
            "servers": [["url": .string(serverURL)]],
            "paths": .object(paths.mapValues(JSONValue.object)),
            "components": ["schemas": .object(recorder.components), "securitySchemes": Self.securitySchemes],
        ]
        return (document, recorder.incomplete)
    }

    /// A router path in OpenAPI's template form: `/v1/projects/{projectId}/accounts:lookup`.
    static func template(_ path: String) -> String { RouterPath(path).description }

    private func operation(_ endpoint: Endpoint, template: String, recorder: SchemaRecorder) -> JSONValue {
        let contract = endpoint.contract
        var operation: [String: JSONValue] = [
            "operationId": .string(Self.operationID(endpoint.method, template)),
            "tags": [.string(Self.tag(template))],
            "security": Self.security(contract.credentials),
            "responses": responses(contract.response, failure: contract.failure, recorder: recorder),
        ]
        let parameters = Self.pathParameters(template).map { Self.parameter($0, in: "path") }
            + contract.query.map { Self.parameter($0, in: "query") }
        if !parameters.isEmpty { operation["parameters"] = .array(parameters) }
        // The limits the operation spends, by their declared names (`Budget`), as the route table names them.
        if !endpoint.budgets.isEmpty { operation["x-flint-budgets"] = .array(endpoint.budgets.map { .string($0.name) }) }
        if !contract.request.isEmpty {
            var content: [String: JSONValue] = [:]
            for body in contract.request {
                let (mediaType, schema) = Self.media(body, recorder: recorder)
                content[mediaType] = ["schema": schema]
            }
            // Not required: an empty body reads as `{}`, as in Google's APIs.
            operation["requestBody"] = ["content": .object(content)]
        }
        return .object(operation)
    }

    private func responses(_ answer: EndpointContract.Content, failure shape: EndpointContract.Failure,
                           recorder: SchemaRecorder) -> JSONValue {
        var failure: [String: JSONValue] = ["application/json": ["schema": recorder.schema(of: ErrorEnvelope.self)]]
        if case .oauth = shape {
            // RFC 6749 §5.2's error object; a realm that does not exist answers in Firebase's envelope.
            failure = ["application/json": ["schema": ["type": "object"]]]
        }
        if case .html = answer {
            // A page explains a failure in HTML, or (the emulator's action page) in JSON of its own.
            failure = ["text/html": ["schema": ["type": "string"]], "application/json": ["schema": ["type": "object"]]]
        }
        let (mediaType, schema) = Self.media(answer, recorder: recorder)
        let success: (String, JSONValue) = if case .redirect = answer {
            ("3XX", ["description": "Redirect to the `Location` header."])
        } else {
            ("200", ["description": "OK", "content": .object([mediaType: ["schema": schema]])])
        }
        return .object([
            success.0: success.1,
            "default": ["description": "A Firebase error.", "content": .object(failure)],
        ])
    }

    private static func media(_ content: EndpointContract.Content, recorder: SchemaRecorder) -> (String, JSONValue) {
        switch content {
        case .json(let source): ("application/json", source.schema(recorder))
        case .form(let fields):
            ("application/x-www-form-urlencoded", [
                "type": "object",
                "properties": .object(Dictionary(uniqueKeysWithValues: fields.map { ($0, ["type": "string"]) })),
            ])
        case .html: ("text/html", ["type": "string"])
        case .redirect: ("text/plain", ["type": "string"])
        }
    }

    /// The `{name}`s of a template, also those inside a segment (`{projectId}:createSessionCookie`).
    private static func pathParameters(_ template: String) -> [String] {
        template.split(separator: "{").dropFirst().compactMap { $0.split(separator: "}", maxSplits: 1).first.map(String.init) }
    }

    private static func parameter(_ name: String, in location: String) -> JSONValue {
        ["name": .string(name), "in": .string(location), "required": .bool(location == "path"), "schema": ["type": "string"]]
    }

    /// Unique per path and method, and a valid identifier for client generators: `post_v1_accounts_signUp`.
    private static func operationID(_ method: HTTPRequest.Method, _ template: String) -> String {
        let words = template.split { !($0.isLetter || $0.isNumber) }
        return ([method.rawValue.lowercased()] + words.map(String.init)).joined(separator: "_")
    }

    /// The part of Firebase's surface a path belongs to, to group operations in API explorers.
    private static func tag(_ template: String) -> String {
        let hosted = ["/__/", "/.well-known/apple-app-site-association", "/.well-known/assetlinks.json"]
        if template.hasPrefix("/emulator/") { return "Auth emulator" }
        if template.hasPrefix("/console") { return "Console" }
        if hosted.contains(where: template.hasPrefix) { return "Hosted pages" }
        if template.contains("/v3/relyingparty/") { return "Identity Toolkit v3 (legacy)" }
        if template.contains("/v2/") { return "Identity Toolkit v2" }
        if template.hasSuffix("/v1/token") || template == "/token" { return "Tokens" }
        if template.hasPrefix("/identitytoolkit.googleapis.com/v1/") || template.hasPrefix("/v1/") { return "Identity Toolkit v1" }
        return "Keys and discovery"
    }

    private static func security(_ credentials: EndpointContract.Credentials) -> JSONValue {
        switch credentials {
        case .none: []
        case .apiKey: [["apiKeyQuery": []], ["apiKeyHeader": []], ["adminBearer": []]]
        case .admin: [["adminBearer": []]]
        // Without a session the console answers with its sign-in page.
        case .consoleSession: [["consoleSession": []], [:]]
        }
    }

    private static let securitySchemes: JSONValue = [
        "apiKeyQuery": ["type": "apiKey", "in": "query", "name": "key", "description": "A project's API key."],
        "apiKeyHeader": ["type": "apiKey", "in": "header", "name": "X-Goog-Api-Key", "description": "A project's API key."],
        "adminBearer": [
            "type": "http", "scheme": "bearer",
            "description": "A service account's access token (`POST /token`); in emulator mode, `owner`.",
        ],
        "consoleSession": ["type": "apiKey", "in": "cookie", "name": .string(ConsoleSessions.sessionCookie), "description": "The console's session."],
    ]
}
