import FlintWire
import Foundation
import Testing

@Suite struct WireTests {
    @Test func errorEnvelopeSplitsCodeAndDetail() throws {
        let json = #"{"error":{"code":400,"message":"WEAK_PASSWORD : Password should be at least 6 characters","errors":[{"message":"WEAK_PASSWORD","reason":"invalid","domain":"global"}]}}"#
        let envelope = try JSONDecoder().decode(ErrorEnvelope.self, from: Data(json.utf8))
        #expect(envelope.serverCode == "WEAK_PASSWORD")
        #expect(envelope.detail == "Password should be at least 6 characters")
        #expect(ServerErrorCode(rawValue: envelope.serverCode) == .weakPassword)
        let plain = ErrorEnvelope(error: .init(code: 400, message: "EMAIL_EXISTS", errors: [], status: nil))
        #expect(plain.serverCode == "EMAIL_EXISTS" && plain.detail == nil)
    }

    /// The hand-written decoders of import records (lenient about `localId` and `providerId`) read every
    /// field a server writes: a fully filled record survives a round trip.
    @Test func userRecordsRoundTripWithEveryField() throws {
        var provider = ProviderUserInfo(providerId: "google.com", rawId: "g-1", federatedId: "https://accounts.google.com/g-1",
                                        email: "a@example.com", displayName: "A", photoUrl: "https://example.com/a.png")
        provider.screenName = "ada"
        var record = UserRecord(localId: "u-1")
        record.email = "a@example.com"
        record.emailVerified = true
        record.displayName = "Ada"
        record.photoUrl = "https://example.com/a.png"
        record.phoneNumber = "+15555550100"
        record.screenName = "ada"
        record.passwordHash = "aGFzaA=="
        record.salt = "c2FsdA=="
        record.passwordUpdatedAt = 1_700_000_000_000
        record.providerUserInfo = [provider]
        record.validSince = "1700000000"
        record.disabled = false
        record.lastLoginAt = "1700000000000"
        record.createdAt = "1690000000000"
        record.lastRefreshAt = "2026-11-25T10:00:00.000Z"
        record.customAttributes = #"{"role":"admin"}"#
        record.emailLinkSignin = true
        record.mfaInfo = [MFAEnrollment(mfaEnrollmentId: "m-1", displayName: "Phone", phoneInfo: "+15555550101",
                                        enrolledAt: "2026-11-25T10:00:00.000Z", unobfuscatedPhoneInfo: "+15555550101")]
        record.tenantId = "t-1"
        record.rawPassword = "secret"
        let decoded = try JSONDecoder().decode(UserRecord.self, from: try JSONEncoder().encode(record))
        #expect(decoded == record)
    }

    @Test func jsonValueRoundTripsAndKeepsIntegersIntegral() throws {
        let text = #"{"a":[1,2.5,true,null,"x"],"b":{"c":1795320029}}"#
        let value = try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        #expect(String(decoding: try encoder.encode(value), as: UTF8.self) == text)
    }

    @Test func tokenClaimsUseFirebaseNames() throws {
        let claims = IDTokenClaims(
            iss: "https://securetoken.google.com/p", aud: "p", authTime: 1, userId: "u", iat: 2, exp: 3602,
            email: "a@example.com", emailVerified: true,
            firebase: FirebaseClaim(identities: ["email": ["a@example.com"]], signInProvider: "password"))
        let object = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(claims)).objectValue ?? [:]
        #expect(object["auth_time"] == .number(1) && object["user_id"] == .string("u") && object["sub"] == .string("u"))
        #expect(object["email_verified"] == .bool(true))
        #expect(object["firebase"]?.objectValue?["sign_in_provider"] == .string("password"))
        #expect(object["phone_number"] == nil, "absent claims are omitted")
    }

    @Test func secureTokenResponseIsSnakeCaseWithStringExpiry() throws {
        let response = SecureTokenResponse(idToken: "t", refreshToken: "r", expiresIn: "3600", userId: "u", projectId: "p")
        let object = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(response)).objectValue ?? [:]
        #expect(object["expires_in"] == .string("3600"))
        #expect(object["access_token"] == .string("t") && object["id_token"] == .string("t"))
        #expect(object["token_type"] == .string("Bearer") && object["user_id"] == .string("u"))
    }
}
