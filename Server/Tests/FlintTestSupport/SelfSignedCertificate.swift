import Crypto
import Foundation
import SwiftASN1
import X509

/// A self-signed certificate (its own CA) and its P-256 key, written as PEM files into a temporary folder.
public struct SelfSignedCertificate: Sendable {
    public let certificatePath: String
    public let keyPath: String
    public let folder: URL

    /// - Parameter addresses: IP addresses the certificate names, for a server that clients check by address.
    public init(commonName: String, addresses: [String] = []) throws {
        let key = P256.Signing.PrivateKey()
        let name = try DistinguishedName { CommonName(commonName) }
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: Certificate.PublicKey(key.publicKey),
            notValidBefore: Date().addingTimeInterval(-3600), notValidAfter: Date().addingTimeInterval(86400),
            issuer: name, subject: name, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                if !addresses.isEmpty {
                    SubjectAlternativeNames(addresses.compactMap { address in
                        IPv4Address(address).map { GeneralName.ipAddress(ASN1OctetString(contentBytes: $0.bytes)) }
                    })
                }
            },
            issuerPrivateKey: Certificate.PrivateKey(key))
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("flint-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        certificatePath = folder.appendingPathComponent("certificate.pem").path
        keyPath = folder.appendingPathComponent("key.pem").path
        try certificate.serializeAsPEM().pemString.write(toFile: certificatePath, atomically: true, encoding: .utf8)
        try key.pemRepresentation.write(toFile: keyPath, atomically: true, encoding: .utf8)
    }

    public func remove() { try? FileManager.default.removeItem(at: folder) }
}

/// A dotted IPv4 address's four bytes.
private struct IPv4Address {
    let bytes: ArraySlice<UInt8>

    init?(_ text: String) {
        let parts = text.split(separator: ".").compactMap { UInt8($0) }
        guard parts.count == 4 else { return nil }
        bytes = ArraySlice(parts)
    }
}
