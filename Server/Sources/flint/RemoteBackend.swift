import AsyncHTTPClient
import FlintAdminCore
import FlintServer
import FlintWire
import Foundation
import NIOCore

/// A running Flint server, called through FlintAdmin as any Admin SDK calls it. With a key file its calls carry an
/// access token from the server's `/token` (the JWT-bearer grant); without one, `Bearer owner`, which only an
/// emulator-mode server accepts. Account calls go as the wire requests the local backend takes, so a command reads the
/// same either way.
struct RemoteBackend: AdminBackend {
    let auth: AdminAuth
    var projectID: String { auth.projectID }

    init(baseURL: URL, projectID: String, tenantID: String?, keyFile: String?, http: HTTPClient) throws {
        var credential = AdminCredential.emulatorOwner
        if let keyFile {
            var account = try ServiceAccount(contentsOf: URL(fileURLWithPath: keyFile))
            // The server asked for, whatever address it had when it made the key.
            account.tokenURI = baseURL.appendingPathComponent("token")
            credential = .serviceAccount(account)
        }
        let project = try AdminAuth(projectID: keyFile == nil ? projectID : nil, credential: credential,
                                    endpoints: .flint(baseURL), transport: AsyncHTTPClientTransport(client: http))
        auth = tenantID.map(project.tenant) ?? project
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
    private var accounts: String { "/v1/\(auth.resourceName)/accounts" }

    func createUser(_ request: SignUpRequest) async throws -> String {
        try await call("POST", accounts, body: request, as: SignInResponse.self).localId
    }

    func lookup(_ request: LookupRequest) async throws -> [FlintWire.UserRecord] {
        try await call("POST", accounts + ":lookup", body: request, as: LookupResponse.self).users ?? []
    }

    func list(maxResults: Int, pageToken: String?) async throws -> BatchGetResponse {
        var query = "?maxResults=\(maxResults)"
        if let pageToken { query += "&nextPageToken=" + FormURLEncoding.escape(pageToken) }
        return try await call("GET", accounts + ":batchGet" + query, as: BatchGetResponse.self)
    }

    func update(_ request: UpdateAccountRequest) async throws {
        _ = try await call("POST", accounts + ":update", body: request, as: JSONValue.self)
    }

    func deleteUser(_ localID: String) async throws {
        try await remote { try await auth.deleteUser(uid: localID) }
    }

    func batchCreate(_ request: BatchCreateRequest) async throws -> BatchCreateResponse {
        try await call("POST", accounts + ":batchCreate", body: request, as: BatchCreateResponse.self)
    }

    func config(of projectID: String) async throws -> ProjectConfig {
        try await remote { try await auth.project(projectID).projectConfig() }
    }

    func updateConfig(of projectID: String, _ change: ProjectConfig, updateMask: String?) async throws -> ProjectConfig {
        try await remote {
            try await auth.project(projectID).updateProjectConfig(change, updateMask: updateMask.map(Self.fields))
        }
    }

    func createTenant(_ config: TenantConfig) async throws -> TenantConfig {
        try await remote { try await auth.createTenant(config) }
    }

    func tenants() async throws -> [TenantConfig] {
        try await remote {
            var all: [TenantConfig] = []
            for try await page in auth.listTenants() { all += page }
            return all
        }
    }

    func deleteTenant(_ tenantID: String) async throws {
        try await remote { try await auth.deleteTenant(id: tenantID) }
    }

    func emulatorData() async throws -> EmulatorDataFolder {
        try await call("GET", "/emulator/v1/projects/\(projectID)/export", as: EmulatorDataFolder.self)
    }

    /// The fields of an update mask, `a,b.c` → `["a", "b.c"]`.
    static func fields(_ updateMask: String) -> [String] {
        updateMask.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
    }

    /// One admin request through FlintAdmin.
    func call<Reply: Decodable>(_ method: String, _ path: String, body: (any Encodable)? = nil,
                                as reply: Reply.Type) async throws -> Reply {
        try await remote { try await auth.call(method, path, body: body, as: reply) }
    }

    /// Runs a FlintAdmin call; its refusal becomes a `FlintError` with the server's message, as the commands print them.
    func remote<Value>(_ body: () async throws -> Value) async throws -> Value {
        do {
            return try await body()
        } catch let error as AdminError {
            if error.code == .networkError {
                throw FlintError(sentence: "Cannot reach \(auth.endpoints.api.absoluteString): \(error.message)",
                                 status: .serviceUnavailable, reason: "unavailable")
            }
            let message = error.serverCode.map { $0 == error.message ? $0 : "\($0) : \(error.message)" } ?? error.message
            throw FlintError(sentence: message, status: .init(code: error.httpStatus ?? 500), reason: "remote")
        }
    }
}

/// FlintAdmin's requests over AsyncHTTPClient: the server's own HTTP client, so the `flint` process never loads
/// Foundation's networking (and libcurl).
struct AsyncHTTPClientTransport: AdminTransport {
    let client: HTTPClient

    /// The most of an answer read.
    static let maximumBody = 64 << 20

    func send(_ request: AdminHTTPRequest) async throws -> AdminHTTPResponse {
        var outgoing = HTTPClientRequest(url: request.url.absoluteString)
        outgoing.method = .init(rawValue: request.method)
        for (name, value) in request.headers { outgoing.headers.add(name: name, value: value) }
        if let body = request.body { outgoing.body = .bytes(ByteBuffer(bytes: body)) }
        let response = try await client.execute(outgoing, timeout: .milliseconds(Int64(request.timeout * 1000)))
        let body = try await response.body.collect(upTo: Self.maximumBody)
        return AdminHTTPResponse(status: Int(response.status.code),
                                 headers: Dictionary(response.headers.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first }),
                                 body: Data(buffer: body))
    }
}
