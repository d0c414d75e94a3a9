import FlintHTTP
import FlintWire
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Admin REST calls: the credential's header on each, JSON both ways, Firebase's error envelope turned into an
/// `AdminError`.
struct AdminConnection: Sendable {
    let api: URL
    let transport: any HTTPTransport
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
        var request = URLRequest(url: url, timeoutInterval: Self.timeout)
        request.httpMethod = method
        request.setValue(try await accessTokens.authorization(), forHTTPHeaderField: "Authorization")
        if let body {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = try JSONEncoder().encode(body)
        }
        let (data, response) = try await Self.send(request, with: transport)
        guard (200..<300).contains(response.statusCode) else {
            guard let envelope = try? JSONDecoder().decode(ErrorEnvelope.self, from: data) else {
                throw AdminError(.internalError, "\(method) \(path) answered HTTP \(response.statusCode)",
                                 httpStatus: response.statusCode)
            }
            throw AdminError(refusal: envelope, httpStatus: response.statusCode)
        }
        do {
            return try JSONDecoder().decode(Reply.self, from: data)
        } catch {
            throw AdminError(.internalError, "\(method) \(path) answered what cannot be read: \(error)")
        }
    }

    /// Sends `request`; a request that gets no HTTP answer is `networkError`.
    static func send(_ request: URLRequest, with transport: any HTTPTransport) async throws -> (Data, HTTPURLResponse) {
        do {
            let (data, response) = try await transport.data(for: request)
            guard let response = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
            return (data, response)
        } catch {
            throw AdminError(.networkError, "\(request.url?.absoluteString ?? "the server") cannot be reached: "
                             + error.localizedDescription)
        }
    }
}
