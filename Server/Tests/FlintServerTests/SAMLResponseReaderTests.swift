@testable import FlintServer
import FlintTestSupport
import Foundation
import Testing

/// SAMLResponseReader against responses made by an independent IdP (`Tests/python/saml_idp.py`: lxml, signxml,
/// cryptography): the valid ones read to the fields the script expects, each attack (signature wrapping XSW1–8,
/// other keys, SHA-1, duplicate IDs, DOCTYPEs, …) is refused with the error case it names.
@Suite struct SAMLResponseReaderTests {
    @Test func responsesOfTheIdPReadAsItWroteThem() async throws {
        let vectors = try await SAMLVectors.shared.value.filter { $0.expect == "accept" }
        #expect(vectors.count >= 15)
        for vector in vectors {
            do throws(SAMLError) {
                #expect(try vector.read() == vector.fields?.data, "\(vector.name)")
            } catch {
                Issue.record("\(vector.name): refused: \(error.message)")
            }
        }
    }

    @Test func attacksAreRefusedWithTheirError() async throws {
        let vectors = try await SAMLVectors.shared.value.filter { $0.expect != "accept" }
        #expect(vectors.count >= 35)
        for vector in vectors {
            do throws(SAMLError) {
                let data = try vector.read()
                Issue.record("\(vector.name): accepted, read the NameID \(data.assertion.nameID)")
            } catch {
                #expect(error.caseName == vector.expect, "\(vector.name): \(error.message)")
            }
        }
    }

    /// Separate documents and contexts on many threads at once, after the one-time library start.
    @Test func readsConcurrently() async throws {
        let vectors = try await SAMLVectors.shared.value
        try await withThrowingTaskGroup { group in
            for task in 0 ..< 8 {
                group.addTask {
                    for round in 0 ..< 40 {
                        let vector = vectors[(task * 7 + round) % vectors.count]
                        let outcome = Result { () throws(SAMLError) in try vector.read() }
                        switch outcome {
                        case .success(let data): #expect(vector.expect == "accept" && data == vector.fields?.data)
                        case .failure(let error): #expect(error.caseName == vector.expect, "\(vector.name)")
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    /// Seeded mutations of responses signed twice, plain and encrypted: each outcome is a `SAMLError` (the types say
    /// so; running each input shows there is no crash) or the original assertion, in seconds. A mutation that
    /// unmakes the Response's Signature element (its name, its namespace) leaves an unsigned Response around a
    /// signed assertion: accepted, and said so (`isResponseSigned` false); the data is the original's whenever the
    /// Response's signature held.
    @Test func mutatedResponsesReadTheSignedDataOrFail() async throws {
        let vectors = try await SAMLVectors.shared.value
        let originals = try ["both-signed", "encrypted-aes128-gcm-both-signed"].map { name in
            try #require(vectors.first { $0.name == name })
        }
        let expected = try originals.map { try #require($0.fields?.data) }
        var random = SeededGenerator(state: 0x5A41_1F11_E700_0001)
        var outcomes: [String: Int] = [:]
        let start = ContinuousClock.now
        for round in 0 ..< 3000 {
            let original = originals[round % originals.count]
            var mutated = original
            mutated.xml = Data(Self.mutate(Array(original.xml), &random))
            do throws(SAMLError) {
                let data = try mutated.read()
                outcomes["accept", default: 0] += 1
                #expect(data.assertion == expected[round % originals.count].assertion, "round \(round)")
                #expect(!data.isResponseSigned || data == expected[round % originals.count], "round \(round)")
            } catch {
                outcomes[error.caseName, default: 0] += 1
            }
        }
        #expect(ContinuousClock.now - start < .seconds(120))
        #expect(outcomes.count >= 4, "\(outcomes)")
    }

    @Test func everyErrorHasItsOwnMessage() {
        let errors: [SAMLError] = [
            .tooLarge, .malformed("x"), .doctypeRefused, .notAResponse, .wrappedOrAmbiguous("x"), .unsigned, .badSignature,
            .weakAlgorithm("x"), .unsupportedAlgorithm("x"), .certificateUnusable("x"), .decryptionKeyUnusable,
            .decryptionFailed, .libraryUnavailable,
        ]
        #expect(Set(errors.map(\.message)).count == errors.count)
    }

    @Test func unusableCertificatesAreRefused() async throws {
        let vector = try #require(try await SAMLVectors.shared.value.first { $0.name == "assertion-signed" })
        for certificates in [[], ["not a certificate"], ["-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----"]] {
            var configured = vector
            configured.certificates = certificates
            #expect(throws: SAMLError.self) { try configured.read() }
            #expect((try? configured.read()) == nil)
        }
    }

    @Test func xmlDateTimesAreUTCAndReal() {
        #expect(XMLDateTime.date("2026-03-04T05:06:07Z") == Date(timeIntervalSince1970: 1_772_600_767))
        #expect(XMLDateTime.date("2026-03-04T05:06:07.5Z") == Date(timeIntervalSince1970: 1_772_600_767.5))
        #expect(XMLDateTime.date("2024-02-29T00:00:00") == Date(timeIntervalSince1970: 1_709_164_800))
        #expect(XMLDateTime.date("1970-01-01T00:00:00.0000001Z") != nil)
        for refused in ["2026-02-30T00:00:00Z", "2026-3-04T05:06:07Z", "2026-03-04T05:06:07+02:00", "2026-03-04T24:00:00Z",
                        "2026-03-04T05:06:07.Z", "2026-03-04", ""] {
            #expect(XMLDateTime.date(refused) == nil, "\(refused)")
        }
    }

    /// One to three mutations: bit flips, bytes changed, removed, inserted or copied elsewhere, and XML's own
    /// troublemakers (comments, entities, CDATA, DOCTYPEs, duplicated tags) put anywhere.
    static func mutate(_ input: [UInt8], _ random: inout SeededGenerator) -> [UInt8] {
        let tokens = ["<!---->", "&amp;", "&x;", "<![CDATA[x]]>", "<!DOCTYPE r>", "<", ">", "\"", " ID=\"a\"",
                      "<saml:Assertion>", "</saml:Assertion>", "xmlns:saml=\"urn:x\"", "\u{0}", "é"]
        var bytes = input
        for _ in 0 ... Int.random(in: 0 ... 2, using: &random) {
            guard !bytes.isEmpty else { return bytes }
            let position = Int.random(in: 0 ..< bytes.count, using: &random)
            let end = min(bytes.count, position + Int.random(in: 1 ... 64, using: &random))
            switch Int.random(in: 0 ..< 6, using: &random) {
            case 0: bytes[position] ^= 1 << UInt8.random(in: 0 ..< 8, using: &random)
            case 1: bytes[position] = UInt8.random(in: 0 ... 255, using: &random)
            case 2: bytes.removeSubrange(position ..< end)
            case 3: bytes.insert(contentsOf: Array(tokens.randomElement(using: &random)!.utf8), at: position)
            case 4: bytes.removeSubrange(position...)
            default: bytes.insert(contentsOf: Array(bytes[position ..< end]), at: Int.random(in: 0 ... bytes.count, using: &random))
            }
        }
        return bytes
    }
}

extension SAMLError {
    /// The case's name, as the vectors write it.
    var caseName: String { String(String(describing: self).prefix { $0 != "(" }) }
}

/// The vectors `saml_idp.py vectors` writes, one JSON file each; made once per test run.
struct SAMLVectors: Decodable, Sendable {
    static let shared = Task<[SAMLVectors], any Error> {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("python/saml_idp.py")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("saml-vectors-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let process = try ChildProcess.launch("python3", [script.path, "vectors", directory.path])
        let result = await process.finish()
        guard result.status == 0 else { throw ScriptFailed(output: result.errors) }
        return try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted().map { file in
            try JSONDecoder().decode(SAMLVectors.self, from: Data(contentsOf: directory.appendingPathComponent(file)))
        }
    }

    struct ScriptFailed: Error, CustomStringConvertible {
        let output: String
        var description: String { "saml_idp.py failed: \(output)" }
    }

    let name: String
    var xml: Data
    var certificates: [String]
    let spKey: String?
    /// "accept", or the SAMLError case expected.
    let expect: String
    let fields: Fields?

    func read() throws(SAMLError) -> SAMLResponseData {
        try SAMLResponseReader.read(xml, trustedCertificates: certificates, decryptionKeyPEM: spKey)
    }

    /// What the reader must return; times are seconds since 1970.
    struct Fields: Decodable, Sendable {
        let responseID: String
        let issuer: String?
        let destination: String?
        let inResponseTo: String?
        let statusCode: String
        let isResponseSigned: Bool
        let assertion: Assertion

        struct Assertion: Decodable, Sendable {
            let id, issuer, nameID: String
            let isSigned, wasEncrypted: Bool
            let nameIDFormat, sessionIndex: String?
            let subjectConfirmations: [Confirmation]
            let notBefore, notOnOrAfter, authnInstant: Double?
            let audienceRestrictions: [[String]]
            let attributes: [String: [String]]
        }

        struct Confirmation: Decodable, Sendable {
            let method: String
            let recipient, inResponseTo: String?
            let notBefore, notOnOrAfter: Double?
        }

        var data: SAMLResponseData {
            let date = { (seconds: Double?) in seconds.map(Date.init(timeIntervalSince1970:)) }
            return SAMLResponseData(
                responseID: responseID, issuer: issuer, destination: destination, inResponseTo: inResponseTo,
                statusCode: statusCode, isResponseSigned: isResponseSigned,
                assertion: SAMLAssertionData(
                    id: assertion.id, issuer: assertion.issuer, isSigned: assertion.isSigned,
                    wasEncrypted: assertion.wasEncrypted, nameID: assertion.nameID, nameIDFormat: assertion.nameIDFormat,
                    subjectConfirmations: assertion.subjectConfirmations.map {
                        SAMLSubjectConfirmation(
                            method: $0.method, recipient: $0.recipient, notBefore: date($0.notBefore),
                            notOnOrAfter: date($0.notOnOrAfter), inResponseTo: $0.inResponseTo)
                    },
                    notBefore: date(assertion.notBefore), notOnOrAfter: date(assertion.notOnOrAfter),
                    audienceRestrictions: assertion.audienceRestrictions, authnInstant: date(assertion.authnInstant),
                    sessionIndex: assertion.sessionIndex, attributes: assertion.attributes))
        }
    }
}
