@_exported import FlintAdminCore
import FlintHTTP
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// FlintAdmin: FlintAdminCore with URLSession to send its requests, the way most apps want it. A server that would
// rather use its own HTTP client imports FlintAdminCore and passes an `AdminTransport`.

/// Admin requests over the URLSession FlintAuth also uses (ephemeral: no cookies, no cache).
public struct URLSessionAdminTransport: AdminTransport {
    public static let shared = URLSessionAdminTransport()

    private let transport: any HTTPTransport

    init(transport: any HTTPTransport = URLSessionTransport.shared) {
        self.transport = transport
    }

    public func send(_ request: AdminHTTPRequest) async throws -> AdminHTTPResponse {
        var urlRequest = URLRequest(url: request.url, timeoutInterval: request.timeout)
        urlRequest.httpMethod = request.method
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        urlRequest.httpBody = request.body
        let (data, response) = try await transport.data(for: urlRequest)
        guard let response = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
        var headers: [String: String] = [:]
        for case let (name as String, value as String) in response.allHeaderFields { headers[name] = value }
        return AdminHTTPResponse(status: response.statusCode, headers: headers, body: data)
    }
}

extension AdminAuth {
    /// A client that sends its requests with URLSession; see `init(projectID:credential:endpoints:clockSkew:transport:now:)`.
    public convenience init(projectID: String? = nil, credential: AdminCredential, endpoints: AdminEndpoints,
                            clockSkew: Int = 0, now: @escaping @Sendable () -> Date = Date.init) throws {
        try self.init(projectID: projectID, credential: credential, endpoints: endpoints, clockSkew: clockSkew,
                      transport: URLSessionAdminTransport.shared, now: now)
    }

    /// A service account's client on `endpoints`, or on the emulator `FIREBASE_AUTH_EMULATOR_HOST` names, with URLSession.
    public convenience init(serviceAccount: ServiceAccount, endpoints: AdminEndpoints = .firebase,
                            environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        try self.init(serviceAccount: serviceAccount, endpoints: endpoints, environment: environment,
                      transport: URLSessionAdminTransport.shared)
    }
}
