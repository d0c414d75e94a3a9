@testable import FlintServer
import FlintTestSupport
import Foundation
import Testing

/// Seeded, deterministic mutations of fido2's valid vectors (bit flips, byte changes, truncations, insertions,
/// deletions, CBOR length fields pushed up or down): every outcome is a credential or a `WebAuthnError`, never a
/// crash, and the whole run takes seconds. The types say "or a WebAuthnError" (typed throws); running each input is
/// what shows the rest. The mutations' seeds are fixed; the vectors' keys and signatures are fresh on each run.
@Suite struct WebAuthnFuzzTests {
    /// One to three mutations of `input`.
    static func mutate(_ input: [UInt8], _ random: inout SeededGenerator) -> [UInt8] {
        var bytes = input
        func randomBytes(_ count: ClosedRange<Int>) -> [UInt8] {
            (0 ..< Int.random(in: count, using: &random)).map { _ in UInt8.random(in: 0 ... 255, using: &random) }
        }
        for _ in 0 ... Int.random(in: 0 ... 2, using: &random) {
            guard !bytes.isEmpty else {
                bytes = randomBytes(1 ... 8)
                continue
            }
            let position = Int.random(in: 0 ..< bytes.count, using: &random)
            let end = min(bytes.count, position + Int.random(in: 1 ... 32, using: &random))
            switch Int.random(in: 0 ..< 7, using: &random) {
            case 0: bytes[position] ^= 1 << UInt8.random(in: 0 ..< 8, using: &random)
            case 1: bytes[position] = UInt8.random(in: 0 ... 255, using: &random)
            case 2: bytes.removeSubrange(position...)
            case 3: bytes.insert(contentsOf: randomBytes(1 ... 8), at: position)
            case 4: bytes.removeSubrange(position ..< end)
            case 5:
                // A CBOR length or count one more or one less, or in its widest form claiming nearly everything.
                switch Int.random(in: 0 ..< 3, using: &random) {
                case 0: bytes[position] &+= 1
                case 1: bytes[position] &-= 1
                default:
                    bytes[position] = bytes[position] & 0xE0 | 27
                    bytes.insert(contentsOf: [0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xF0], at: position + 1)
                }
            default:
                // A slice copied elsewhere: repeated map keys, nested containers.
                bytes.insert(contentsOf: Array(bytes[position ..< end]), at: Int.random(in: 0 ... bytes.count, using: &random))
            }
        }
        return bytes
    }

    @Test func mutatedRegistrationsAndAssertionsAreRefusedCleanly() async throws {
        let vectors = try await WebAuthnVectors.shared.value
        let registrations = vectors.registrations.filter { $0.expect == "ok" }
        let assertions = vectors.assertions.filter { $0.expect == "ok" }
        let start = ContinuousClock.now
        var random = SeededGenerator(state: 0x5EED_F11E_7000_0001)
        // How often each outcome came: "ok" or an error's case name.
        var outcomes: [String: Int] = [:]
        /// Runs `run`, counts its outcome; whether it was accepted.
        func record(_ run: () throws(WebAuthnError) -> Void) -> Bool {
            do throws(WebAuthnError) {
                try run()
                outcomes["ok", default: 0] += 1
                return true
            } catch {
                outcomes[error.caseName, default: 0] += 1
                return false
            }
        }
        for round in 0 ..< 12_000 {
            let vector = registrations[round % registrations.count]
            let expecting = vectors.expectation(challenge: vector.challenge, requiresUserVerification: vector.requireUV)
            let mutatesClientData = round % 10 == 0
            let clientData = mutatesClientData ? Self.mutate(vector.clientDataJSON.bytes, &random) : vector.clientDataJSON.bytes
            let object = mutatesClientData
                ? vector.attestationObject.bytes : Self.mutate(vector.attestationObject.bytes, &random)
            _ = record { () throws(WebAuthnError) in
                _ = try WebAuthnVerifier.verifyRegistration(
                    clientDataJSON: clientData, attestationObject: object, expecting: expecting)
            }
        }
        for round in 0 ..< 8_000 {
            let vector = assertions[round % assertions.count]
            let expecting = vectors.expectation(challenge: vector.challenge, requiresUserVerification: vector.requireUV)
            var clientData = vector.clientDataJSON.bytes, data = vector.authenticatorData.bytes
            var signature = vector.signature.bytes, credential = vector.credential.registered
            switch round % 4 {
            case 0: clientData = Self.mutate(clientData, &random)
            case 1: data = Self.mutate(data, &random)
            case 2: signature = Self.mutate(signature, &random)
            default: credential.publicKey = Self.mutate(credential.publicKey, &random)
            }
            let accepted = record { () throws(WebAuthnError) in
                _ = try WebAuthnVerifier.verifyAssertion(
                    clientDataJSON: clientData, authenticatorData: data, signature: signature, credential: credential,
                    expecting: expecting)
            }
            // Everything an assertion is checked with is signed or is the key: no change may pass (a registration's
            // `none` attestation, by contrast, signs nothing).
            let changed = clientData != vector.clientDataJSON.bytes || data != vector.authenticatorData.bytes
                || signature != vector.signature.bytes || credential != vector.credential.registered
            #expect(!(accepted && changed), "\(vector.name): a changed assertion passed (round \(round))")
        }
        let elapsed = ContinuousClock.now - start
        // Some mutations change nothing that is checked (a reserved flag bit, an ignored JSON member); most must fail,
        // and at every layer, not only the first.
        #expect(outcomes["ok", default: 0] < 2_000, "\(outcomes)")
        #expect(outcomes.count >= 10, "\(outcomes)")
        #expect(elapsed < .seconds(60), "20,000 mutated inputs took \(elapsed)")
    }

    /// Random bytes, and random bytes behind a valid CBOR prefix, through the decoder and the COSE key parser.
    @Test func randomBytesNeverCrashTheDecoder() {
        var random = SeededGenerator(state: 0xC0B0_0000_0000_0002)
        let prefixes: [[UInt8]] = [[], [0xA3], [0xA5, 0x01, 0x02, 0x03, 0x26, 0x20, 0x01], [0x9F], [0x81, 0x81, 0x81]]
        for round in 0 ..< 20_000 {
            let length = Int.random(in: 0 ... 64, using: &random)
            let bytes = prefixes[round % prefixes.count]
                + (0 ..< length).map { _ in UInt8.random(in: 0 ... 255, using: &random) }
            if let (value, consumed) = try? CBORDecoder.decodePrefix(bytes) {
                #expect(consumed <= bytes.count)
                _ = try? COSEKey(value)
            }
        }
    }
}
