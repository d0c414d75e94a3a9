import FlintServer
import Foundation
import NIOConcurrencyHelpers

/// A real SMTP server for email tests: aiosmtpd (from PyPI, see Tests/python/requirements.txt) run by
/// Tests/python/smtp_server.py as a child process on 127.0.0.1 and an ephemeral port. It records every
/// message it accepts in `received`. With `.startTLS` or `.implicitTLS` it presents a certificate from a
/// fresh `FakeCertificateAuthority` (trust `caCertificatePEM`); with credentials it requires AUTH.
///
///     let smtp = try await SMTPTestServer.start(mode: .startTLS, username: "mailer", password: "secret")
///     let sender = try SMTPEmailSender(configuration: smtp.configuration(from: "noreply@flint.test"),
///                                      extraTrustRootsPEM: smtp.trustRootsPEM, clock: SystemClock())
///     let mail = await smtp.received.waitFor(count: 1)
public final class SMTPTestServer: Sendable {
    public enum Mode: String, Sendable {
        /// No TLS at all.
        case plain
        /// STARTTLS offered and required before anything else.
        case startTLS = "starttls"
        /// TLS from the first byte.
        case implicitTLS = "tls"
    }

    public let mode: Mode
    public let host = "127.0.0.1"
    public let port: Int
    public let username: String?
    public let password: String?
    /// The CA that issued the server's certificate (nil in `.plain` mode).
    public let caCertificatePEM: String?
    /// Every message accepted, in order.
    public let received: Recorder<ReceivedMail>

    private let process: ChildProcess
    private let directory: URL

    /// `caCertificatePEM` as `DeliveryConfiguration.extraTrustRootsPEM` wants it.
    public var trustRootsPEM: [String] { caCertificatePEM.map { [$0] } ?? [] }

    private init(mode: Mode, port: Int, username: String?, password: String?, caCertificatePEM: String?,
                 received: Recorder<ReceivedMail>, process: ChildProcess, directory: URL) {
        self.mode = mode
        self.port = port
        self.username = username
        self.password = password
        self.caCertificatePEM = caCertificatePEM
        self.received = received
        self.process = process
        self.directory = directory
    }

    /// Starts the server and returns once it accepts connections (within `startupTimeoutSeconds`).
    /// `excludedAuthMechanisms` (e.g. `["PLAIN"]`) are not offered. With `replyDelaySeconds`, each message
    /// is answered only after that long, as a slow relay would.
    public static func start(mode: Mode, username: String? = nil, password: String? = nil,
                             excludedAuthMechanisms: [String] = [], replyDelaySeconds: Double = 0,
                             startupTimeoutSeconds: Double = 20) async throws -> SMTPTestServer {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("flint-smtp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var arguments = ["python3", script.path, "--mode", mode.rawValue, "--max-seconds", "600"]
        var caPEM: String?
        if mode != .plain {
            let authority = try FakeCertificateAuthority()
            let certificate = directory.appendingPathComponent("server.pem")
            let key = directory.appendingPathComponent("server-key.pem")
            try authority.serverCertificatePEM.write(to: certificate, atomically: true, encoding: .utf8)
            try authority.serverPrivateKeyPEM.write(to: key, atomically: true, encoding: .utf8)
            arguments += ["--cert", certificate.path, "--key", key.path]
            caPEM = authority.caCertificatePEM
        }
        if let username, let password { arguments += ["--username", username, "--password", password] }
        for mechanism in excludedAuthMechanisms { arguments += ["--exclude-auth", mechanism] }
        if replyDelaySeconds > 0 { arguments += ["--delay-seconds", String(replyDelaySeconds)] }

        let errorLog = directory.appendingPathComponent("stderr.txt")
        _ = FileManager.default.createFile(atPath: errorLog.path, contents: nil)
        let received = Recorder<ReceivedMail>()
        let reader = OutputReader(received: received)
        // Its stdin is a pipe the server watches: closing it (or this process dying) stops the server.
        let process = try ChildProcess.launch("/usr/bin/env", arguments, input: .pipe, errors: .file(errorLog.path))
        reader.start(process.output!)

        let port: Int
        do {
            port = try await reader.waitUntilReady(timeoutSeconds: startupTimeoutSeconds)
        } catch {
            process.terminate()
            _ = await process.wait()
            let log = (try? String(contentsOf: errorLog, encoding: .utf8)) ?? ""
            try? FileManager.default.removeItem(at: directory)
            throw SMTPTestServerError(description: "\(error); smtp_server.py's stderr ends:\n\(log.suffix(2000))")
        }
        return SMTPTestServer(mode: mode, port: port, username: username, password: password, caCertificatePEM: caPEM,
                              received: received, process: process, directory: directory)
    }

    /// An SMTP configuration pointing at this server, with its credentials unless told otherwise.
    public func configuration(from: String, security: DeliveryConfiguration.SMTP.Security? = nil,
                              username: String? = nil, password: String? = nil) -> DeliveryConfiguration.SMTP {
        let modeSecurity: DeliveryConfiguration.SMTP.Security = switch mode {
        case .plain: .none
        case .startTLS: .startTLS
        case .implicitTLS: .implicitTLS
        }
        return DeliveryConfiguration.SMTP(host: host, port: port, security: security ?? modeSecurity, username: username ?? self.username,
                                          password: password ?? self.password, from: from)
    }

    /// Stops the server, waits for it to exit and releases everyone waiting on `received`.
    public func stop() async {
        try? process.input?.close()
        process.terminate()
        _ = await process.wait()
        received.finish()
        try? FileManager.default.removeItem(at: directory)
    }

    private static let script = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("python/smtp_server.py")
}

public struct SMTPTestServerError: Error, CustomStringConvertible {
    public let description: String
}

/// Reads smtp_server.py's JSON lines on a Dispatch thread: the ready line (its port), then one line per
/// message, parsed into `received`.
private final class OutputReader: Sendable {
    private struct State {
        var port: Int?
        var failure: String?
        var waiter: CheckedContinuation<Int, any Error>?
    }

    private let state = NIOLockedValueBox(State())
    private let received: Recorder<ReceivedMail>

    init(received: Recorder<ReceivedMail>) { self.received = received }

    func start(_ handle: FileHandle) {
        BlockingWork.detach {
            var buffer = Data()
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                buffer.append(chunk)
                while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = buffer[buffer.startIndex..<newline]
                    buffer = Data(buffer[(newline + 1)...])
                    self.handle(line: Data(line))
                }
            }
            self.resolve(failure: "smtp_server.py exited before it was ready")
            self.received.finish()
        }
    }

    func waitUntilReady(timeoutSeconds: Double) async throws -> Int {
        DispatchQueue.global().asyncAfter(deadline: .now() + timeoutSeconds) {
            self.resolve(failure: "smtp_server.py was not ready within \(timeoutSeconds) s")
        }
        return try await withCheckedThrowingContinuation { continuation in
            let outcome: Result<Int, any Error>? = state.withLockedValue { state in
                if let port = state.port { return .success(port) }
                if let failure = state.failure { return .failure(SMTPTestServerError(description: failure)) }
                state.waiter = continuation
                return nil
            }
            if let outcome { continuation.resume(with: outcome) }
        }
    }

    private func handle(line: Data) {
        guard let object = try? JSONSerialization.jsonObject(with: line) as? [String: Any] else { return }
        if let port = object["ready"] as? Int {
            let waiter = state.withLockedValue { state -> CheckedContinuation<Int, any Error>? in
                guard state.port == nil, state.failure == nil else { return nil }
                state.port = port
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(returning: port)
        } else if let raw = (object["raw"] as? String).flatMap({ Data(base64Encoded: $0) }) {
            received.append(ReceivedMail(from: object["from"] as? String ?? "", to: object["to"] as? [String] ?? [],
                                         raw: String(decoding: raw, as: UTF8.self)))
        }
    }

    /// Fails the startup wait unless it is over.
    private func resolve(failure: String) {
        let waiter = state.withLockedValue { state -> CheckedContinuation<Int, any Error>? in
            guard state.port == nil, state.failure == nil else { return nil }
            state.failure = failure
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(throwing: SMTPTestServerError(description: failure))
    }
}
