import Foundation
import NIOCore
import NIOSSL

/// A `postgres://user:password@host:port/database?sslmode=…` URL, read as libpq reads it.
///
/// Query parameters (libpq's names and meanings; others are ignored):
/// - `sslmode`: `disable`; `allow` or `prefer` (the default: TLS when the server offers it, else plain;
///   postgres-nio has no plain-first mode, so `allow` behaves as `prefer`); `require` (TLS, certificate not
///   checked); `verify-ca` (TLS, the server's certificate chains to a trusted CA); `verify-full` (that, and the
///   certificate names the host).
/// - `sslrootcert`: the PEM file of the CAs to trust (else the system's). As in libpq, `require` with a root
///   certificate checks the chain, like `verify-ca`.
/// - `sslcert`, `sslkey`: a PEM client certificate and its key, for servers that ask for one (both or neither).
/// - `hostaddr`: the IP address to connect to; the host name is then only checked against the certificate.
/// - `pool_size` (Flint's own, not libpq's): how many connections this node keeps open, 1–1000, default 10. See
///   `PostgresDatabase` for why the pool is fixed-size; with several nodes, keep their sum below the server's
///   `max_connections`.
///
/// Host names are checked as swift-nio-ssl checks them: a certificate also passes `verify-full` when one of its IP
/// entries is the address connected to.
public struct PostgresURL: Sendable, Equatable {
    public enum SSLMode: String, Sendable, CaseIterable {
        case disable, allow, prefer, require
        case verifyCA = "verify-ca"
        case verifyFull = "verify-full"
    }

    /// How much of the server's certificate is checked.
    public enum Verification: Sendable, Equatable {
        case none
        case chain
        case chainAndHostname
    }

    /// The TLS a connection uses: nil for none; otherwise whether a server without TLS is refused, and what is checked.
    public struct TLSPolicy: Sendable, Equatable {
        public var required: Bool
        public var verification: Verification

        public init(required: Bool, verification: Verification) {
            self.required = required
            self.verification = verification
        }
    }

    public var host: String
    public var port: Int
    public var username: String
    public var password: String?
    public var database: String?
    public var hostAddress: String?
    public var sslMode: SSLMode
    public var rootCertificatePath: String?
    public var clientCertificatePath: String?
    public var clientKeyPath: String?
    public var poolSize: Int

    /// Connections per node when the URL does not say.
    public static let defaultPoolSize = 10

    public init(_ url: String) throws(PostgresURLError) {
        guard let components = URLComponents(string: url),
              components.scheme == "postgres" || components.scheme == "postgresql",
              let host = components.host, !host.isEmpty,
              let user = components.percentEncodedUser?.removingPercentEncoding
        else { throw .invalidURL }
        var parameters: [String: String] = [:]
        for item in components.queryItems ?? [] { parameters[item.name] = item.value ?? "" }
        let mode = parameters["sslmode"] ?? SSLMode.prefer.rawValue
        guard let sslMode = SSLMode(rawValue: mode) else { throw .unknownSSLMode(mode) }
        self.host = host
        self.port = components.port ?? 5432
        // Decoded once, from the encoded parts: a password may contain `%` itself.
        self.username = user
        self.password = components.percentEncodedPassword?.removingPercentEncoding
        self.database = components.percentEncodedPath.split(separator: "/").first.flatMap { $0.removingPercentEncoding }
        self.hostAddress = parameters["hostaddr"]
        self.sslMode = sslMode
        self.rootCertificatePath = parameters["sslrootcert"]
        self.clientCertificatePath = parameters["sslcert"]
        self.clientKeyPath = parameters["sslkey"]
        if (clientCertificatePath == nil) != (clientKeyPath == nil) { throw .clientCertificateWithoutKey }
        let poolSize = parameters["pool_size"].map { Int($0) ?? 0 } ?? Self.defaultPoolSize
        guard (1...1000).contains(poolSize) else { throw .invalidPoolSize(parameters["pool_size"] ?? "") }
        self.poolSize = poolSize
    }

    public var tlsPolicy: TLSPolicy? {
        switch sslMode {
        case .disable: nil
        case .allow, .prefer: TLSPolicy(required: false, verification: .none)
        case .require: TLSPolicy(required: true, verification: rootCertificatePath == nil ? .none : .chain)
        case .verifyCA: TLSPolicy(required: true, verification: .chain)
        case .verifyFull: TLSPolicy(required: true, verification: .chainAndHostname)
        }
    }

    /// Where to open the TCP connection: `hostaddr` if given, else the host.
    var connectHost: String { hostAddress ?? host }

    /// The name the certificate must carry when `hostaddr` is used; otherwise postgres-nio checks the host
    /// itself. An IP address is no name (nor valid in SNI): the certificate's IP entries are then checked against
    /// the address connected to, with or without `hostaddr`.
    var tlsServerName: String? {
        guard hostAddress != nil, (try? SocketAddress(ipAddress: host, port: 0)) == nil else { return nil }
        return host
    }

    /// The TLS settings for `tlsPolicy`, certificate files read; nil when TLS is off.
    func tlsConfiguration() throws(PostgresURLError) -> TLSConfiguration? {
        guard let policy = tlsPolicy else { return nil }
        var configuration = TLSConfiguration.makeClientConfiguration()
        switch policy.verification {
        case .none: configuration.certificateVerification = .none
        case .chain: configuration.certificateVerification = .noHostnameVerification
        case .chainAndHostname: configuration.certificateVerification = .fullVerification
        }
        if let path = rootCertificatePath {
            configuration.trustRoots = .certificates(try Self.read("sslrootcert", path) { try NIOSSLCertificate.fromPEMFile($0) })
        }
        if let certificatePath = clientCertificatePath, let keyPath = clientKeyPath {
            configuration.certificateChain = try Self.read("sslcert", certificatePath) { try NIOSSLCertificate.fromPEMFile($0) }
                .map { .certificate($0) }
            configuration.privateKey = .privateKey(try Self.read("sslkey", keyPath) { try NIOSSLPrivateKey(file: $0, format: .pem) })
        }
        return configuration
    }

    private static func read<T>(_ parameter: String, _ path: String, _ load: (String) throws -> T) throws(PostgresURLError) -> T {
        do {
            return try load(path)
        } catch {
            throw .unreadableFile(parameter: parameter, path: path, reason: "\(error)")
        }
    }
}

/// A database URL Flint cannot use; reported at startup.
public enum PostgresURLError: Error, Equatable, CustomStringConvertible {
    case invalidURL
    case unknownSSLMode(String)
    case clientCertificateWithoutKey
    case unreadableFile(parameter: String, path: String, reason: String)
    case invalidPoolSize(String)

    public var description: String {
        switch self {
        case .invalidURL:
            "invalid PostgreSQL URL (expected postgres://user:password@host:port/db)"
        case .unknownSSLMode(let mode):
            "unknown sslmode \"\(mode)\" in the PostgreSQL URL (expected one of: "
                + PostgresURL.SSLMode.allCases.map(\.rawValue).joined(separator: ", ") + ")"
        case .clientCertificateWithoutKey:
            "the PostgreSQL URL names sslcert or sslkey without the other"
        case .invalidPoolSize(let value):
            "pool_size \"\(value)\" in the PostgreSQL URL is not a whole number from 1 to 1000"
        case .unreadableFile(let parameter, let path, let reason):
            "cannot read \(parameter) \(path) of the PostgreSQL URL: \(reason)"
        }
    }
}
