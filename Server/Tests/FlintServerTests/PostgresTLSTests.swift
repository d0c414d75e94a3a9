import Crypto
@testable import FlintServer
import FlintTestSupport
import Foundation
import Logging
import NIOCore
import Testing
import X509

/// libpq's `sslmode` and certificate parameters in the PostgreSQL URL: parsed, and used against the test server,
/// which accepts TLS with a certificate for localhost and 127.0.0.1 (`scripts/postgres.sh`).
@Suite struct PostgresTLSTests {
    /// Closing a pool right after its first query cancels the connections it was still opening, which
    /// postgres-nio reports at info level.
    private static let logger = {
        var logger = Logger(label: "test")
        logger.logLevel = .warning
        return logger
    }()

    // MARK: Parsing

    @Test(arguments: [
        ("", PostgresURL.TLSPolicy(required: false, verification: .none)),
        ("?sslmode=allow", .init(required: false, verification: .none)),
        ("?sslmode=prefer", .init(required: false, verification: .none)),
        ("?sslmode=require", .init(required: true, verification: .none)),
        ("?sslmode=require&sslrootcert=/ca.pem", .init(required: true, verification: .chain)),
        ("?sslmode=verify-ca", .init(required: true, verification: .chain)),
        ("?sslmode=verify-full&sslrootcert=/ca.pem", .init(required: true, verification: .chainAndHostname)),
    ])
    func modesGiveTheirTLSPolicy(query: String, policy: PostgresURL.TLSPolicy) throws {
        #expect(try PostgresURL("postgres://u:p@db.example.com:5433/flint" + query).tlsPolicy == policy)
    }

    @Test func disableTurnsTLSOff() throws {
        #expect(try PostgresURL("postgres://u@db/flint?sslmode=disable").tlsPolicy == nil)
    }

    @Test func partsAndParametersAreRead() throws {
        let url = try PostgresURL(
            "postgresql://fl%40nt:p%2Fw%2541@db.example.com:5433/flint?sslmode=verify-full&sslrootcert=/etc/ca.pem"
                + "&sslcert=/etc/client.pem&sslkey=/etc/client.key&hostaddr=10.0.0.5&application_name=x")
        #expect(url.host == "db.example.com" && url.port == 5433 && url.database == "flint")
        #expect(url.username == "fl@nt" && url.password == "p/w%41")
        #expect(url.sslMode == .verifyFull && url.hostAddress == "10.0.0.5")
        #expect(url.rootCertificatePath == "/etc/ca.pem")
        #expect(url.clientCertificatePath == "/etc/client.pem" && url.clientKeyPath == "/etc/client.key")
        let plain = try PostgresURL("postgres://u@db")
        #expect(plain.port == 5432 && plain.database == nil && plain.password == nil && plain.sslMode == .prefer)
        #expect(plain.poolSize == PostgresURL.defaultPoolSize && url.poolSize == PostgresURL.defaultPoolSize)
        #expect(try PostgresURL("postgres://u@db/f?pool_size=4").poolSize == 4)
    }

    @Test func placeholdersAreNumberedInOrder() {
        let query = PostgresDatabase.makeQuery(
            "SELECT 'é' AS a WHERE x IN (" + Array(repeating: "?", count: 11).joined(separator: ", ") + ")",
            Array(repeating: .int(1), count: 11))
        #expect(query.sql == "SELECT 'é' AS a WHERE x IN ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)")
        #expect(query.binds.count == 11)
    }

    /// Every connection inside the pool's minimum and no keep-alive: postgres-nio then arms no timer when a query
    /// hands its connection back (each cancelled timer held memory until its deadline; see `PostgresDatabase`).
    @Test func thePoolIsFixedSizeWithoutTimers() throws {
        let pool = PostgresDatabase.poolConfiguration(try PostgresURL("postgres://u@db/f?pool_size=6"), connections: 3, tls: nil)
        #expect(pool.options.minimumConnections == 3 && pool.options.maximumConnections == 3)
        #expect(pool.options.keepAliveBehavior == nil)
    }

    /// `pool_size` is shared out among the event loops' pools (`PostgresPrimary.Pool`), every connection in one.
    @Test func thePoolSizeIsSharedOutAmongTheLoops() {
        #expect(PostgresPrimary.Pool.shares(of: 10, among: 2) == [5, 5])
        #expect(PostgresPrimary.Pool.shares(of: 10, among: 4) == [3, 3, 2, 2])
        #expect(PostgresPrimary.Pool.shares(of: 1, among: 2) == [1])
        #expect(PostgresPrimary.Pool.shares(of: 3, among: 8) == [1, 1, 1])
        #expect(PostgresPrimary.Pool.shares(of: 7, among: 1) == [7])
    }

    @Test func badURLsAreRefusedWithTheirReason() {
        #expect(throws: PostgresURLError.unknownSSLMode("verify_full")) { try PostgresURL("postgres://u@db/f?sslmode=verify_full") }
        #expect(throws: PostgresURLError.invalidURL) { try PostgresURL("mysql://u@db/f") }
        #expect(throws: PostgresURLError.invalidURL) { try PostgresURL("postgres://db/f") }
        #expect(throws: PostgresURLError.clientCertificateWithoutKey) { try PostgresURL("postgres://u@db/f?sslcert=/c.pem") }
        for size in ["0", "1001", "ten", ""] {
            #expect(throws: PostgresURLError.invalidPoolSize(size)) { try PostgresURL("postgres://u@db/f?pool_size=\(size)") }
        }
        #expect(PostgresURLError.unknownSSLMode("on").description.contains("disable, allow, prefer, require, verify-ca, verify-full"))
    }

    @Test func anUnreadableRootCertificateStopsStartup() async throws {
        await #expect(throws: PostgresURLError.self) {
            try await PostgresDatabase.connect(url: "postgres://u@127.0.0.1/f?sslmode=verify-full&sslrootcert=/nonexistent/ca.pem",
                                               logger: Self.logger)
        }
    }

    // MARK: Against the test server

    /// The test server's URL with `query`; with `host`, connecting through `forwarder` (`hostaddr`) instead.
    private func serverURL(_ query: [String: String], host: String? = nil, through forwarder: TCPForwarder? = nil) throws -> String {
        var components = try #require(URLComponents(string: try ScratchDatabase.baseURL()))
        var items = query.map { URLQueryItem(name: $0.key, value: $0.value) }
        if let host, let forwarder {
            items.append(URLQueryItem(name: "hostaddr", value: Self.forwarderAddress))
            components.host = host
            components.port = forwarder.port
        }
        components.queryItems = items.isEmpty ? nil : items
        return try #require(components.string)
    }

    /// Another loopback address, which the server's certificate does not name (it names 127.0.0.1 and localhost).
    private static let forwarderAddress = "127.0.0.2"

    /// Runs `body` with a forwarder from `forwarderAddress` to the test server.
    private func withForwarder(_ body: (TCPForwarder) async throws -> Void) async throws {
        let server = try #require(URLComponents(string: try ScratchDatabase.baseURL()))
        let target = try SocketAddress(ipAddress: try #require(server.host), port: server.port ?? 5432)
        let forwarder = try await TCPForwarder.start(host: Self.forwarderAddress, forwardingTo: target)
        do {
            try await body(forwarder)
        } catch {
            try? await forwarder.stop()
            throw error
        }
        try await forwarder.stop()
    }

    /// Whether the session `url` opens is encrypted, as the server sees it.
    private func usesTLS(_ url: String) async throws -> Bool {
        let database = try await PostgresDatabase.connect(url: url, logger: Self.logger)
        do {
            let rows = try await database.query("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()", [])
            try await database.close()
            return rows.first?.int("ssl") == 1
        } catch {
            try? await database.close()
            throw error
        }
    }

    /// Why connecting to `url` fails.
    private func connectionFailure(_ url: String) async throws -> String {
        do {
            let database = try await PostgresDatabase.connect(url: url, logger: Self.logger)
            try await database.close()
        } catch let error as PostgresConnectError {
            return error.description
        }
        Issue.record("connecting to \(url) succeeded")
        return ""
    }

    @Test func verifyFullWithTheServersCAWorksAndTheStoreRunsOnIt() async throws {
        let ca = try ScratchDatabase.certificateAuthorityPath()
        #expect(try await usesTLS(try serverURL(["sslmode": "verify-full", "sslrootcert": ca])))
        #expect(try await usesTLS(try serverURL(["sslmode": "verify-full", "sslrootcert": ca], host: "localhost")))

        let scratch = try await ScratchDatabase.make(.postgres)
        let scratchURL = try #require(scratch.databaseURL)
        var components = try #require(URLComponents(string: scratchURL))
        components.queryItems = [URLQueryItem(name: "sslmode", value: "verify-full"), URLQueryItem(name: "sslrootcert", value: ca)]
        let store = try await Store.open(databaseURL: components.string, dataDirectory: scratch.dataDirectory, logger: Self.logger)
        do {
            try await store.accounts.createUser(UserAccount(projectID: "p1", localID: "tls", createdAt: 1_700_000_000_000))
            #expect(try await store.accounts.user(projectID: "p1", localID: "tls")?.localID == "tls")
            try await store.close()
        } catch {
            try? await store.close()
            try await scratch.drop()
            throw error
        }
        try await scratch.drop()
    }

    @Test func verifyFullRefusesACertificateFromAnotherCA() async throws {
        _ = try ScratchDatabase.certificateAuthorityPath()
        let otherCA = try SelfSignedCertificate(commonName: "Some other CA")
        defer { otherCA.remove() }
        for mode in ["verify-full", "verify-ca", "require"] {
            let failure = try await connectionFailure(try serverURL(["sslmode": mode, "sslrootcert": otherCA.certificatePath]))
            #expect(failure.contains("sslmode=\(mode)") && failure.contains("CERTIFICATE_VERIFY_FAILED"), "\(failure)")
        }
    }

    @Test func verifyFullRefusesAHostTheCertificateDoesNotName() async throws {
        let ca = try ScratchDatabase.certificateAuthorityPath()
        try await withForwarder { forwarder in
            let verifyFull = ["sslmode": "verify-full", "sslrootcert": ca]
            let failure = try await connectionFailure(try serverURL(verifyFull, host: "db.example.test", through: forwarder))
            #expect(failure.contains("db.example.test") && failure.contains("failedToValidateHostname"), "\(failure)")
            let byAddress = try await connectionFailure(try serverURL(verifyFull, host: Self.forwarderAddress, through: forwarder))
            #expect(byAddress.contains("failedToValidateHostname"), "\(byAddress)")
            // The name the certificate carries passes, whichever address it was reached at; verify-ca checks the chain only.
            #expect(try await usesTLS(try serverURL(verifyFull, host: "localhost", through: forwarder)))
            #expect(try await usesTLS(try serverURL(["sslmode": "verify-ca", "sslrootcert": ca], host: "db.example.test", through: forwarder)))
        }
    }

    /// The server asks for no client certificate, but the files are read and the connection made with them.
    @Test func aClientCertificateIsLoaded() async throws {
        let client = try SelfSignedCertificate(commonName: "A client")
        defer { client.remove() }
        #expect(try await usesTLS(try serverURL(["sslmode": "require", "sslcert": client.certificatePath, "sslkey": client.keyPath])))
        let notAKey = try serverURL(["sslmode": "require", "sslcert": client.certificatePath, "sslkey": client.certificatePath])
        await #expect(throws: PostgresURLError.self) { try await PostgresDatabase.connect(url: notAKey, logger: Self.logger) }
    }

    @Test func requirePreferAndDisableNeedNoCA() async throws {
        #expect(try await usesTLS(try serverURL(["sslmode": "require"])))
        #expect(try await usesTLS(try serverURL([:])))
        #expect(try await usesTLS(try serverURL(["sslmode": "allow"])))
        #expect(try await usesTLS(try serverURL(["sslmode": "disable"])) == false)
    }
}
