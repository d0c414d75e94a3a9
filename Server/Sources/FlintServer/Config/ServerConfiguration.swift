import Foundation

/// Everything `flint serve` is told at start, from flags or `FLINT_*` variables. One place, typed.
public struct ServerConfiguration: Sendable {
    public var host: String
    public var port: Int
    /// Holds the SQLite file, the master key file and nothing else.
    public var dataDirectory: URL
    /// `postgres://…` to use PostgreSQL instead of the embedded SQLite file.
    public var databaseURL: String?
    /// Emulator mode: a drop-in for the Firebase Auth emulator (any project, `Bearer owner` is admin).
    public var emulator: Bool
    /// The project served by default (and created on first start).
    public var projectID: String
    /// The external base URL, used in issuers and emailed links. Defaults to `http://host:port`.
    public var publicURL: String?
    /// SMS, APNs and captcha services.
    public var delivery = DeliveryConfiguration()
    /// Phone-verification limits.
    public var phoneLimits = PhoneLimits()
    /// Action-email limits.
    public var emailLimits = EmailLimits()
    /// Sign-up limits.
    public var signUpLimits = SignUpLimits()
    /// Refresh tokens unused this long (seconds, give or take an hour) stop working and are deleted; nil
    /// keeps them until revoked, as Firebase does.
    public var refreshTokenIdleSeconds: Int64?
    /// Sign in with Apple and Facebook addresses and issuers.
    public var identityProviderEndpoints = IdentityProviderEndpoints()
    /// Proxies whose `X-Forwarded-For` names the client (none by default: the peer is the client).
    public var trustedProxies = TrustedProxies.none
    /// The management listener (health, readiness, metrics); nil: none. `flint serve` has one on 127.0.0.1:9100.
    public var management: ManagementConfiguration?
    /// HTTPS (and HTTP/2) on the public listener with these PEM files; nil: plain HTTP (behind a TLS proxy).
    public var tls: TLSCertificates?
    /// Emulator mode: what a request naming another project than `projectID` gets (as `firebase emulators:start`
    /// runs the official emulator, a warning by default). Production serves each project's own credentials only.
    public var singleProjectMode = SingleProjectMode.warning
    /// How long a graceful shutdown (SIGTERM) waits for open requests before it cancels what is left: a request that
    /// never ends (a client that stops halfway through its body, a query caught in a database restart) must not keep
    /// the server up for ever. Longer than any request Flint answers itself.
    public var shutdownGracePeriod: Duration = .seconds(30)

    public init(host: String = "127.0.0.1", port: Int = 9099, dataDirectory: URL = URL(fileURLWithPath: ".flint"),
                databaseURL: String? = nil, emulator: Bool = false, projectID: String = "demo-flint",
                publicURL: String? = nil) {
        self.host = host
        self.port = port
        self.dataDirectory = dataDirectory
        self.databaseURL = databaseURL
        self.emulator = emulator
        self.projectID = projectID
        self.publicURL = publicURL
    }

    /// The public URL without a trailing slash, given the port actually bound (which may differ from
    /// `port` when that is 0).
    /// What the mode decides, asked by name across the server.
    public var policy: ModePolicy { .of(emulator: emulator) }

    public func resolvedPublicURL(boundPort: Int) -> String {
        if let publicURL, !publicURL.isEmpty {
            return publicURL.hasSuffix("/") ? String(publicURL.dropLast()) : publicURL
        }
        let host = host.contains(":") ? "[\(host)]" : host
        return "\(tls == nil ? "http" : "https")://\(host):\(boundPort)"
    }
}
