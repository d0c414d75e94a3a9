import FlintWire
import Foundation
import Testing

/// v2 `passwordPolicy` as the server sends it, and the check of a password against it.
@Suite struct PasswordPolicyTests {
    static let strict = PasswordPolicyResponse(
        customStrengthOptions: .init(minPasswordLength: 8, maxPasswordLength: 12,
                                     containsLowercaseCharacter: true, containsUppercaseCharacter: true,
                                     containsNumericCharacter: true, containsNonAlphanumericCharacter: true),
        allowedNonAlphanumericCharacters: ["^", "$", "*", "."],
        enforcementState: "ENFORCE", forceUpgradeOnSignin: false, schemaVersion: 1)

    @Test func decodesIdentityPlatformsAnswer() throws {
        let json = #"""
        {"customStrengthOptions": {"minPasswordLength": 8, "maxPasswordLength": 12, "containsLowercaseCharacter": true,
          "containsUppercaseCharacter": true, "containsNumericCharacter": true, "containsNonAlphanumericCharacter": true},
         "allowedNonAlphanumericCharacters": ["^", "$", "*", "."], "enforcementState": "ENFORCE",
         "forceUpgradeOnSignin": false, "schemaVersion": 1}
        """#
        #expect(try JSONDecoder().decode(PasswordPolicyResponse.self, from: Data(json.utf8)) == Self.strict)
    }

    @Test func everyFieldMayBeAbsentAndAbsentFieldsAreNotWritten() throws {
        let empty = try JSONDecoder().decode(PasswordPolicyResponse.self, from: Data(#"{"customStrengthOptions": {}}"#.utf8))
        #expect(empty == PasswordPolicyResponse(customStrengthOptions: .init()))
        #expect(try JSONDecoder().decode(PasswordPolicyResponse.self, from: Data("{}".utf8)) == PasswordPolicyResponse())

        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let off = PasswordPolicyResponse(customStrengthOptions: .init(minPasswordLength: 6), enforcementState: "OFF",
                                         schemaVersion: PasswordPolicyResponse.currentSchemaVersion)
        #expect(String(decoding: try encoder.encode(off), as: UTF8.self)
            == #"{"customStrengthOptions":{"minPasswordLength":6},"enforcementState":"OFF","schemaVersion":1}"#)
    }

    @Test func aPasswordThatMeetsEveryRequirementHasNoneUnmet() {
        #expect(Self.strict.unmetRequirements(of: "Passw0rd$").isEmpty)
    }

    @Test func eachUnmetRequirementIsNamedInOrder() {
        #expect(Self.strict.unmetRequirements(of: "") == [
            .minPasswordLength, .containsLowercaseCharacter, .containsUppercaseCharacter,
            .containsNumericCharacter, .containsNonAlphanumericCharacter,
        ])
        #expect(Self.strict.unmetRequirements(of: "Password$") == [.containsNumericCharacter])
        #expect(Self.strict.unmetRequirements(of: "PASSW0RD$") == [.containsLowercaseCharacter])
        #expect(Self.strict.unmetRequirements(of: "passw0rd$") == [.containsUppercaseCharacter])
        #expect(Self.strict.unmetRequirements(of: "Passw0rd") == [.containsNonAlphanumericCharacter])
        #expect(Self.strict.unmetRequirements(of: "Pw0$") == [.minPasswordLength])
        #expect(Self.strict.unmetRequirements(of: "Passw0rd$Passw0rd$") == [.maxPasswordLength])
    }

    @Test func lengthsAreInclusiveAndCountCharacters() {
        #expect(Self.strict.unmetRequirements(of: "Pa$0abcd").isEmpty, "8 characters: the minimum")
        #expect(Self.strict.unmetRequirements(of: "Pa$0abcdefgh").isEmpty, "12 characters: the maximum")
        // "é" written as e + U+0301 is one character of two scalars: 7 characters here, 8 scalars.
        #expect(Self.strict.unmetRequirements(of: "Pa$0abe\u{301}") == [.minPasswordLength])
        // 👍🏽 is one character of two scalars and four UTF-16 code units: 12 characters here, 13 scalars.
        #expect(Self.strict.unmetRequirements(of: "Pa$0abcdefg👍🏽").isEmpty)
        #expect(Self.strict.unmetRequirements(of: "Pa$0abcdefgh👍🏽") == [.maxPasswordLength])
    }

    @Test func onlyTheAllowedCharactersAreNonAlphanumeric() {
        #expect(Self.strict.unmetRequirements(of: "Passw0rd!") == [.containsNonAlphanumericCharacter])
        #expect(Self.strict.unmetRequirements(of: "Passw0rd ") == [.containsNonAlphanumericCharacter])
        #expect(Self.strict.unmetRequirements(of: "Passw0rd.").isEmpty)
        var noneAllowed = Self.strict
        noneAllowed.allowedNonAlphanumericCharacters = nil
        #expect(noneAllowed.unmetRequirements(of: "Passw0rd$") == [.containsNonAlphanumericCharacter])
    }

    @Test func lettersAndDigitsAreASCII() {
        // Uppercase Ä, lowercase ß and the Arabic-Indic digit ٣ are not letters or digits to the policy.
        #expect(Self.strict.unmetRequirements(of: "Äßw٣rd$xx") == [
            .containsUppercaseCharacter, .containsNumericCharacter,
        ])
    }

    @Test func requirementsThePolicyDoesNotSetAreMet() {
        let lenient = PasswordPolicyResponse()
        #expect(lenient.minPasswordLength == PasswordPolicyResponse.defaultMinPasswordLength)
        #expect(lenient.unmetRequirements(of: "aaaaaa").isEmpty)
        #expect(lenient.unmetRequirements(of: "aaaaa") == [.minPasswordLength])
        #expect(lenient.unmetRequirements(of: String(repeating: "a", count: 10_000)).isEmpty)

        let notRequired = PasswordPolicyResponse(customStrengthOptions: .init(
            minPasswordLength: 10, containsLowercaseCharacter: false, containsUppercaseCharacter: false,
            containsNumericCharacter: false, containsNonAlphanumericCharacter: false))
        #expect(notRequired.minPasswordLength == 10)
        #expect(notRequired.unmetRequirements(of: "0123456789").isEmpty)
        #expect(notRequired.unmetRequirements(of: "012345678") == [.minPasswordLength])
    }
}
