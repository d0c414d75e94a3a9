import Foundation

/// A Firebase-shaped ID token, made and read the way a minimal server would: JSONEncoder/JSONDecoder for its JSON
/// parts, Foundation's base64 with the URL alphabet swapped in, and `RS256Key` for the signature.
struct IDTokens: Sendable {
    struct Header: Codable {
        let alg: String
        let kid: String
        let typ: String
    }

    struct Claims: Codable {
        struct Firebase: Codable {
            let identities: [String: [String]]
            let sign_in_provider: String
        }

        let iss: String
        let aud: String
        let auth_time: Int
        let user_id: String
        let sub: String
        let iat: Int
        let exp: Int
        let email: String
        let email_verified: Bool
        let firebase: Firebase
    }

    static let project = "floor-project"

    let key: RS256Key
    /// The header's segment: the same for every token of one key, so encoded once.
    private let headerSegment: String

    init(key: RS256Key) throws {
        self.key = key
        headerSegment = Self.base64URL(try JSONEncoder().encode(Header(alg: "RS256", kid: "floor-key", typ: "JWT")))
    }

    /// A signed token for `localId`, valid for an hour from `now`.
    func sign(localId: String, email: String, now: Date) throws -> String {
        let issued = Int(now.timeIntervalSince1970)
        let claims = Claims(
            iss: "https://securetoken.google.com/\(Self.project)", aud: Self.project, auth_time: issued,
            user_id: localId, sub: localId, iat: issued, exp: issued + 3600, email: email, email_verified: false,
            firebase: .init(identities: ["email": [email]], sign_in_provider: "password"))
        let signingInput = headerSegment + "." + Self.base64URL(try JSONEncoder().encode(claims))
        return signingInput + "." + Self.base64URL(try key.sign(Data(signingInput.utf8)))
    }

    /// The claims of `token` when it is an RS256 token of this key that has not expired at `now`.
    func verify(_ token: String, now: Date) throws -> Claims {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerJSON = Self.data(base64URL: parts[0]),
              let claimsJSON = Self.data(base64URL: parts[1]), let signature = Self.data(base64URL: parts[2])
        else { throw FloorError.badToken }
        let header = try JSONDecoder().decode(Header.self, from: headerJSON)
        let claims = try JSONDecoder().decode(Claims.self, from: claimsJSON)
        let signingInput = token.utf8.prefix(parts[0].utf8.count + 1 + parts[1].utf8.count)
        guard header.alg == "RS256", try key.isValidSignature(signature, for: Array(signingInput)),
              claims.exp > Int(now.timeIntervalSince1970)
        else { throw FloorError.badToken }
        return claims
    }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func data(base64URL segment: Substring) -> Data? {
        var base64 = segment.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64)
    }
}
