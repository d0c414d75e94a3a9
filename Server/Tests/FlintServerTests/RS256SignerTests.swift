import _CryptoExtras
import Crypto
@testable import FlintServer
import Foundation
import Testing

/// The OpenSSL signer is a faster route to exactly the same signatures: PKCS#1 v1.5 is deterministic, so for the
/// same key and input it must give swift-crypto's bytes, and they must verify.
@Suite struct RS256SignerTests {
    @Test func theFastestSignerGivesSwiftCryptosBytes() throws {
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let fastest = try RS256Signers.fastest(for: key)
        #if os(Linux)
        #expect(fastest is OpenSSLRS256Signer, "Linux builds sign with the system's OpenSSL")
        #endif
        let reference = SwiftCryptoRS256Signer(key: key)
        for input in [Data(), Data("eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhIn0".utf8), Data((0..<5000).map { UInt8($0 % 251) })] {
            let signature = try fastest.sign(input)
            #expect(signature == (try reference.sign(input)))
            #expect(signature.count == 256)
            #expect(key.publicKey.isValidSignature(.init(rawRepresentation: signature), for: input, padding: .insecurePKCS1v1_5))
        }
    }

    #if os(Linux)
    @Test func openSSLRefusesWhatIsNoRSAKey() throws {
        #expect(throws: OpenSSLError.self) { try OpenSSLRS256Signer(derRepresentation: Data("not a key".utf8)) }
        let ecKey = P256.Signing.PrivateKey()
        #expect(throws: OpenSSLError.self) { try OpenSSLRS256Signer(derRepresentation: ecKey.derRepresentation) }
    }

    /// Many tasks signing with one key at once get the same, valid signatures.
    @Test func concurrentSignaturesAreCorrect() async throws {
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let signer = try OpenSSLRS256Signer(derRepresentation: key.derRepresentation)
        let expected = try SwiftCryptoRS256Signer(key: key).sign(Data("same input".utf8))
        let signatures = try await withThrowingTaskGroup(of: Data.self) { group in
            for _ in 0..<64 { group.addTask { try signer.sign(Data("same input".utf8)) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(signatures.count == 64 && signatures.allSatisfy { $0 == expected })
    }
    #endif
}
