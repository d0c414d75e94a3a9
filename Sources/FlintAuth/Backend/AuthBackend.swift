import FlintWire
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What every request of one `Auth` needs, captured when the request starts.
struct RequestConfiguration: Sendable {
    var apiKey: String
    /// Where the Google-host-prefixed paths are served (a Flint server or an emulator);
    /// nil for Google's production hosts.
    var baseURL: URL?
    var languageCode: String?
    var tenantID: String?
}

/// Issues JSON RPCs to the Identity Toolkit and Secure Token APIs and turns failures into
/// `FIRAuthErrorDomain` errors.
struct AuthBackend: Sendable {
    /// The `X-Client-Version` header value.
    static let clientVersion = "Flint/Swift/0.1.0"

    let configuration: RequestConfiguration
    let httpClient: any AuthHTTPClient
    /// Called when the server rejects a password for breaking the password policy (`passwordDoesNotMeetRequirements`).
    var passwordRejected: @Sendable () -> Void = {}

    /// The URL of `endpoint`: `https://{host}/{path}?key=…` in production, `{base}/{host}/{path}?key=…` otherwise,
    /// followed by `query`.
    func url(for endpoint: Endpoint, query: [URLQueryItem] = []) -> URL {
        var root = "https://"
        if let base = configuration.baseURL?.absoluteString {
            root = base.hasSuffix("/") ? base : base + "/"
        }
        var parameters = "key=" + Self.queryEncoded(configuration.apiKey)
        for item in query {
            parameters += "&" + Self.queryEncoded(item.name) + "=" + Self.queryEncoded(item.value ?? "")
        }
        guard let url = URL(string: "\(root)\(endpoint.hostAndPath)?\(parameters)") else {
            preconditionFailure("Invalid Auth base URL: \(root)")
        }
        return url
    }

    /// `tenantId` of the configured tenant, for the GET methods that take one; empty without a tenant.
    var tenantQuery: [URLQueryItem] {
        configuration.tenantID.map { [URLQueryItem(name: "tenantId", value: $0)] } ?? []
    }

    private static func queryEncoded(_ text: String) -> String {
        var allowed = CharacterSet.urlQueryAllowed
        allowed.remove(charactersIn: "&+=?#")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    /// POSTs `body` as JSON to `endpoint` and decodes a 2xx answer as `Response`. A tenant-scoped body gets
    /// the configured tenant. Throws `networkError` when no answer arrives, the mapped server error for a
    /// non-2xx answer, and `internalError` for an answer that cannot be decoded.
    func post<Response: Decodable>(_ endpoint: Endpoint, _ body: some Encodable) async throws -> Response {
        var payload: any Encodable = body
        if var scoped = body as? any TenantScopedRequest {
            scoped.tenantId = configuration.tenantID
            payload = scoped
        }
        var request = URLRequest(url: url(for: endpoint))
        request.httpMethod = "POST"
        request.httpBody = try JSONEncoder().encode(payload)
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        return try await send(request)
    }

    /// GETs `endpoint` with the extra `query` parameters; answers and failures as for `post`.
    func get<Response: Decodable>(_ endpoint: Endpoint, query: [URLQueryItem] = []) async throws -> Response {
        var request = URLRequest(url: url(for: endpoint, query: query))
        request.httpMethod = "GET"
        return try await send(request)
    }

    private func send<Response: Decodable>(_ request: URLRequest) async throws -> Response {
        var request = request
        request.setValue(Self.clientVersion, forHTTPHeaderField: "X-Client-Version")
        if let languageCode = configuration.languageCode {
            request.setValue(languageCode, forHTTPHeaderField: "X-Firebase-Locale")
        }

        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await httpClient.data(for: request)
        } catch {
            throw AuthErrorUtils.networkError(underlying: error)
        }

        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard (200..<300).contains(status) else {
            guard let envelope = try? JSONDecoder().decode(ErrorEnvelope.self, from: data) else {
                throw AuthErrorUtils.internalError(response: "HTTP \(status): \(String(decoding: data, as: UTF8.self))")
            }
            let error = AuthErrorUtils.serverError(envelope)
            if AuthErrorCode(error) == .passwordDoesNotMeetRequirements {
                passwordRejected()
            }
            throw error
        }
        do {
            return try JSONDecoder().decode(Response.self, from: data)
        } catch {
            throw AuthErrorUtils.internalError(response: String(decoding: data, as: UTF8.self), underlying: error)
        }
    }
}
