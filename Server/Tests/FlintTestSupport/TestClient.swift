import FlintWire
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A raw HTTP client for server tests: sends JSON, returns the status and the decoded JSON body.
public struct TestClient: Sendable {
    public let baseURL: URL
    public let apiKey: String?
    /// The tests' common session, or one of its own for a test that floods its server (so the flood does
    /// not queue other tests' requests behind it).
    public let session: URLSession

    /// The common session. Its requests may take up to five minutes: the whole suite runs in parallel on
    /// few cores, and a sign-in's scrypt waits for the shared hashing threads; a slow answer under that load
    /// is not a failure (the CI limit still bounds the run).
    public static let commonSession: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 300
        return URLSession(configuration: configuration)
    }()

    public init(baseURL: URL, apiKey: String?, session: URLSession = TestClient.commonSession) {
        self.baseURL = baseURL
        self.apiKey = apiKey
        self.session = session
    }

    public init(_ server: TestServer) {
        self.init(baseURL: server.baseURL, apiKey: server.apiKey)
    }

    /// The same client on a session of its own that opens up to `connections` connections at once.
    public func flooding(connections: Int) -> TestClient {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = connections
        configuration.timeoutIntervalForRequest = 300
        return TestClient(baseURL: baseURL, apiKey: apiKey, session: URLSession(configuration: configuration))
    }

    public struct Reply: Sendable {
        public let status: Int
        public let body: JSONValue
        public let headers: [String: String]
        /// The body as received, for byte-for-byte comparisons.
        public let data: Data

        public subscript(key: String) -> JSONValue? { body.objectValue?[key] }
        public func string(_ key: String) -> String? { self[key]?.stringValue }

        /// The `error.message` of an error reply.
        public var errorMessage: String? { body.objectValue?["error"]?.objectValue?["message"]?.stringValue }
    }

    /// POSTs `body` (a JSON object, or raw text) to `path` (e.g. `/v1/accounts:signUp`), adding `?key=`.
    public func post(_ path: String, _ body: [String: JSONValue], headers: [String: String] = [:]) async throws -> Reply {
        try await send("POST", path, body: JSONEncoder().encode(JSONValue.object(body)), headers: headers)
    }

    public func send(_ method: String, _ path: String, body: Data? = nil, headers: [String: String] = [:],
                     includeKey: Bool = true) async throws -> Reply {
        var components = URLComponents(url: baseURL.appendingPathComponent(""), resolvingAgainstBaseURL: false)!
        let pathAndQuery = path.split(separator: "?", maxSplits: 1)
        components.percentEncodedPath = String(pathAndQuery[0])
        var query = pathAndQuery.count > 1 ? String(pathAndQuery[1]) : ""
        if includeKey, let apiKey { query += (query.isEmpty ? "" : "&") + "key=\(apiKey)" }
        components.percentEncodedQuery = query.isEmpty ? nil : query
        var request = URLRequest(url: components.url!)
        request.httpMethod = method
        request.httpBody = body
        if body != nil { request.setValue("application/json", forHTTPHeaderField: "Content-Type") }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let server = "\(baseURL.host ?? ""):\(baseURL.port ?? 0)"
        TestSecrets.noteFields(of: body, server: server)
        let (data, response) = try await session.data(for: request)
        let http = response as! HTTPURLResponse
        let json = data.isEmpty ? JSONValue.null : (try? JSONDecoder().decode(JSONValue.self, from: data)) ?? .string(String(decoding: data, as: UTF8.self))
        TestSecrets.noteFields(of: json, server: server)
        var replyHeaders: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { replyHeaders[name.lowercased()] = value }
        }
        return Reply(status: http.statusCode, body: json, headers: replyHeaders, data: data)
    }
}
