import AsyncHTTPClient
import FlintServer
import FlintWire
import Foundation
import NIOCore

/// A running Flint server, called through the Admin REST API as the Admin SDKs call it. With a key file
/// each request carries a JWT the service account signs for itself (so the project is the key's); without
/// one, `Bearer owner`, which only an emulator-mode server accepts.
struct RemoteBackend: AdminBackend {
    let baseURL: URL
    let projectID: String
    let tenantID: String?
    let keyFile: ServiceAccounts.KeyFile?
    private let http: HTTPClient

    init(baseURL: URL, projectID: String, tenantID: String?, keyFile: ServiceAccounts.KeyFile?, http: HTTPClient) {
        self.baseURL = baseURL
        self.projectID = keyFile?.project_id ?? projectID
        self.tenantID = tenantID
        self.keyFile = keyFile
        self.http = http
    }

    /// Runs `body` with an HTTP client for the commands, shut down afterwards. A server that cannot be reached fails
    /// the command at once: AsyncHTTPClient's shared client would retry a refused connection until the request's
    /// 60 s deadline.
    static func withHTTPClient<Value>(_ body: (HTTPClient) async throws -> Value) async throws -> Value {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.timeout.connect = .seconds(10)
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        do {
            let value = try await body(client)
            try await client.shutdown()
            return value
        } catch {
            try? await client.shutdown()
            throw error
        }
    }

    /// `/v1/projects/{p}/accounts`, or a tenant's `/v1/projects/{p}/tenants/{t}/accounts`.
    private var accounts: String { "/v1/\(Realm(projectID: projectID, tenantID: tenantID).resourceName)/accounts" }

    func createUser(_ request: SignUpRequest) async throws -> String {
        try await call("POST", accounts, body: request, as: SignInResponse.self).localId
    }

    func lookup(_ request: LookupRequest) async throws -> [UserRecord] {
        try await call("POST", accounts + ":lookup", body: request, as: LookupResponse.self).users ?? []
    }

    func list(maxResults: Int, pageToken: String?) async throws -> BatchGetResponse {
        var query = "?maxResults=\(maxResults)"
        if let pageToken { query += "&nextPageToken=" + FormURLEncoding.escape(pageToken) }
        return try await call("GET", accounts + ":batchGet" + query, body: nil as String?, as: BatchGetResponse.self)
    }

    func update(_ request: UpdateAccountRequest) async throws {
        _ = try await call("POST", accounts + ":update", body: request, as: JSONValue.self)
    }

    func deleteUser(_ localID: String) async throws {
        _ = try await call("POST", accounts + ":delete", body: DeleteAccountRequest(localId: localID), as: JSONValue.self)
    }

    func batchCreate(_ request: BatchCreateRequest) async throws -> BatchCreateResponse {
        try await call("POST", accounts + ":batchCreate", body: request, as: BatchCreateResponse.self)
    }

    func config(of projectID: String) async throws -> ProjectConfig {
        try await call("GET", "/v2/projects/\(projectID)/config", body: nil as String?, as: ProjectConfig.self)
    }

    func updateConfig(of projectID: String, _ change: ProjectConfig, updateMask: String?) async throws -> ProjectConfig {
        let query = updateMask.map { "?updateMask=" + FormURLEncoding.escape($0) } ?? ""
        return try await call("PATCH", "/v2/projects/\(projectID)/config" + query, body: change, as: ProjectConfig.self)
    }

    private var tenantsPath: String { "/v2/projects/\(projectID)/tenants" }

    func createTenant(_ config: TenantConfig) async throws -> TenantConfig {
        try await call("POST", tenantsPath, body: config, as: TenantConfig.self)
    }

    func tenants() async throws -> [TenantConfig] {
        var all: [TenantConfig] = []
        var pageToken: String?
        repeat {
            let query = pageToken.map { "?pageToken=" + FormURLEncoding.escape($0) } ?? ""
            let page = try await call("GET", tenantsPath + query, body: nil as String?, as: ListTenantsResponse.self)
            all += page.tenants
            pageToken = page.tenants.isEmpty ? nil : page.nextPageToken
        } while pageToken != nil
        return all
    }

    func deleteTenant(_ tenantID: String) async throws {
        _ = try await call("DELETE", "\(tenantsPath)/\(FormURLEncoding.escape(tenantID))", body: nil as String?, as: JSONValue.self)
    }

    func emulatorData() async throws -> EmulatorDataFolder {
        try await call("GET", "/emulator/v1/projects/\(projectID)/export", body: nil as String?, as: EmulatorDataFolder.self)
    }

    /// One admin request. A Firebase error envelope becomes a `FlintError` with its message.
    func call<Body: Encodable, Reply: Decodable>(_ method: String, _ path: String, body: Body?,
                                                         as reply: Reply.Type) async throws -> Reply {
        var request = HTTPClientRequest(url: baseURL.absoluteString.trimmingCharacters(in: CharacterSet(charactersIn: "/")) + path)
        request.method = .init(rawValue: method)
        request.headers.add(name: "Authorization", value: "Bearer \(try credential())")
        if let body {
            request.body = .bytes(ByteBuffer(bytes: try JSONEncoder().encode(body)))
            request.headers.add(name: "Content-Type", value: "application/json")
        }
        let status: Int
        let data: Data
        do {
            let response = try await http.execute(request, timeout: .seconds(60))
            status = Int(response.status.code)
            data = Data(buffer: try await response.body.collect(upTo: 64 << 20))
        } catch {
            throw FlintError(sentence: "Cannot reach \(baseURL.absoluteString): \(error)", status: .serviceUnavailable,
                             reason: "unavailable")
        }
        guard (200..<300).contains(status) else {
            let message = (try? JSONDecoder().decode(ErrorEnvelope.self, from: data))?.error.message
                ?? "\(method) \(path) answered \(status)"
            throw FlintError(sentence: message, status: .init(code: status), reason: "remote")
        }
        return try JSONDecoder().decode(Reply.self, from: data)
    }

    /// A fresh self-signed JWT for the Identity Toolkit audience (Google's libraries do the same), or
    /// the emulator's `owner`.
    private func credential() throws -> String {
        guard let keyFile else { return "owner" }
        return try keyFile.signedJWT(audience: "https://identitytoolkit.googleapis.com/",
                                     now: Int64(Date().timeIntervalSince1970), lifetime: 300)
    }
}
