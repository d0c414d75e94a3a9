import FlintWire
import Foundation
import Hummingbird
import Logging
import NIOCore

/// Where the management listener binds: health, readiness and metrics, apart from the public port (Keycloak's
/// pattern), so that a load balancer and Prometheus reach them and the internet does not.
public struct ManagementConfiguration: Sendable, Equatable {
    public var host: String
    /// 0: a port the kernel picks (tests).
    public var port: Int

    public init(host: String = "127.0.0.1", port: Int = 9100) {
        self.host = host
        self.port = port
    }
}

/// The management listener: `GET /healthz` (the process runs), `GET /readyz` (the store answers with its schema
/// migrated, and a signing key is loaded; else 503 and the reasons) and `GET /metrics` (Prometheus text format).
struct ManagementServer {
    let configuration: ManagementConfiguration
    let metrics: ServerMetrics
    let readiness: Readiness
    let logger: Logger

    func application(onRunning: @escaping @Sendable (Int) async -> Void) -> some ApplicationProtocol {
        let router = Router()
        router.get("/healthz") { _, _ in try JSONBody.response(["status": "ok"] as JSONValue) }
        router.get("/readyz") { _, _ -> Response in
            let problems = await readiness.problems()
            let body: JSONValue = problems.isEmpty
                ? ["status": "ready"]
                : ["status": "unavailable", "reasons": .array(problems.map(JSONValue.string))]
            return try JSONBody.response(body, status: problems.isEmpty ? .ok : .serviceUnavailable)
        }
        let metrics = self.metrics
        router.get("/metrics") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(bytes: metrics.exposition())))
        }
        return Application(
            router: router,
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "flint-management"),
            onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? configuration.port) },
            logger: logger)
    }
}

/// Whether a node can serve: what `/readyz` asks.
struct Readiness: Sendable {
    let store: Store
    let keyring: SigningKeyring
    /// How long the store may take to answer before the node counts as not ready.
    var storeTimeout: TimeAmount = .seconds(2)

    /// Empty when ready; otherwise one sentence per problem.
    func problems() async -> [String] {
        var problems: [String] = []
        // Not `withDeadline`: a store query that hangs must not keep the answer (see `answer(within:)`).
        switch await answer(within: storeTimeout, { [store] in try await store.appliedSchemaVersion() }) {
        case .success(let version)?:
            if version < Migrations.latestVersion {
                problems.append("the store's schema is at version \(version), this server needs \(Migrations.latestVersion)")
            }
        case .failure?, nil:
            problems.append("the store does not answer")
        }
        if keyring.keyIDs.isEmpty { problems.append("no signing key is loaded") }
        return problems
    }
}

extension Migrations {
    static var latestVersion: Int64 { steps.last?.version ?? 0 }
}

extension Store {
    /// The newest schema migration applied to the store: a query that also tells whether it answers.
    func appliedSchemaVersion() async throws -> Int64 {
        try await database.query("SELECT MAX(version) AS version FROM schema_migrations").first?.int("version") ?? 0
    }
}
