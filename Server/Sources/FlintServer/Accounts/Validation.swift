import Foundation
import FlintWire

/// Input checks shared by the account operations.
enum Validation {
    /// Lowercases and checks an email the way Firebase does: one `@`, something on each side, a dot-free
    /// check left to delivery. Returns the normalised address. As Firebase's, an absent field is
    /// `missing` and an empty one `invalid`.
    static func email(_ raw: String?, missing: ServerErrorCode = .missingEmail, invalid: ServerErrorCode = .invalidEmail) throws -> String {
        guard let raw else { throw FlintError(missing) }
        guard !raw.isEmpty else { throw FlintError(invalid) }
        let email = raw.lowercased()
        // An ASCII address is checked on its bytes, which are then its Characters (Unicode's whitespace in ASCII is
        // tab to carriage return, and space): walking Characters was most of the checks of an imported user.
        let isAddress = email.utf8.allSatisfy { $0 < 0x80 }
            ? Self.isAddress(email.utf8, at: UInt8(ascii: "@"), isWhitespace: { $0 == 32 || (9...13).contains($0) })
            : Self.isAddress(email, at: "@", isWhitespace: \.isWhitespace)
        guard email.utf8.count <= 254, isAddress else { throw FlintError(invalid) }
        return email
    }

    /// One `at` with something on each side of it, and no whitespace.
    private static func isAddress<Text: Collection>(_ text: Text, at: Text.Element, isWhitespace: (Text.Element) -> Bool) -> Bool
        where Text.Element: Equatable {
        let parts = text.split(separator: at, omittingEmptySubsequences: false)
        return parts.count == 2 && !parts[0].isEmpty && !parts[1].isEmpty && !text.contains(where: isWhitespace)
    }

    /// Firebase's password rule: at least 6 characters.
    static func newPassword(_ password: String?) throws -> String {
        guard let password, !password.isEmpty else { throw FlintError(.missingPassword) }
        guard password.count >= PasswordHasher.minimumLength else {
            throw FlintError(.weakPassword, "Password should be at least \(PasswordHasher.minimumLength) characters")
        }
        guard password.utf8.count <= PasswordHasher.maximumLength else {
            throw FlintError(.weakPassword, "Password should be at most \(PasswordHasher.maximumLength) bytes")
        }
        return password
    }

    /// Firebase's phone format as clients send it: E.164 once spaces, dots, dashes and brackets are dropped.
    static func dialledPhoneNumber(_ raw: String?) throws -> String {
        // Firebase answers a missing number as a malformed one.
        guard let raw, !raw.isEmpty else { throw FlintError(.invalidPhoneNumber, "Invalid format.") }
        return try phoneNumber(raw.filter { !" \t.-()".contains($0) })
    }

    /// E.164: `+` and 7 to 15 digits.
    static func phoneNumber(_ raw: String?) throws -> String {
        guard let raw, !raw.isEmpty else { throw FlintError(.invalidPhoneNumber, "Invalid format.") }
        let digits = raw.dropFirst()
        guard raw.hasPrefix("+"), (7...15).contains(digits.count), digits.allSatisfy({ $0.isASCII && $0.isNumber })
        else { throw FlintError(.invalidPhoneNumber, "Invalid format.") }
        return raw
    }

    /// Custom claims: a JSON object of at most 1000 characters using no reserved claim name.
    static func customClaims(_ raw: String) throws -> String? {
        if raw.isEmpty || raw == "{}" { return nil }
        guard raw.count <= 1000 else { throw FlintError(.claimsTooLarge) }
        guard case .object(let claims)? = try? JSONBody.decodeValue(raw) else { throw FlintError(.invalidClaims) }
        if let reserved = claims.keys.sorted().first(where: IDTokenClaims.reservedNames.contains) {
            throw FlintError(.forbiddenClaim, reserved)
        }
        return raw
    }
}

extension JSONBody {
    static func decodeValue(_ text: String) throws -> JSONValue {
        try decoder.decode(JSONValue.self, from: Data(text.utf8))
    }
}

