import Foundation

/// One HTTP request of an admin client.
public struct AdminHTTPRequest: Sendable {
    public var method: String
    public var url: URL
    /// Header names as sent.
    public var headers: [String: String]
    public var body: Data?
    /// How long the whole exchange may take.
    public var timeout: TimeInterval

    public init(method: String, url: URL, headers: [String: String] = [:], body: Data? = nil, timeout: TimeInterval = 60) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }
}

/// Its answer.
public struct AdminHTTPResponse: Sendable {
    public var status: Int
    /// Header names in lower case.
    public var headers: [String: String]
    public var body: Data

    public init(status: Int, headers: [String: String], body: Data) {
        self.status = status
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
        self.body = body
    }
}

/// Sends an admin client's requests. `FlintAdmin` brings one on URLSession; a server that has an HTTP client of its
/// own (AsyncHTTPClient, say) may pass an adapter to `FlintAdminCore` instead, and keep Foundation's networking (and
/// libcurl, on Linux) out of its process.
public protocol AdminTransport: Sendable {
    /// The answer, whatever its status; throws only when no answer came.
    func send(_ request: AdminHTTPRequest) async throws -> AdminHTTPResponse
}
