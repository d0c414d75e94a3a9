import FlintWire
import Foundation

/// Admin REST calls: the credential's header on each, JSON both ways, Firebase's error envelope turned into an
/// `AdminError`.
struct AdminConnection: Sendable {
    let api: URL
    let transport: any AdminTransport
    let accessTokens: AccessTokens

    /// How long one call may take.
    static let timeout: TimeInterval = 60

    /// `method path` with `body` as JSON (none for nil), answered as `Reply`. `path` starts with `/v1/` or `/v2/` and
    /// may carry a query.
    func call<Reply: Decodable>(_ method: String, _ path: String, body: (any Encodable)? = nil,
                                as reply: Reply.Type = Reply.self) async throws -> Reply {
        guard let url = URL(string: api.absoluteString + path) else {
            throw AdminError(.invalidArgument, "\(path) does not make a URL")
        }
        var request = AdminHTTPRequest(method: method, url: url, timeout: Self.timeout)
        request.headers["Authorization"] = try await accessTokens.authorization()
        if let body {
            request.headers["Content-Type"] = "application/json"
            request.body = try JSONEncoder().encode(body)
        }
        let response = try await Self.send(request, with: transport)
        let (data, status) = (response.body, response.status)
        guard (200..<300).contains(status) else {
            guard let envelope = try? JSONDecoder().decode(ErrorEnvelope.self, from: data) else {
                throw AdminError(.internalError, "\(method) \(path) answered HTTP \(status)", httpStatus: status)
            }
            throw AdminError(refusal: envelope, httpStatus: status)
        }
        do {
            return try JSONDecoder().decode(Reply.self, from: data)
        } catch {
            throw AdminError(.internalError, "\(method) \(path) answered what cannot be read: \(error)")
        }
    }

    /// Sends `request`; a request that gets no HTTP answer is `networkError`.
    static func send(_ request: AdminHTTPRequest, with transport: any AdminTransport) async throws -> AdminHTTPResponse {
        do {
            return try await transport.send(request)
        } catch {
            throw AdminError(.networkError, "\(request.url.absoluteString) cannot be reached: \(error)")
        }
    }
}
