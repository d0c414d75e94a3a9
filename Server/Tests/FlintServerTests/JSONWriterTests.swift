@testable import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
import Testing

/// The answers that write themselves must give exactly the bytes `JSONBody.encoder` gives for them: same members,
/// same order, same escapes. Compared on many seeded random values, strings with every kind of character.
@Suite struct JSONWriterTests {
    static let pieces = ["a", "Z", "0", "/", "\"", "\\", "\n", "\r", "\t", "\u{08}", "\u{0C}", "\u{00}", "\u{01}", "\u{1F}",
                         "\u{7F}", "é", "ß", "中", "😀", "\u{2028}", "\u{2029}", "<", ">", "&", "'", " ", "+", "%", "."]

    static func string(_ random: inout SeededGenerator) -> String {
        (0..<Int.random(in: 0...12, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
    }

    static func maybe<T>(_ random: inout SeededGenerator, _ make: (inout SeededGenerator) -> T) -> T? {
        Bool.random(using: &random) ? make(&random) : nil
    }

    static func expectSameBytes<T: JSONWritable>(_ value: T) throws {
        let written = String(decoding: try value.jsonBytes(), as: UTF8.self)
        let encoded = String(decoding: try JSONBody.encoder.encode(value), as: UTF8.self)
        #expect(written == encoded)
    }

    /// Claims built as values (the provider's tokens, merged custom claims), fractions and large numbers included.
    @Test func jsonValuesMatchTheEncoder() throws {
        var random = SeededGenerator(state: 4700)
        for _ in 0..<500 { try Self.expectSameBytes(JSONReaderTests.value(&random)) }
        for number in [0.5, -1e-7, 1e15, 1e16, 123456789.125, -0.0, 9_007_199_254_740_992] {
            try Self.expectSameBytes(JSONValue.number(number))
        }
    }

    @Test func accountAnswersMatchTheEncoder() throws {
        var random = SeededGenerator(state: 35)
        for _ in 0..<300 {
            var user = UserRecord(localId: Self.string(&random))
            user.email = Self.maybe(&random, Self.string)
            user.emailVerified = Self.maybe(&random) { Bool.random(using: &$0) }
            user.displayName = Self.maybe(&random, Self.string)
            user.photoUrl = Self.maybe(&random, Self.string)
            user.phoneNumber = Self.maybe(&random, Self.string)
            user.screenName = Self.maybe(&random, Self.string)
            user.passwordHash = Self.maybe(&random, Self.string)
            user.salt = Self.maybe(&random, Self.string)
            user.passwordUpdatedAt = Self.maybe(&random) {
                Bool.random(using: &$0) ? Double(Int64.random(in: 0...1_900_000_000_000, using: &$0)) : Double.random(in: 0...1e6, using: &$0)
            }
            user.providerUserInfo = Self.maybe(&random) { random in
                (0..<Int.random(in: 0...3, using: &random)).map { _ in
                    ProviderUserInfo(providerId: Self.string(&random), rawId: Self.maybe(&random, Self.string),
                                     federatedId: Self.maybe(&random, Self.string), email: Self.maybe(&random, Self.string),
                                     displayName: Self.maybe(&random, Self.string), photoUrl: Self.maybe(&random, Self.string),
                                     phoneNumber: Self.maybe(&random, Self.string))
                }
            }
            user.validSince = Self.maybe(&random, Self.string)
            user.disabled = Self.maybe(&random) { Bool.random(using: &$0) }
            user.lastLoginAt = Self.maybe(&random, Self.string)
            user.createdAt = Self.maybe(&random, Self.string)
            user.lastRefreshAt = Self.maybe(&random, Self.string)
            user.customAttributes = Self.maybe(&random, Self.string)
            user.emailLinkSignin = Self.maybe(&random) { Bool.random(using: &$0) }
            user.mfaInfo = Self.maybe(&random) { random in
                [MFAEnrollment(mfaEnrollmentId: Self.string(&random), displayName: Self.maybe(&random, Self.string))]
            }
            user.tenantId = Self.maybe(&random, Self.string)
            user.rawPassword = Self.maybe(&random, Self.string)
            try Self.expectSameBytes(user)
            try Self.expectSameBytes(LookupResponse(kind: Self.maybe(&random, Self.string), users: Self.maybe(&random) { _ in [user, user] }))

            var signIn = SignInResponse(
                kind: Self.maybe(&random, Self.string), localId: Self.string(&random), email: Self.maybe(&random, Self.string),
                displayName: Self.maybe(&random, Self.string), idToken: Self.maybe(&random, Self.string),
                refreshToken: Self.maybe(&random, Self.string), expiresIn: Self.maybe(&random, Self.string),
                registered: Self.maybe(&random) { Bool.random(using: &$0) }, isNewUser: Self.maybe(&random) { Bool.random(using: &$0) })
            signIn.mfaPendingCredential = Self.maybe(&random, Self.string)
            signIn.mfaInfo = user.mfaInfo
            try Self.expectSameBytes(signIn)
        }
    }

    @Test func tokenAnswersMatchTheEncoder() throws {
        var random = SeededGenerator(state: 36)
        for _ in 0..<300 {
            try Self.expectSameBytes(SecureTokenResponse(
                idToken: Self.string(&random), refreshToken: Self.string(&random), expiresIn: Self.string(&random),
                userId: Self.string(&random), projectId: Self.string(&random)))
            var identities: [String: [String]] = [:]
            for _ in 0..<Int.random(in: 0...4, using: &random) {
                identities[Self.string(&random)] = (0..<Int.random(in: 0...2, using: &random)).map { _ in Self.string(&random) }
            }
            let claims = IDTokenClaims(
                iss: Self.string(&random), aud: Self.string(&random), authTime: Int64.random(in: -5...2_000_000_000, using: &random),
                userId: Self.string(&random), iat: Int64.random(in: 0...2_000_000_000, using: &random),
                exp: Int64.random(in: 0...2_000_000_000, using: &random), email: Self.maybe(&random, Self.string),
                emailVerified: Self.maybe(&random) { Bool.random(using: &$0) }, phoneNumber: Self.maybe(&random, Self.string),
                name: Self.maybe(&random, Self.string), picture: Self.maybe(&random, Self.string),
                providerId: Self.maybe(&random, Self.string),
                firebase: FirebaseClaim(
                    identities: identities, signInProvider: Self.string(&random),
                    signInSecondFactor: Self.maybe(&random, Self.string), secondFactorIdentifier: Self.maybe(&random, Self.string),
                    tenant: Self.maybe(&random, Self.string), sessionEpoch: Self.maybe(&random) { Int64.random(in: 1...99, using: &$0) },
                    signInAttributes: Self.maybe(&random) { random in
                        .object(["mail": .array([.string(Self.string(&random))]), "n": .number(2)])
                    }))
            try Self.expectSameBytes(claims)
            try Self.expectSameBytes(ProviderGrants.TokenResponse(
                access_token: Self.string(&random), expires_in: Int64.random(in: 0...86_400, using: &random),
                scope: Self.string(&random), id_token: Self.maybe(&random, Self.string),
                refresh_token: Self.maybe(&random, Self.string)))
        }
    }
}
