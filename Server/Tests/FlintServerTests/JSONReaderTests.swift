@testable import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
import Testing

/// `JSONReader` against Foundation's `JSONDecoder`, the parser it replaces on the token paths: the same value for every
/// document both accept, on seeded random documents and on mutations of them, and a refusal for every document of a
/// corpus that is not JSON (or that a token could be read two ways from).
@Suite struct JSONReaderTests {
    static let pieces = ["a", "Z", "0", "/", "\"", "\\", "\n", "\r", "\t", "\u{08}", "\u{0C}", "\u{00}", "\u{01}", "\u{1F}",
                         "\u{7F}", "é", "ß", "中", "😀", "\u{2028}", "<", "&", " ", "+", ".", "\\u0041"]

    static func string(_ random: inout SeededGenerator) -> String {
        (0..<Int.random(in: 0...10, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
    }

    static func value(_ random: inout SeededGenerator, depth: Int = 0) -> JSONValue {
        switch Int.random(in: depth > 3 ? 0...3 : 0...5, using: &random) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &random))
        case 2:
            return .number(Bool.random(using: &random)
                ? Double(Int64.random(in: -9_000_000_000_000_000...9_000_000_000_000_000, using: &random))
                : Double.random(in: -1e12...1e12, using: &random))
        case 3: return .string(string(&random))
        case 4: return .array((0..<Int.random(in: 0...4, using: &random)).map { _ in value(&random, depth: depth + 1) })
        default:
            var members: [String: JSONValue] = [:]
            for _ in 0..<Int.random(in: 0...5, using: &random) { members[string(&random)] = value(&random, depth: depth + 1) }
            return .object(members)
        }
    }

    static func decoded(_ bytes: [UInt8]) -> JSONValue? {
        try? JSONDecoder().decode(JSONValue.self, from: Data(bytes))
    }

    @Test func readsWhatFoundationReads() throws {
        var random = SeededGenerator(state: 47)
        let encoder = JSONEncoder()
        for index in 0..<500 {
            let document = Self.value(&random)
            encoder.outputFormatting = index.isMultiple(of: 2) ? [] : [.prettyPrinted, .sortedKeys]
            let bytes = Array(try encoder.encode(document))
            #expect(try JSONReader.parse(bytes) == document)
            #expect(try JSONReader.parse(bytes) == Self.decoded(bytes))
        }
    }

    /// A mutated document that the reader accepts is one Foundation reads the same; most mutations are refused by both.
    @Test func acceptsNothingFoundationReadsOtherwise() throws {
        var random = SeededGenerator(state: 4747)
        let alphabet = Array(#"{}[]":,\ -+.eE0123456789tfnulra"#.utf8) + [0x00, 0x1F, 0x7F, 0xC3, 0xA9, 0xFF, 0xED, 0xA0, 0x80]
        var accepted = 0
        for _ in 0..<3000 {
            var bytes = Array(try JSONEncoder().encode(Self.value(&random)))
            for _ in 0..<Int.random(in: 1...3, using: &random) where !bytes.isEmpty {
                let at = Int.random(in: 0..<bytes.count, using: &random)
                switch Int.random(in: 0...2, using: &random) {
                case 0: bytes[at] = alphabet.randomElement(using: &random)!
                case 1: bytes.remove(at: at)
                default: bytes.insert(alphabet.randomElement(using: &random)!, at: at)
                }
            }
            guard let ours = try? JSONReader.parse(bytes) else { continue }
            accepted += 1
            #expect(Self.decoded(bytes) == ours, "\(String(decoding: bytes, as: UTF8.self))")
        }
        #expect(accepted > 100)
    }

    @Test(arguments: [
        "", " ", "{", "}", "[1,]", "{\"a\":1,}", "{a:1}", "{'a':1}", "[01]", "[1.]", "[.5]", "[+1]", "[1e]", "[-]", "[--1]",
        "[NaN]", "[Infinity]", "[1e999]", "[tru]", "[nul]", "[True]", "\"\\x\"", "\"\\u12\"", "\"\\uD800\"", "\"\\uDC00\"",
        "\"\\uD800\\u0041\"", "\"a\nb\"", "\"a\u{01}b\"", "{\"a\":1}x", "[1] [2]", "{\"a\" 1}", "{\"a\":}", "[1 2]",
        // Duplicate names: JSON allows them, a token's claims may not have them (RFC 7519 §4).
        "{\"sub\":\"a\",\"sub\":\"b\"}",
        String(repeating: "[", count: 65) + String(repeating: "]", count: 65),
    ])
    func refuses(_ document: String) {
        #expect(throws: JSONReader.Failure.self) { try JSONReader.parse(Array(document.utf8)) }
    }

    @Test func refusesInvalidUTF8() {
        for bytes: [UInt8] in [[0x22, 0xFF, 0x22], [0x22, 0xC3, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22], [0x22, 0xC0, 0xAF, 0x22]] {
            #expect(throws: JSONReader.Failure.self) { try JSONReader.parse(bytes) }
        }
    }

    @Test func readsEscapesAndNesting() throws {
        #expect(try JSONReader.parse(Array(#"  {"k\u00e9":["\ud83d\ude00","\"\\\/\b\f\n\r\t"],"n":-0.5e2}  "#.utf8))
            == .object(["ké": .array(["😀", "\"\\/\u{08}\u{0C}\n\r\t"]), "n": .number(-50)]))
        let deep = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        #expect(throws: Never.self) { try JSONReader.parse(Array(deep.utf8)) }
    }

    /// ID tokens' claims as `JSONWriter` writes them read back whole, and as Foundation reads them.
    @Test func claimsRoundTrip() throws {
        var random = SeededGenerator(state: 470)
        func maybe(_ text: String) -> String? { Bool.random(using: &random) ? text : nil }
        for _ in 0..<300 {
            var identities: [String: [String]] = [:]
            for _ in 0..<Int.random(in: 0...3, using: &random) { identities[Self.string(&random)] = [Self.string(&random)] }
            let firebase = FirebaseClaim(
                identities: identities, signInProvider: Self.string(&random), signInSecondFactor: maybe(Self.string(&random)),
                secondFactorIdentifier: maybe(Self.string(&random)), tenant: maybe(Self.string(&random)),
                sessionEpoch: Bool.random(using: &random) ? Int64.random(in: 1...1_000_000, using: &random) : nil,
                // A `null` statement is no statement: both readers give nil for it.
                signInAttributes: Bool.random(using: &random) ? Self.value(&random).nonNull : nil)
            let claims = IDTokenClaims(
                iss: Self.string(&random), aud: Self.string(&random), authTime: Int64.random(in: 0...2_000_000_000, using: &random),
                userId: Self.string(&random), iat: Int64.random(in: 0...2_000_000_000, using: &random),
                exp: Int64.random(in: 0...2_000_000_000, using: &random), email: maybe(Self.string(&random)),
                emailVerified: Bool.random(using: &random) ? Bool.random(using: &random) : nil, phoneNumber: maybe(Self.string(&random)),
                name: maybe(Self.string(&random)), picture: maybe(Self.string(&random)), providerId: maybe("anonymous"),
                sid: maybe(Self.string(&random)), firebase: firebase)
            let bytes = try claims.jsonBytes()
            let read = try #require(IDTokenClaims(json: bytes))
            #expect(read == claims)
            #expect(read == (try JSONDecoder().decode(IDTokenClaims.self, from: Data(bytes))))
            #expect(IDTokenClaims.tenant(json: bytes) == firebase.tenant)
        }
    }

    @Test func claimsOfTheWrongTypeAreUnreadable() {
        let valid = #"{"aud":"p","auth_time":1,"exp":3,"firebase":{"identities":{},"sign_in_provider":"anonymous"},"iat":2,"iss":"i","sub":"u","user_id":"u"}"#
        #expect(IDTokenClaims(json: Array(valid.utf8)) != nil)
        for broken in [
            valid.replacingOccurrences(of: #""exp":3"#, with: #""exp":"3""#),
            valid.replacingOccurrences(of: #""exp":3"#, with: #""exp":3.5"#),
            valid.replacingOccurrences(of: #""iss":"i","#, with: ""),
            valid.replacingOccurrences(of: #""identities":{}"#, with: #""identities":{"email":[1]}"#),
            valid.replacingOccurrences(of: #""sub":"u""#, with: #""sub":"u","email":true"#),
            valid.replacingOccurrences(of: #""sub":"u""#, with: #""sub":"u","email_verified":"yes""#),
        ] {
            #expect(IDTokenClaims(json: Array(broken.utf8)) == nil, "\(broken)")
            #expect((try? JSONDecoder().decode(IDTokenClaims.self, from: Data(broken.utf8))) == nil, "\(broken)")
        }
    }
}

extension JSONValue {
    /// The value, with `true` in place of `null`.
    fileprivate var nonNull: JSONValue { self == .null ? .bool(true) : self }
}
