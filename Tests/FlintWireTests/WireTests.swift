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
