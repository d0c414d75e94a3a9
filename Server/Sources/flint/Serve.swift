import ArgumentParser
import FlintServer
import Foundation
import Logging
import ServiceLifecycle

/// `flint serve`: the HTTP server.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the server until SIGINT or SIGTERM.",
        discussion: """
            Phone sign-in and action emails reach outside services set up by environment variables:

              FLINT_SMS_PROVIDER         log (default: codes in the log), webhook, twilio
              FLINT_SMS_WEBHOOK_URL      webhook: URL to POST the code to, as JSON
              FLINT_SMS_WEBHOOK_SECRET   webhook: key of the X-Flint-Signature HMAC
              FLINT_TWILIO_ACCOUNT_SID   twilio: account SID (AC…)
              FLINT_TWILIO_AUTH_TOKEN    twilio: auth token
              FLINT_TWILIO_FROM          twilio: the sending number (E.164)
              FLINT_TWILIO_BASE_URL      twilio: default https://api.twilio.com
              FLINT_APNS_TEAM_ID         APNs (iOS app verification): team ID
              FLINT_APNS_KEY_ID          APNs: ID of the .p8 key
              FLINT_APNS_KEY_FILE        APNs: path of the .p8 key file
              FLINT_APNS_TOPIC           APNs: the app's bundle ID
              FLINT_APNS_PRODUCTION_URL  APNs: default https://api.push.apple.com
              FLINT_APNS_SANDBOX_URL     APNs: default the sandbox host
              FLINT_CAPTCHA_VERIFY_URL   captcha siteverify URL (reCAPTCHA, hCaptcha…)
              FLINT_CAPTCHA_SECRET       captcha: the site's secret
              FLINT_CAPTCHA_SITE_KEY     captcha: the public site key
              FLINT_TRUST_ROOTS_FILE     PEM roots trusted besides the system's
              FLINT_CIMD_ALLOW_LOOPBACK  1: client metadata documents may be on loopback (tests only)
              FLINT_USER_DELETED_WEBHOOK_URL     POSTed a signed user.deleted event per deleted account
              FLINT_USER_DELETED_WEBHOOK_SECRET  its X-Flint-Signature key

            Action emails (sign-in links, password resets, verifications):

              FLINT_EMAIL_PROVIDER       log (default: links in the log), smtp
              FLINT_SMTP_HOST            smtp: the relay's host
              FLINT_SMTP_PORT            smtp: default 587 (starttls), 465 (tls), 25 (none)
              FLINT_SMTP_SECURITY        smtp: starttls (default), tls, none (loopback only)
              FLINT_SMTP_USERNAME        smtp: AUTH user (never sent without TLS)
              FLINT_SMTP_PASSWORD        smtp: AUTH password
              FLINT_SMTP_FROM            smtp: the sender address (envelope and From:)

            Phone limits (defaults as Firebase documents them):

              FLINT_PHONE_CODE_LIFETIME         seconds a code stays valid (300)
              FLINT_PHONE_MAX_ATTEMPTS          wrong codes before a session dies (5)
              FLINT_SMS_PER_PROJECT_PER_MINUTE  codes per project per minute (1000)
              FLINT_SMS_PER_IP_PER_MINUTE       codes per client IP per minute (50)
              FLINT_SMS_PER_IP_PER_HOUR         codes per client IP per hour (500)
              FLINT_SMS_PER_NUMBER_PER_HOUR     codes per number per hour (10)
              FLINT_SMS_RESEND_INTERVAL         seconds between two codes to one number (30)
              FLINT_MAX_TEST_PHONE_NUMBERS      fictional numbers per project (10)
              FLINT_SMS_SESSIONS_PER_TEST_NUMBER_PER_HOUR  code sessions per fictional number per hour (30)
              FLINT_TRUSTED_PROXIES             proxies whose X-Forwarded-For names the client (CIDRs)

            Sign in with Apple, Facebook Login and Google (for proxies; the issuers stay the real ones unless set):

              FLINT_APPLE_BASE_URL       default https://appleid.apple.com (/auth/keys, /auth/token, /auth/revoke)
              FLINT_APPLE_ISSUER         the one issuer to accept instead of Apple's two
              FLINT_FACEBOOK_GRAPH_URL   default https://graph.facebook.com
              FLINT_FACEBOOK_JWKS_URL    Limited Login's key set (default Facebook's)
              FLINT_FACEBOOK_ISSUER      the one issuer to accept instead of Facebook's
              FLINT_GOOGLE_JWKS_URL      Google's ID-token key set (default https://www.googleapis.com/oauth2/v3/certs)
              FLINT_GOOGLE_TOKENINFO_URL default https://oauth2.googleapis.com/tokeninfo (access tokens)
              FLINT_GOOGLE_USERINFO_URL  default https://openidconnect.googleapis.com/v1/userinfo
              FLINT_GOOGLE_ISSUER        the one issuer to accept instead of Google's two spellings

            Email limits:

              FLINT_EMAIL_PER_IP_PER_HOUR       action emails per client IP per hour (100)
              FLINT_EMAIL_PER_ADDRESS_PER_HOUR  action emails per address per hour (10)

            Sign-up limits:

              FLINT_SIGNUPS_PER_IP_PER_HOUR     new accounts per client IP (IPv6: per /64) per hour (100)

            Sessions:

              FLINT_REFRESH_TOKEN_IDLE_DAYS     refresh tokens unused this many days stop working (unset: never)
            """)

    @OptionGroup var options: ServerOptions
    @Option(name: .customLong("trusted-proxies"),
            help: "Proxies whose X-Forwarded-For names the client: IPs or CIDRs, comma-separated (FLINT_TRUSTED_PROXIES).")
    var trustedProxies: String?
    @Option(name: .customLong("management-host"),
            help: "Address of the health, readiness and metrics listener (FLINT_MANAGEMENT_HOST; default 127.0.0.1).")
    var managementHost: String?
    @Option(name: .customLong("management-port"),
            help: "Port of the health, readiness and metrics listener; 0 turns it off (FLINT_MANAGEMENT_PORT; default 9100).")
    var managementPort: Int?
    @Option(name: .customLong("log-format"), help: "text or json: one JSON object per line (FLINT_LOG_FORMAT; default text).")
    var logFormat: LogFormat?
    #if OTLP
    @Option(name: .customLong("otlp-endpoint"),
            help: "Export spans over OTLP/HTTP to this collector, e.g. http://127.0.0.1:4318 (OTEL_EXPORTER_OTLP_ENDPOINT).")
    var otlpEndpoint: String?
    #endif
    @Option(name: .customLong("tls-cert"), help: "PEM certificate chain: serve HTTPS and HTTP/2, reloaded on SIGHUP (FLINT_TLS_CERT).")
    var tlsCertificate: String?
    @Option(name: .customLong("tls-key"), help: "PEM private key of --tls-cert (FLINT_TLS_KEY).")
    var tlsKey: String?
    @Option(name: .customLong("import"), help: ArgumentHelp(
        "Emulator mode: load this Firebase emulator data folder (firebase emulators:export's) before serving, all of it or nothing.",
        valueName: "dir"))
    var importDirectory: String?
    @Option(name: .customLong("export-on-exit"), help: ArgumentHelp(
        "Emulator mode: write the project's users and config to this folder, in the same format, when SIGINT or SIGTERM stops the server.",
        valueName: "dir"))
    var exportDirectory: String?
    @Option(name: .customLong("single-project-mode"), help: ArgumentHelp(
        "Emulator mode: what a request naming another project than --project gets: error, warning (the default) or off.",
        valueName: "mode"))
    var singleProjectMode: String?

    /// The shared options plus the delivery services, which only `serve` needs.
    private func configuration() throws -> ServerConfiguration {
        var configuration = try options.configuration()
        do {
            let environment = ProcessInfo.processInfo.environment
            configuration.delivery = try DeliveryConfiguration(environment: environment)
            configuration.phoneLimits = try PhoneLimits(environment: environment)
            configuration.emailLimits = try EmailLimits(environment: environment)
            configuration.signUpLimits = try SignUpLimits(environment: environment)
            configuration.refreshTokenIdleSeconds = try ServerConfiguration.refreshTokenIdleSeconds(environment: environment)
            configuration.identityProviderEndpoints = try IdentityProviderEndpoints(environment: environment)
            configuration.trustedProxies = try TrustedProxies(trustedProxies ?? environment["FLINT_TRUSTED_PROXIES"] ?? "")
            configuration.management = try Self.management(host: managementHost, port: managementPort, environment: environment)
            configuration.tls = try Self.tls(
                certificate: tlsCertificate ?? environment["FLINT_TLS_CERT"], key: tlsKey ?? environment["FLINT_TLS_KEY"])
            if let mode = singleProjectMode {
                guard let parsed = SingleProjectMode(rawValue: mode) else {
                    throw ValidationError("--single-project-mode must be error, warning or off: \(mode)")
                }
                configuration.singleProjectMode = parsed
            }
            if !configuration.emulator, importDirectory != nil || exportDirectory != nil || singleProjectMode != nil {
                throw ValidationError("--import, --export-on-exit and --single-project-mode are for emulator mode (--emulator)")
            }
        } catch let error as DeliveryConfigurationError {
            throw ValidationError(error.description)
        } catch let error as TrustedProxies.InvalidEntry {
            throw ValidationError("--trusted-proxies: \(error)")
        }
        return configuration
    }

    /// The certificate and key to serve HTTPS with: both or neither.
    private static func tls(certificate: String?, key: String?) throws -> TLSCertificates? {
        switch (certificate.flatMap { $0.isEmpty ? nil : $0 }, key.flatMap { $0.isEmpty ? nil : $0 }) {
        case (nil, nil): return nil
        case let (certificate?, key?):
            do {
                return try TLSCertificates(certificatePath: certificate, keyPath: key)
            } catch let failure as TLSCertificates.Failure {
                throw ValidationError(failure.description)
            }
        default: throw ValidationError("--tls-cert and --tls-key go together")
        }
    }

    /// The management listener the flags and variables ask for; port 0 turns it off.
    private static func management(host: String?, port: Int?, environment: [String: String]) throws -> ManagementConfiguration? {
        let port = try port ?? environment["FLINT_MANAGEMENT_PORT"].map { text in
            guard let port = Int(text) else { throw ValidationError("FLINT_MANAGEMENT_PORT must be a port number: \(text)") }
            return port
        } ?? 9100
        guard (0...65535).contains(port) else { throw ValidationError("--management-port must be 0-65535: \(port)") }
        guard port != 0 else { return nil }
        return ManagementConfiguration(host: host ?? environment["FLINT_MANAGEMENT_HOST"] ?? "127.0.0.1", port: port)
    }

    func run() async throws {
        let configuration = try configuration()
        // One server per SQLite store; `flint restore` waits for none. The kernel lets go when the process ends.
        let lock = try configuration.databaseURL == nil
            ? DataDirectoryLock(configuration.dataDirectory, purpose: "serve") : nil
        defer { withExtendedLifetime(lock) {} }
        let format = try logFormat ?? ProcessInfo.processInfo.environment["FLINT_LOG_FORMAT"].map { name in
            guard let format = LogFormat(rawValue: name) else { throw ValidationError("FLINT_LOG_FORMAT must be text or json: \(name)") }
            return format
        } ?? .text
        let tracing = try tracing(logger: makeLogger(format: format))
        let server = try await AuthServer.open(
            configuration: configuration, environment: ServerEnvironment(tracer: tracing.tracer),
            logger: makeLogger(format: format, metadataProvider: tracing.logMetadataProvider))
        let apiKey = try await server.defaultAPIKey()
        // Whatever ends the run, the server closes (counts flushed, connections and clients shut down).
        do {
            if let importDirectory {
                try await reportingDataFaults { try await server.importEmulatorData(from: URL(fileURLWithPath: importDirectory)) }
                server.logger.info("Loaded the emulator data folder \(importDirectory)")
            }
            try await serve(server, configuration: configuration, apiKey: apiKey, format: format, alongside: tracing.services)
            // The listener has stopped; the store is still open.
            if let exportDirectory {
                try await reportingDataFaults { try await server.emulatorData().write(to: URL(fileURLWithPath: exportDirectory)) }
                server.logger.info("Exported the emulator data folder \(exportDirectory)")
            }
        } catch {
            try? await server.close()
            throw error
        }
        try await server.close()
    }

    /// Flint's own tracer, or swift-otel's when built with the `OTLP` trait and given an endpoint.
    private func tracing(logger: Logger) throws -> ServeTracing {
        #if OTLP
        let endpoint = otlpEndpoint ?? ProcessInfo.processInfo.environment["OTEL_EXPORTER_OTLP_ENDPOINT"]
        if endpoint?.isEmpty == false { return try ServeTracing.otlp(endpoint: otlpEndpoint, logger: logger) }
        #endif
        return .flint
    }

    /// Serves until stopped, announcing where once listening: a few lines for people, or with JSON logs one log line
    /// like every other (the same facts as fields), so a log pipeline reads nothing but JSON.
    private func serve(_ server: AuthServer, configuration: ServerConfiguration, apiKey: String, format: LogFormat,
                       alongside services: [any Service]) async throws {
        try await server.run(alongside: services) { port in
            let url = "\(configuration.tls == nil ? "http" : "https")://\(configuration.host):\(port)"
            let facts: [(name: String, value: String)] = [
                ("mode", configuration.policy.mode.rawValue), ("project", configuration.projectID),
                ("API key", apiKey + (configuration.policy.acceptsAnyAPIKey ? " (any non-empty key works in emulator mode)" : "")),
                ("public URL", server.publicURL),
                ("storage", configuration.databaseURL == nil ? "SQLite in \(configuration.dataDirectory.path)" : "PostgreSQL"),
                ("management", configuration.management.map { "http://\($0.host):\($0.port) (/healthz, /readyz, /metrics)" } ?? "off"),
            ]
            switch format {
            case .text:
                let lines = facts.map { "  \(($0.name + ":").padding(toLength: 12, withPad: " ", startingAt: 0))\($0.value)\n" }
                FileHandle.standardOutput.write(Data("Flint is listening on \(url)\n\(lines.joined())".utf8))
            case .json:
                // The message names the key as the text banner does, for tools that read it from there.
                server.logger.info("Flint is listening on \(url) (API key: \(apiKey))", metadata: Dictionary(uniqueKeysWithValues: facts.map {
                    ($0.name.lowercased().replacingOccurrences(of: " ", with: "_"), Logger.MetadataValue.string($0.value))
                }))
            }
        }
    }
}
