import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOSSL
import ServiceLifecycle
import UnixSignals

/// The public listener's certificate chain and private key (PEM files), read again on `reload()` — which
/// `flint serve` calls on SIGHUP — so a renewed certificate is served from the next handshake on, without a
/// restart. Every handshake takes the current pair through NIOSSL's context callback.
public final class TLSCertificates: Sendable {
    public let certificatePath: String
    public let keyPath: String
    private let current: NIOLockedValueBox<(chain: [NIOSSLCertificate], key: NIOSSLPrivateKey)>

    /// Why the files cannot be used, in words for an operator.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    public init(certificatePath: String, keyPath: String) throws {
        self.certificatePath = certificatePath
        self.keyPath = keyPath
        current = NIOLockedValueBox(try Self.load(certificatePath: certificatePath, keyPath: keyPath))
    }

    /// Reads the files again. A pair that cannot be read leaves the one in use in place (and throws).
    public func reload() throws {
        let pair = try Self.load(certificatePath: certificatePath, keyPath: keyPath)
        current.withLockedValue { $0 = pair }
    }

    /// A server configuration whose every handshake uses the pair current at that moment.
    var serverConfiguration: TLSConfiguration {
        let (chain, key) = current.withLockedValue { $0 }
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
        configuration.minimumTLSVersion = .tlsv12
        let current = self.current
        configuration.sslContextCallback = { _, promise in
            let (chain, key) = current.withLockedValue { $0 }
            var override = NIOSSLContextConfigurationOverride()
            override.certificateChain = chain.map { .certificate($0) }
            override.privateKey = .privateKey(key)
            promise.succeed(override)
        }
        return configuration
    }

    private static func load(certificatePath: String, keyPath: String) throws -> (chain: [NIOSSLCertificate], key: NIOSSLPrivateKey) {
        let chain: [NIOSSLCertificate]
        do {
            chain = try NIOSSLCertificate.fromPEMFile(certificatePath)
        } catch {
            throw Failure(description: "\(certificatePath) holds no PEM certificate: \(error)")
        }
        guard !chain.isEmpty else { throw Failure(description: "\(certificatePath) holds no PEM certificate") }
        do {
            return (chain, try NIOSSLPrivateKey(file: keyPath, format: .pem))
        } catch {
            throw Failure(description: "\(keyPath) holds no PEM private key: \(error)")
        }
    }
}

/// Reloads the certificates on every SIGHUP until the server shuts down (`flint serve`).
struct CertificateReloader: Service {
    let certificates: TLSCertificates
    let logger: Logger

    func run() async throws {
        let hangUps = await UnixSignalsSequence(trapping: .sighup)
        for await _ in hangUps.cancelOnGracefulShutdown() {
            do {
                try certificates.reload()
                logger.info("Reloaded the TLS certificate", metadata: ["certificate": "\(certificates.certificatePath)"])
            } catch {
                logger.error("Kept the TLS certificate in use: \(error)")
            }
        }
    }
}
