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
/// - `target_session_attrs`: with several hosts, which one to use: `any` (the default: the first that answers),
///   `read-write` (the first that accepts writes: `SHOW transaction_read_only` is off) or `primary` (the first not
///   in recovery). Flint follows the target when it moves (a failover): see `PostgresPrimary`.
/// - `host`, `port`: libpq's lists in the query (`?host=h1,h2&port=5432,5433`), instead of the URL's own hosts.
/// - `pool_size` (Flint's own, not libpq's): how many connections this node keeps open, 1–1000, default 10. See
///   `PostgresDatabase` for why the pool is fixed-size; with several nodes, keep their sum below the server's
///   `max_connections`.
///
/// Several hosts are written as libpq writes them: `postgres://u:p@h1:5432,h2:5433/db?target_session_attrs=read-write`
/// (a host without a port has 5432), or in the query: the ports then one for all hosts or one per host.
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

    /// libpq's `target_session_attrs`: which of several hosts a connection is for.
    public enum TargetSessionAttributes: String, Sendable, CaseIterable {
        case any
        case readWrite = "read-write"
        case primary
    }

    /// One server of the URL's list.
    public struct Endpoint: Sendable, Equatable, CustomStringConvertible {
        public var host: String
        public var port: Int

        public init(host: String, port: Int) {
            self.host = host
            self.port = port
        }

        public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
    }

    /// The first host (the only one, unless the URL lists several).
    public var host: String
    public var port: Int
    /// Every host, in the URL's order; the first is `host` and `port`.
    public var hosts: [Endpoint]
    public var targetSessionAttributes: TargetSessionAttributes
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
        let (single, listed) = try Self.splitHosts(url)
        guard let components = URLComponents(string: single),
              components.scheme == "postgres" || components.scheme == "postgresql",
              let user = components.percentEncodedUser?.removingPercentEncoding
        else { throw .invalidURL }
        var parameters: [String: String] = [:]
        for item in components.queryItems ?? [] { parameters[item.name] = item.value ?? "" }
        let mode = parameters["sslmode"] ?? SSLMode.prefer.rawValue
        guard let sslMode = SSLMode(rawValue: mode) else { throw .unknownSSLMode(mode) }
        let hosts: [Endpoint]
        if let names = parameters["host"] {
            hosts = try Self.endpoints(names: names, ports: parameters["port"])
        } else if let listed {
            hosts = listed
        } else {
            guard let host = components.host, !host.isEmpty else { throw .invalidURL }
            hosts = [Endpoint(host: host, port: components.port ?? 5432)]
        }
        let target = parameters["target_session_attrs"] ?? TargetSessionAttributes.any.rawValue
        guard let targetSessionAttributes = TargetSessionAttributes(rawValue: target) else { throw .unknownTargetSessionAttributes(target) }
        if hosts.count > 1, parameters["hostaddr"] != nil { throw .hostAddressWithSeveralHosts }
        self.hosts = hosts
        self.host = hosts[0].host
        self.port = hosts[0].port
        self.targetSessionAttributes = targetSessionAttributes
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

    /// This URL for one of its hosts: the settings of a connection to it.
    public func only(_ endpoint: Endpoint) -> PostgresURL {
        var settings = self
        settings.host = endpoint.host
        settings.port = endpoint.port
        settings.hosts = [endpoint]
        return settings
    }

    /// The URL with a list of hosts in its authority (`h1:p1,h2:p2`) replaced by its first, which `URLComponents`
    /// reads, and the list; the URL as it is, and nil, when it names one host.
    private static func splitHosts(_ url: String) throws(PostgresURLError) -> (url: String, hosts: [Endpoint]?) {
        guard let schemeEnd = url.range(of: "://") else { return (url, nil) }
        let rest = url[schemeEnd.upperBound...]
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        let hostsStart = authority.lastIndex(of: "@").map { authority.index(after: $0) } ?? authority.startIndex
        let list = authority[hostsStart...]
        guard list.contains(",") else { return (url, nil) }
        var hosts: [Endpoint] = []
        for item in list.split(separator: ",", omittingEmptySubsequences: false) {
            var name = Substring(item)
            var port = 5432
            if let colon = name.lastIndex(of: ":"), !name[colon...].contains("]") {
                guard let number = Int(name[name.index(after: colon)...]), (1...65535).contains(number) else { throw .invalidURL }
                port = number
                name = name[..<colon]
            }
            if name.hasPrefix("["), name.hasSuffix("]") { name = name.dropFirst().dropLast() }
            guard let host = String(name).removingPercentEncoding, !host.isEmpty else { throw .invalidURL }
            hosts.append(Endpoint(host: host, port: port))
        }
        return (String(url[..<hostsStart]) + hosts[0].description + url[authorityEnd...], hosts)
    }

    /// libpq's `host` and `port` lists: one port for every host, or one each (an empty one is 5432).
    private static func endpoints(names: String, ports: String?) throws(PostgresURLError) -> [Endpoint] {
        let hosts = names.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        let numbers = (ports ?? "").split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        guard !hosts.contains(where: \.isEmpty), numbers.count == 1 || numbers.count == hosts.count else { throw .invalidURL }
        var endpoints: [Endpoint] = []
        for (index, host) in hosts.enumerated() {
            let text = numbers.count == 1 ? numbers[0] : numbers[index]
            guard let port = text.isEmpty ? 5432 : Int(text), (1...65535).contains(port) else { throw .invalidURL }
            endpoints.append(Endpoint(host: host, port: port))
        }
        return endpoints
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
    case unknownTargetSessionAttributes(String)
    case hostAddressWithSeveralHosts

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
        case .unknownTargetSessionAttributes(let value):
            "unknown target_session_attrs \"\(value)\" in the PostgreSQL URL (expected one of: "
                + PostgresURL.TargetSessionAttributes.allCases.map(\.rawValue).joined(separator: ", ") + ")"
        case .hostAddressWithSeveralHosts:
            "the PostgreSQL URL names hostaddr with several hosts (give each host's address as the host)"
        case .unreadableFile(let parameter, let path, let reason):
            "cannot read \(parameter) \(path) of the PostgreSQL URL: \(reason)"
        }
    }
}
