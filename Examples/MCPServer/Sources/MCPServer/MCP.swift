import FlintAdminHummingbird
import FlintWire
import Foundation
import Hummingbird

/// The JSON-RPC 2.0 endpoint of an MCP server: `initialize`, `tools/list` and `tools/call`, notifications taken with
/// 202. Every request is behind `AccessTokenMiddleware`; a tool also needs its own scope, and a token without it is
/// answered 403 with `error="insufficient_scope"` and the scope, so that the client asks for it (step-up).
struct MCPEndpoint: Sendable {
    let notes: Notes

    /// The protocol revisions this server speaks, newest first; a client asking for another gets the newest.
    static let protocolVersions = ["2025-11-25", "2025-06-18", "2025-03-26"]

    func respond(_ request: Request, context: MCPRequestContext) async throws -> Response {
        let body = try await request.body.collect(upTo: 1 << 20)
        guard let message = try? JSONDecoder().decode(RPCRequest.self, from: Data(buffer: body)), message.jsonrpc == "2.0" else {
            return try RPCResponse(id: .null, error: RPCError(-32700, "Not a JSON-RPC 2.0 request")).response(from: request, context: context)
        }
        guard let id = message.id else { return Response(status: .accepted) }
        let answer: RPCResponse
        do {
            answer = RPCResponse(id: id, result: try await call(message.method, message.params ?? [:], context: context))
        } catch let error as RPCError {
            answer = RPCResponse(id: id, error: error)
        }
        return try answer.response(from: request, context: context)
    }

    /// The result of one method; a tool's missing scope throws `AccessTokenError`, which the middleware answers.
    func call(_ method: String, _ params: [String: JSONValue], context: MCPRequestContext) async throws -> JSONValue {
        switch method {
        case "initialize":
            let asked = params["protocolVersion"]?.stringValue ?? ""
            return ["protocolVersion": .string(Self.protocolVersions.contains(asked) ? asked : Self.protocolVersions[0]),
                    "capabilities": ["tools": [:]], "serverInfo": ["name": "flint-mcp-example", "version": "1.0.0"]]
        case "ping":
            return [:]
        case "tools/list":
            return ["tools": .array(Tool.all.map(\.listing))]
        case "tools/call":
            guard let tool = Tool.all.first(where: { $0.name == params["name"]?.stringValue }) else {
                throw RPCError(-32602, "Unknown tool \(params["name"]?.stringValue ?? "(none)")")
            }
            let token = try context.accessToken(requiring: [tool.scope])
            let result: JSONValue
            switch tool.name {
            case Tool.whoami.name:
                result = ["subject": .string(token.subject), "clientId": .string(token.clientID),
                          "scopes": .array(token.scopes.map(JSONValue.string))]
            default:
                guard let text = params["arguments"]?.objectValue?["text"]?.stringValue, !text.isEmpty else {
                    throw RPCError(-32602, "write_note needs a text")
                }
                result = ["saved": .number(Double(await notes.add(text, for: token.subject)))]
            }
            // The result both as the text content every client shows and as structured content.
            let text = String(decoding: try JSONEncoder().encode(result), as: UTF8.self)
            return ["content": [["type": "text", "text": .string(text)]], "structuredContent": result, "isError": false]
        default:
            throw RPCError(-32601, "Method not found: \(method)")
        }
    }
}

/// A tool: its name and description, the scope a token needs to call it, and its input's JSON Schema.
struct Tool: Sendable {
    var name: String
    var description: String
    var scope: String
    var inputSchema: JSONValue

    static let whoami = Tool(name: "whoami", description: "Who calls: the access token's subject, client and scopes.",
                             scope: "tools:read", inputSchema: ["type": "object", "properties": [:]])
    static let writeNote = Tool(name: "write_note", description: "Keeps a note for the caller; answers how many it has.",
                                scope: "tools:write",
                                inputSchema: ["type": "object", "properties": ["text": ["type": "string"]], "required": ["text"]])
    static let all = [whoami, writeNote]

    var listing: JSONValue { ["name": .string(name), "description": .string(description), "inputSchema": inputSchema] }
}

/// Each caller's notes (by the token's subject), in memory.
actor Notes {
    private var notes: [String: [String]] = [:]

    /// Keeps `text` for `subject`; returns how many notes they have.
    func add(_ text: String, for subject: String) -> Int {
        notes[subject, default: []].append(text)
        return notes[subject, default: []].count
    }
}

struct RPCRequest: Decodable {
    var jsonrpc: String
    /// Absent in a notification.
    var id: JSONValue?
    var method: String
    var params: [String: JSONValue]?
}

struct RPCResponse: ResponseEncodable {
    var jsonrpc = "2.0"
    var id: JSONValue
    var result: JSONValue?
    var error: RPCError?
}

struct RPCError: Error, Encodable {
    var code: Int
    var message: String

    init(_ code: Int, _ message: String) {
        self.code = code
        self.message = message
    }
}
