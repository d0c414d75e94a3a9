import _CryptoExtras
import Crypto
@testable import FlintServer
import Foundation
import Testing

/// The OpenSSL signer is a faster route to exactly the same signatures: PKCS#1 v1.5 is deterministic, so for the
/// same key and input it must give swift-crypto's bytes, and they must verify. The OpenSSL verifier must decide
/// exactly as swift-crypto's BoringSSL does, on good signatures and on forged ones made by BoringSSL.
@Suite struct RS256Tests {
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
    
    /// Valid signatures verify; altered, truncated, other-key, PSS-padded and bit-flipped ones do not, exactly as
    /// BoringSSL decides.
    @Test func theFastestVerifierDecidesAsSwiftCryptoDoes() throws {
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let otherKey = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let verifier = try RS256Signers.fastestVerifier(for: key.publicKey)
        #expect(verifier is OpenSSLRS256Verifier, "Linux builds verify with the system's OpenSSL")
        let reference = SwiftCryptoRS256Verifier(key: key.publicKey)
        let input = Data("eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhIn0".utf8)
        let good = try key.signature(for: input, padding: .insecurePKCS1v1_5).rawRepresentation
        var cases: [(signature: Data, input: Data, valid: Bool)] = [
            (good, input, true),
            (good, input + Data("x".utf8), false),
            (good.dropLast(), input, false),
            (Data(), input, false),
            (good + Data([0]), input, false),
            (try otherKey.signature(for: input, padding: .insecurePKCS1v1_5).rawRepresentation, input, false),
            (try key.signature(for: input, padding: .PSS).rawRepresentation, input, false),
            (Data(repeating: 0xFF, count: 256), input, false),
        ]
        for position in stride(from: 0, to: good.count, by: 17) {
            var flipped = good
            flipped[position] ^= 0x01
            cases.append((flipped, input, false))
        }
        for (signature, input, valid) in cases {
            #expect(verifier.isValidSignature(signature, for: input) == valid)
            #expect(reference.isValidSignature(signature, for: input) == valid)
        }
    }

    @Test func openSSLVerifierRefusesWhatIsNoRSAPublicKey() throws {
        #expect(throws: OpenSSLError.self) { try OpenSSLRS256Verifier(subjectPublicKeyInfo: Data("not a key".utf8)) }
        let ecKey = P256.Signing.PrivateKey().publicKey
        #expect(throws: OpenSSLError.self) { try OpenSSLRS256Verifier(subjectPublicKeyInfo: ecKey.derRepresentation) }
    }
    #endif
}
