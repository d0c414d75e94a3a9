import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sends one HTTP request. `URLSession` in production; tests substitute recording clients.
protocol AuthHTTPClient: Sendable {
    func data(for request: URLRequest) async throws -> (Data, URLResponse)
}

/// The production client: an ephemeral `URLSession` (no cookies, no cache) shared by all `Auth`s.
struct URLSessionHTTPClient: AuthHTTPClient {
    static let shared = URLSessionHTTPClient()

    private let session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        return URLSession(configuration: configuration)
    }()

    func data(for request: URLRequest) async throws -> (Data, URLResponse) {
        try await session.data(for: request)
    }
}
