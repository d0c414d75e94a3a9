@testable import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
import Testing

/// The relying party's checks against registrations and assertions made by python-fido2 and cryptography
/// (`Tests/python/webauthn_vectors.py`), an implementation independent of Flint's: the valid ones verify to the
/// credential the script expects, each hostile one is refused with the error it names.
@Suite struct WebAuthnVerifierTests {
    @Test func registrationsMadeByFido2() async throws {
        let vectors = try await WebAuthnVectors.shared.value
        #expect(vectors.registrations.count > 70)
        for vector in vectors.registrations {
            let expectation = vectors.expectation(challenge: vector.challenge, requiresUserVerification: vector.requireUV)
            do throws(WebAuthnError) {
                let credential = try WebAuthnVerifier.verifyRegistration(
                    clientDataJSON: vector.clientDataJSON.bytes, attestationObject: vector.attestationObject.bytes,
                    expecting: expectation)
                #expect(vector.expect == "ok", "\(vector.name): accepted")
                #expect(credential == vector.credential?.registered, "\(vector.name)")
            } catch {
                #expect(vector.expect == error.caseName, "\(vector.name): \(error.message)")
                check(error, against: vector.algorithm, vector.name)
            }
        }
    }

    @Test func assertionsMadeByFido2() async throws {
        let vectors = try await WebAuthnVectors.shared.value
        #expect(vectors.assertions.count > 30)
        for vector in vectors.assertions {
            do throws(WebAuthnError) {
                let counter = try WebAuthnVerifier.verifyAssertion(
                    clientDataJSON: vector.clientDataJSON.bytes, authenticatorData: vector.authenticatorData.bytes,
                    signature: vector.signature.bytes, credential: vector.credential.registered,
                    expecting: vectors.expectation(challenge: vector.challenge, requiresUserVerification: vector.requireUV))
                #expect(vector.expect == "ok", "\(vector.name): accepted")
                #expect(counter == vector.newSignCount, "\(vector.name)")
            } catch {
                #expect(vector.expect == error.caseName, "\(vector.name): \(error.message)")
                check(error, against: vector.algorithm, vector.name)
                if case .signCountWentBack(let stored, let received) = error {
                    let data = vector.authenticatorData.bytes
                    let counter = data[33 ..< 37].reduce(0) { $0 << 8 | UInt32($1) }
                    #expect(stored == vector.credential.signCount && received == counter, "\(vector.name)")
                }
            }
        }
    }

    /// A credential as verifyRegistration returns it, stored (JSON) and read back, checks the key's assertions.
    @Test func aRegisteredCredentialAsStoredVerifiesItsAssertions() async throws {
        let vectors = try await WebAuthnVectors.shared.value
        let pairs = [
            ("none-ES256", "ES256-no-counter"), ("packed-RS256", "RS256-counter-moves-on"),
            ("packed-EdDSA", "EdDSA-first-count"),
        ]
        for (registrationName, assertionName) in pairs {
            let registration = try #require(vectors.registrations.first { $0.name == registrationName })
            let assertion = try #require(vectors.assertions.first { $0.name == assertionName })
            var credential = try WebAuthnVerifier.verifyRegistration(
                clientDataJSON: registration.clientDataJSON.bytes, attestationObject: registration.attestationObject.bytes,
                expecting: vectors.expectation(challenge: registration.challenge, requiresUserVerification: true))
            credential = try JSONDecoder().decode(WebAuthnCredential.self, from: JSONEncoder().encode(credential))
            credential.signCount = assertion.credential.signCount
            let counter = try WebAuthnVerifier.verifyAssertion(
                clientDataJSON: assertion.clientDataJSON.bytes, authenticatorData: assertion.authenticatorData.bytes,
                signature: assertion.signature.bytes, credential: credential,
                expecting: vectors.expectation(challenge: assertion.challenge, requiresUserVerification: true))
            #expect(counter == assertion.newSignCount)
        }
    }

    @Test func everyErrorHasAMessageWithoutTheChallenge() {
        let errors: [WebAuthnError] = [
            .malformed("x"), .wrongCeremonyType, .challengeMismatch, .originNotAllowed("https://a"), .crossOriginNotAllowed,
            .tokenBindingNotSupported, .relyingPartyMismatch, .userNotPresent, .userNotVerified, .missingAttestedCredential,
            .unsupportedAlgorithm(-65535), .keyRejected("x"), .unsupportedAttestationFormat("tpm"), .attestationInvalid("x"),
            .signatureInvalid, .signCountWentBack(stored: 2, received: 1),
        ]
        #expect(Set(errors.map(\.message)).count == errors.count)
        #expect(WebAuthnError.clipped(String(repeating: "a", count: 5000)).count == 101)
    }

    private func check(_ error: WebAuthnError, against algorithm: Int?, _ name: String) {
        if case .unsupportedAlgorithm(let refused) = error { #expect(refused == algorithm, "\(name)") }
    }
}

/// The decoder on its own: RFC 8949 Appendix A's examples of the kinds it takes, and each thing it refuses.
@Suite struct WebAuthnCBORTests {
    private func decode(_ hex: String) throws(CBORError) -> CBORValue { try CBORDecoder.decode(Self.bytes(hex)) }

    private static func bytes(_ hex: String) -> [UInt8] {
        let digits = Array(hex.utf8)
        return stride(from: 0, to: digits.count, by: 2).map {
            UInt8(String(decoding: digits[$0 ..< $0 + 2], as: UTF8.self), radix: 16)!
        }
    }

    @Test func decodesRFC8949Examples() throws {
        #expect(try decode("00") == .integer(0))
        #expect(try decode("17") == .integer(23))
        #expect(try decode("1818") == .integer(24))
        #expect(try decode("1903e8") == .integer(1000))
        #expect(try decode("1a000f4240") == .integer(1_000_000))
        #expect(try decode("1b000000e8d4a51000") == .integer(1_000_000_000_000))
        #expect(try decode("20") == .integer(-1))
        #expect(try decode("3863") == .integer(-100))
        #expect(try decode("3b7fffffffffffffff") == .integer(.min))
        #expect(try decode("1b7fffffffffffffff") == .integer(.max))
        #expect(try decode("40") == .bytes([]))
        #expect(try decode("4401020304") == .bytes([1, 2, 3, 4]))
        #expect(try decode("60") == .text(""))
        #expect(try decode("62225c") == .text("\"\\"))
        #expect(try decode("63e6b0b4") == .text("水"))
        #expect(try decode("80") == .array([]))
        #expect(try decode("8301820203820405")
            == .array([.integer(1), .array([.integer(2), .integer(3)]), .array([.integer(4), .integer(5)])]))
        #expect(try decode("a201020304") == .map([.integer(1): .integer(2), .integer(3): .integer(4)]))
        #expect(try decode("a26161016162820203")
            == .map([.text("a"): .integer(1), .text("b"): .array([.integer(2), .integer(3)])]))
        #expect(try decode("f4") == .bool(false))
        #expect(try decode("f5") == .bool(true))
        #expect(try decode("f6") == .null)
        // Not the shortest form, yet valid CBOR.
        #expect(try decode("1b0000000000000001") == .integer(1))
    }

    @Test(arguments: [
        ("1bffffffffffffffff", "an integer is out of range"),
        ("3bffffffffffffffff", "an integer is out of range"),
        ("f7", "simple value 23 is not allowed"),
        ("f820", "simple value 24 is not allowed"),
        ("f93c00", "floating-point numbers are not allowed"),
        ("fb3ff199999999999a", "floating-point numbers are not allowed"),
        ("c074323031332d30332d32315432303a30343a30305a", "tags are not allowed"),
        ("5f42010243030405ff", "indefinite lengths are not allowed"),
        ("9fff", "indefinite lengths are not allowed"),
        ("bf6161f5ff", "indefinite lengths are not allowed"),
        ("ff", "indefinite lengths are not allowed"),
        ("1c", "reserved additional information 28"),
        ("", "the input ends inside a data item"),
        ("19", "a length exceeds the input"),
        ("4501020304", "a length exceeds the input"),
        ("5bffffffffffffffff", "a length exceeds the input"),
        ("9b0000000100000000", "a length exceeds the input"),
        ("828100", "the input ends inside a data item"),
        ("a2010201", "a map key is repeated"),
        ("a1800102", "a map key is neither an integer nor a text string"),
        ("a1f501", "a map key is neither an integer nor a text string"),
        ("62c328", "a text string is not UTF-8"),
        ("0000", "1 bytes follow the data item"),
    ])
    func refuses(_ hex: String, _ reason: String) {
        #expect(throws: CBORError(reason: reason)) { try decode(hex) }
    }

    @Test func limitsDepthItemsAndSize() throws {
        // 16 nested arrays decode; a 17th is one too many.
        #expect(throws: Never.self) { try CBORDecoder.decode([UInt8](repeating: 0x81, count: 15) + [0x80]) }
        #expect(throws: CBORError(reason: "containers nest deeper than 16")) {
            try CBORDecoder.decode([UInt8](repeating: 0x81, count: 16) + [0x80])
        }
        #expect(throws: CBORError(reason: "containers nest deeper than 16")) {
            try CBORDecoder.decode([UInt8](repeating: 0x81, count: 60_000))
        }
        // An array of `count` zeros, its count in two bytes.
        let items = { (count: UInt16) in
            [0x99, UInt8(count >> 8), UInt8(count & 0xFF)] + [UInt8](repeating: 0, count: Int(count))
        }
        #expect(throws: Never.self) { try CBORDecoder.decode(items(1024)) }
        #expect(throws: CBORError(reason: "a container has more than 1024 items")) { try CBORDecoder.decode(items(1025)) }
        let large = [0x5A, 0x00, 0x01, 0x00, 0x00] + [UInt8](repeating: 0, count: 65536)
        #expect(throws: CBORError(reason: "more than 65536 bytes")) { try CBORDecoder.decode(large) }
    }

    @Test func decodePrefixLeavesTheRest() throws {
        let (value, consumed) = try CBORDecoder.decodePrefix(Self.bytes("a1616101") + [0xDE, 0xAD])
        #expect(value == .map([.text("a"): .integer(1)]) && consumed == 4)
    }
}

/// The vectors of `webauthn_vectors.py`, made once per test run.
struct WebAuthnVectors: Decodable, Sendable {
    static let shared = Task<WebAuthnVectors, any Error> {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("python/webauthn_vectors.py")
        let process = try ChildProcess.launch("python3", [script.path])
        let result = await process.finish()
        guard result.status == 0 else { throw ScriptFailed(output: result.errors) }
        return try JSONDecoder().decode(WebAuthnVectors.self, from: Data(result.output.utf8))
    }

    struct ScriptFailed: Error, CustomStringConvertible {
        let output: String
        var description: String { "webauthn_vectors.py failed: \(output)" }
    }

    /// Base64url bytes.
    struct Binary: Decodable, Sendable {
        let bytes: [UInt8]
        init(from decoder: any Decoder) throws {
            let text = try decoder.singleValueContainer().decode(String.self)
            guard let data = Base64URL.decode(text) else {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not base64url"))
            }
            bytes = Array(data)
        }
    }

    struct Credential: Decodable, Sendable {
        let credentialId: Binary
        let publicKey: Binary
        let algorithm: Int
        let signCount: UInt32
        let aaguid: Binary?
        let attestationFormat: String?
        let backupEligible: Bool?
        let backedUp: Bool?

        /// As verifyRegistration returns it, or (for an assertion's, which has no attestation) as the server stores it.
        var registered: WebAuthnCredential {
            WebAuthnCredential(
                credentialID: credentialId.bytes, publicKey: publicKey.bytes, algorithm: algorithm, signCount: signCount,
                aaguid: aaguid?.bytes ?? [], attestationFormat: attestationFormat ?? "none",
                backupEligible: backupEligible ?? false, backedUp: backedUp ?? false)
        }
    }

    struct Registration: Decodable, Sendable {
        let name: String
        let expect: String
        let challenge: Binary
        let clientDataJSON: Binary
        let attestationObject: Binary
        let requireUV: Bool
        let credential: Credential?
        let algorithm: Int?
    }

    struct Assertion: Decodable, Sendable {
        let name: String
        let expect: String
        let challenge: Binary
        let clientDataJSON: Binary
        let authenticatorData: Binary
        let signature: Binary
        let requireUV: Bool
        let credential: Credential
        let newSignCount: UInt32?
        let algorithm: Int?
    }

    let rpId: String
    let origin: String
    let registrations: [Registration]
    let assertions: [Assertion]

    func expectation(challenge: Binary, requiresUserVerification: Bool) -> WebAuthnExpectation {
        WebAuthnExpectation(
            challenge: challenge.bytes, relyingPartyID: rpId, origins: [origin, "https://other.example.org"],
            requiresUserVerification: requiresUserVerification)
    }
}

extension WebAuthnError {
    /// The case's name, as the vectors spell what they expect.
    var caseName: String {
        switch self {
        case .malformed: "malformed"
        case .wrongCeremonyType: "wrongCeremonyType"
        case .challengeMismatch: "challengeMismatch"
        case .originNotAllowed: "originNotAllowed"
        case .crossOriginNotAllowed: "crossOriginNotAllowed"
        case .tokenBindingNotSupported: "tokenBindingNotSupported"
        case .relyingPartyMismatch: "relyingPartyMismatch"
        case .userNotPresent: "userNotPresent"
        case .userNotVerified: "userNotVerified"
        case .missingAttestedCredential: "missingAttestedCredential"
        case .unsupportedAlgorithm: "unsupportedAlgorithm"
        case .keyRejected: "keyRejected"
        case .unsupportedAttestationFormat: "unsupportedAttestationFormat"
        case .attestationInvalid: "attestationInvalid"
        case .signatureInvalid: "signatureInvalid"
        case .signCountWentBack: "signCountWentBack"
        }
    }
}
