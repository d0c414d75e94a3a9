import FlintWire
import Foundation

/// An ID token with its decoded claims. The signature is not verified: the server did that when
/// it issued the token, and a client has no use for re-checking it.
public final class AuthTokenResult: NSObject, Sendable {
    /// The raw JWT.
    public let token: String
    /// `exp`.
    public let expirationDate: Date
    /// `auth_time`: when the user signed in.
    public let authDate: Date
    /// `iat`: when the token was issued.
    public let issuedAtDate: Date
    /// `firebase.sign_in_provider`, e.g. `password`, `anonymous`, `phone`.
    public let signInProvider: String
    /// `firebase.sign_in_second_factor` (e.g. `phone`), or `""` without multi-factor sign-in.
    public let signInSecondFactor: String
    private let payload: [String: JSONValue]

    /// Every claim of the token's payload.
    public var claims: [String: Any] { payload.mapValues(\.anyValue) }

    /// Decodes `token`; throws `malformedJWT` unless it has numeric `exp`, `iat` and `auth_time`
    /// and a `firebase.sign_in_provider`.
    init(token: String) throws {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3,
              let json = Data(base64URLEncoded: parts[1]),
              let payload = try? JSONDecoder().decode([String: JSONValue].self, from: json),
              let exp = payload["exp"]?.numberValue,
              let iat = payload["iat"]?.numberValue,
              let authTime = payload["auth_time"]?.numberValue,
              let firebase = payload["firebase"]?.objectValue,
              let signInProvider = firebase["sign_in_provider"]?.stringValue
        else {
            throw AuthErrorUtils.error(.malformedJWT, userInfo: [NSLocalizedFailureReasonErrorKey: token])
        }
        self.token = token
        self.payload = payload
        self.expirationDate = Date(timeIntervalSince1970: exp)
        self.issuedAtDate = Date(timeIntervalSince1970: iat)
        self.authDate = Date(timeIntervalSince1970: authTime)
        self.signInProvider = signInProvider
        self.signInSecondFactor = firebase["sign_in_second_factor"]?.stringValue ?? ""
    }
}

extension Data {
    /// Decodes unpadded base64url, as used in JWTs.
    init?(base64URLEncoded text: Substring) {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        self.init(base64Encoded: base64)
    }
}
