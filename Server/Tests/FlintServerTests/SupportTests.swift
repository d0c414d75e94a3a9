@testable import FlintServer
import FlintWire
import Foundation
import Testing

@Suite struct SupportTests {
    @Test func base64URLMatchesFoundationAndRejectsNonCanonicalInput() {
        var generator = SystemRandomNumberGenerator()
        for length in 0..<64 {
            let bytes = Data((0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) })
            let expected = bytes.base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
            #expect(Base64URL.encode(bytes) == expected)
            #expect(Base64URL.decode(expected) == bytes)
        }
        #expect(Base64URL.decode("QQ==") == nil, "padding is not base64url")
        #expect(Base64URL.decode("QQ+/") == nil, "standard alphabet is not base64url")
        #expect(Base64URL.decode("Q") == nil, "impossible length")
        #expect(Base64URL.decode("QR") == nil, "non-zero leftover bits")
        #expect(Base64URL.decode("QQ") == Data("A".utf8))
        // A collection without contiguous bytes is copied first; a substring is read in place.
        #expect(Base64URL.encode([UInt8](repeating: 0xFB, count: 5).lazy.map { $0 }) == "-_v7-_s")
        #expect(Base64URL.decode("x.QUJD.y".split(separator: ".")[1]) == Data("ABC".utf8))
    }

    @Test func randomStringsUseTheAlphabetAndLocalIDsHaveFirebasesShape() {
        let random = SystemRandomSource()
        let id = random.localID()
        #expect(id.count == 28 && id.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) })
        #expect(random.localID() != id)
        #expect(random.string(length: 100, alphabet: "ab").allSatisfy { $0 == "a" || $0 == "b" })
    }

    @Test func timeOrderedIDsCarryTheirTimeAheadOfRandomBits() throws {
        let random = SystemRandomSource()
        let now: Int64 = 1_795_320_029_527
        let id = random.timeOrderedID(milliseconds: now)
        let bytes = try #require(Base64URL.decode(id))
        #expect(id.count == 22 && bytes.count == 16)
        #expect(bytes.prefix(6).reduce(Int64(0)) { $0 << 8 | Int64($1) } == now, "the first 48 bits are the time")
        #expect(random.timeOrderedID(milliseconds: now) != id, "the random part tells ids of one millisecond apart")
        // Ids of the same 2^18 ms (`now` is early in one) share their first five characters: neighbours in an index.
        #expect(random.timeOrderedID(milliseconds: now + 59_000).prefix(5) == id.prefix(5))
        #expect(random.timeOrderedID(milliseconds: now + 86_400_000 * 400).prefix(5) != id.prefix(5))
    }
}

@Suite struct UserRecordTests {
    @Test func lastRefreshAtIsISO8601WithMilliseconds() {
        var user = UserAccount(projectID: "p", localID: "u", createdAt: 1_795_320_029_527)
        user.lastRefreshAt = 1_795_320_029_527
        let record = UserRecord(user, revealPasswordHash: false)
        #expect(record.lastRefreshAt == "2026-11-22T04:00:29.527Z")
        #expect(record.createdAt == "1795320029527" && record.validSince == "1795320029")
        #expect(UserRecord.iso8601(milliseconds: 0) == "1970-01-01T00:00:00.000Z")
        #expect(UserRecord.iso8601(milliseconds: 1_000_000_000_005) == "2001-09-09T01:46:40.005Z")
        #expect(UserRecord.iso8601(milliseconds: 1_704_067_199_090) == "2023-12-31T23:59:59.090Z")
    }
}
