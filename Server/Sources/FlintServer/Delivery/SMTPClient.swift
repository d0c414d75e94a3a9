import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL

/// A minimal SMTP submission client (RFC 5321, 3207, 4954) on SwiftNIO: one connection per message.
/// It speaks EHLO, STARTTLS or implicit TLS (certificate and host name verified against the system's
/// roots plus the configured extra roots), AUTH PLAIN or LOGIN, MAIL/RCPT/DATA and QUIT. It never sends
/// credentials in the clear, except to a relay on loopback configured with `security: .none`.
///
/// Errors: `DeliveryError.rejected(status:detail:)` for a reply the client did not expect (the SMTP
/// code and the server's text), `DeliveryError.unavailable` for connection, TLS and timeout failures, for
/// replies that are not SMTP or too long, and for a server that lacks what the configuration requires
/// (STARTTLS, an AUTH mechanism).
///
/// Waits are bounded by `limits`: connecting, each reply, and the whole conversation (so a relay that
/// drips bytes cannot hold a message forever). Cancelling the sending task closes the connection.
public struct SMTPClient: Sendable {
    public let configuration: DeliveryConfiguration.SMTP
    public var limits: OutsideCallLimits
    /// Each message is one outside call (`smtp`): counted, timed and traced.
    public var telemetry: Telemetry
    /// The name given in EHLO.
    public var clientName = "localhost"
    private let tlsContext: NIOSSLContext
    private let group: any EventLoopGroup

    /// Throws `DeliveryConfigurationError` for an unusable trust-root bundle.
    public init(configuration: DeliveryConfiguration.SMTP, extraTrustRootsPEM: [String] = [],
                limits: OutsideCallLimits = OutsideCallLimits(), telemetry: Telemetry = Telemetry(),
                group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) throws {
        self.configuration = configuration
        self.limits = limits
        self.telemetry = telemetry
        self.group = group
        tlsContext = try NIOSSLContext(configuration: DeliveryHTTP.clientTLS(extraTrustRootsPEM: extraTrustRootsPEM))
    }

    /// True for `localhost`, 127.0.0.0/8 and `::1`.
    static func isLoopback(_ host: String) -> Bool {
        let host = host.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        if host == "localhost" || host == "::1" || host == "0:0:0:0:0:0:0:1" { return true }
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil }
    }

    /// Sends `message` (a whole RFC 5322 message; any line endings) from `from` to `recipients`.
    public func send(from: String, to recipients: [String], message: String) async throws {
        for address in [from] + recipients { try MIMEMessage.checkHeaderValue(address, name: "address") }
        try await telemetry.outsideCall(.smtp, { _ in
            try await submit(from: from, to: recipients, message: message)
        }, outcome: { .success })
    }

    private func submit(from: String, to recipients: [String], message: String) async throws {
        let where_ = "SMTP \(configuration.host):\(configuration.port)"
        let channel: any Channel
        let handler: NIOLoopBound<SMTPReplyHandler>
        do {
            (channel, handler) = try await connect()
        } catch {
            throw DeliveryError.unavailable("\(where_): cannot connect (\(error))")
        }
        do {
            try await withDeadline(limits.smtpMessageTimeout) {
                try await withTaskCancellationHandler {
                    try await converse(on: channel, handler: handler, from: from, to: recipients, message: message)
                } onCancel: {
                    // Ends the wait for a reply at once (the handler fails it when the connection closes).
                    channel.close(promise: nil)
                }
            }
            try? await channel.close()
        } catch let error as DeliveryError {
            try? await channel.close()
            throw error
        } catch {
            try? await channel.close()
            throw DeliveryError.unavailable("\(where_): \(error)")
        }
    }

    /// The connected channel and its reply handler (taken as soon as the connection is up, before a failing
    /// TLS handshake can tear the pipeline down).
    private func connect() async throws -> (any Channel, NIOLoopBound<SMTPReplyHandler>) {
        let implicitTLS = configuration.security == .implicitTLS
        let context = tlsContext
        let sni = Self.sniName(configuration.host)
        // The reply handler is kept from the moment it is added, not looked up in the pipeline afterwards: a failed
        // implicit-TLS handshake can close the channel (and empty its pipeline) before the lookup, and the handler
        // holds that failure for the first reply to report.
        let added = NIOLockedValueBox<NIOLoopBound<SMTPReplyHandler>?>(nil)
        let channel = try await ClientBootstrap(group: group)
            .connectTimeout(limits.connectTimeout)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if implicitTLS {
                        try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: context, serverHostname: sni))
                    }
                    let replies = SMTPReplyHandler()
                    try channel.pipeline.syncOperations.addHandler(replies)
                    added.withLockedValue { $0 = NIOLoopBound(replies, eventLoop: channel.eventLoop) }
                }
            }
            .connect(host: configuration.host, port: configuration.port)
            .get()
        guard let handler = added.withLockedValue({ $0 }) else { throw ChannelPipelineError.notFound }
        return (channel, handler)
    }

    /// The SNI name: the host unless it is an IP address (then the certificate is checked against the IP).
    private static func sniName(_ host: String) -> String? {
        let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        if bare.contains(":") { return nil }
        if bare.split(separator: ".").count == 4, bare.split(separator: ".").allSatisfy({ UInt8($0) != nil }) { return nil }
        return bare
    }

    private func converse(on channel: any Channel, handler: NIOLoopBound<SMTPReplyHandler>, from: String, to recipients: [String], message: String) async throws {
        let session = Session(channel: channel, timeout: limits.smtpReplyTimeout, handler: handler)
        try await session.expect(220, "greeting")
        var capabilities = try await session.command("EHLO \(clientName)", expect: 250).lines.dropFirst().map { $0.uppercased() }
        var encrypted = configuration.security == .implicitTLS
        if configuration.security == .startTLS {
            guard capabilities.contains(where: { $0 == "STARTTLS" || $0.hasPrefix("STARTTLS ") }) else {
                throw DeliveryError.unavailable("SMTP \(configuration.host): the server does not offer STARTTLS")
            }
            try await session.command("STARTTLS", expect: 220)
            let context = tlsContext
            let sni = Self.sniName(configuration.host)
            try await channel.eventLoop.submit {
                try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: context, serverHostname: sni),
                                                               position: .first)
            }.get()
            encrypted = true
            capabilities = try await session.command("EHLO \(clientName)", expect: 250).lines.dropFirst().map { $0.uppercased() }
        }
        if let username = configuration.username {
            guard encrypted || Self.isLoopback(configuration.host) else {
                throw DeliveryError.unavailable("SMTP \(configuration.host): refusing to send credentials without TLS to a host that is not loopback")
            }
            try await authenticate(session, username: username, password: configuration.password ?? "", capabilities: capabilities)
        }
        try await session.command("MAIL FROM:<\(from)>", expect: 250)
        for recipient in recipients {
            try await session.command("RCPT TO:<\(recipient)>", expect: 250, 251)
        }
        try await session.command("DATA", expect: 354)
        try await session.command(Self.dotStuffed(message) + ".", expect: 250, what: "message")
        _ = try? await session.command("QUIT", expect: 221)
    }

    private func authenticate(_ session: Session, username: String, password: String, capabilities: [String]) async throws {
        let mechanisms = Set(capabilities.flatMap { line -> [String] in
            guard line.hasPrefix("AUTH ") || line.hasPrefix("AUTH=") else { return [] }
            return line.dropFirst(5).split(separator: " ").map(String.init)
        })
        let base64 = { (text: String) in Data(text.utf8).base64EncodedString() }
        if mechanisms.contains("PLAIN") {
            try await session.command("AUTH PLAIN \(base64("\0\(username)\0\(password)"))", expect: 235, what: "AUTH PLAIN")
        } else if mechanisms.contains("LOGIN") {
            try await session.command("AUTH LOGIN", expect: 334)
            try await session.command(base64(username), expect: 334, what: "AUTH LOGIN")
            try await session.command(base64(password), expect: 235, what: "AUTH LOGIN")
        } else {
            throw DeliveryError.unavailable("SMTP \(configuration.host): the server offers neither AUTH PLAIN nor AUTH LOGIN")
        }
    }

    /// `message` with CRLF line endings, lines starting with "." doubled, ending in CRLF.
    static func dotStuffed(_ message: String) -> String {
        let lines = message.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
            .split(separator: "\n", omittingEmptySubsequences: false)
        var body = lines.map { $0.hasPrefix(".") ? "." + $0 : String($0) }
        if body.last == "" { body.removeLast() }
        return body.map { $0 + "\r\n" }.joined()
    }

    /// Commands and replies on one connection.
    private struct Session {
        let channel: any Channel
        let timeout: TimeAmount
        /// Kept even once the pipeline is torn down, to tell why the connection ended.
        let handler: NIOLoopBound<SMTPReplyHandler>

        /// Waits for a reply with one of `codes`; anything else is `DeliveryError.rejected`.
        @discardableResult
        func expect(_ codes: [Int], _ what: String) async throws -> SMTPReply {
            let (channel, timeout, handler) = (channel, timeout, handler)
            let reply = try await channel.eventLoop.flatSubmit {
                handler.value.nextReply(on: channel.eventLoop, channel: channel, timeout: timeout)
            }.get()
            guard codes.contains(reply.code) else {
                throw DeliveryError.rejected(status: reply.code, detail: what.isEmpty ? reply.text : "\(what): \(reply.text)")
            }
            return reply
        }

        @discardableResult
        func expect(_ code: Int, _ what: String) async throws -> SMTPReply { try await expect([code], what) }

        /// Sends `line` (CRLF added) and waits for a reply with one of `codes`. A write that fails because the
        /// connection already failed (a TLS handshake, say) reports that first failure.
        @discardableResult
        func command(_ line: String, expect codes: Int..., what: String? = nil) async throws -> SMTPReply {
            let text = line.hasSuffix("\r\n") ? line : line + "\r\n"
            do {
                try await channel.writeAndFlush(ByteBuffer(string: text))
            } catch {
                let handler = handler
                let cause = try? await channel.eventLoop.submit { handler.value.failure }.get()
                throw (cause ?? nil) ?? error
            }
            return try await expect(codes, what ?? String(line.prefix { $0 != " " && $0 != ":" }))
        }
    }
}
