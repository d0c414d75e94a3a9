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
    }

    @Test func randomStringsUseTheAlphabetAndLocalIDsHaveFirebasesShape() {
        let random = SystemRandomSource()
        let id = random.localID()
        #expect(id.count == 28 && id.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) })
        #expect(random.localID() != id)
        #expect(random.string(length: 100, alphabet: "ab").allSatisfy { $0 == "a" || $0 == "b" })
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
