import FlintWire
import Foundation

/// Identity providers by their Firebase provider ID (`rawValue`).
public struct AuthProviderID: RawRepresentable, Hashable, Sendable {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public static let apple = AuthProviderID(rawValue: ProviderID.apple)
    public static let email = AuthProviderID(rawValue: ProviderID.password)
    public static let facebook = AuthProviderID(rawValue: ProviderID.facebook)
    public static let gameCenter = AuthProviderID(rawValue: "gc.apple.com")
    public static let gitHub = AuthProviderID(rawValue: "github.com")
    public static let google = AuthProviderID(rawValue: ProviderID.google)
    public static let phone = AuthProviderID(rawValue: ProviderID.phone)

    /// A provider of any other ID, e.g. an OpenID Connect provider `"oidc.example"`.
    public static func custom(_ providerID: String) -> AuthProviderID {
        AuthProviderID(rawValue: providerID)
    }
}

/// The provider ID of Facebook identities: `"facebook.com"`.
public let FacebookAuthProviderID = ProviderID.facebook
/// The sign-in method of Facebook accounts in `Auth.fetchSignInMethods(forEmail:)` terms.
public let FacebookAuthSignInMethod = ProviderID.facebook

/// Makes credentials of OAuth and OpenID Connect providers from tokens the app obtained itself, e.g.
/// with AuthenticationServices (Sign in with Apple) or the Facebook SDK; or, with `getCredentialWith(_:)`, at the
/// provider's own sign-in page.
///
/// ```swift
/// let nonce = AuthNonce.random()
/// request.nonce = AuthNonce.sha256(nonce)          // ASAuthorizationAppleIDRequest
/// // … on success …
/// let credential = OAuthProvider.appleCredential(withIDToken: idToken, rawNonce: nonce,
///                                                fullName: appleIDCredential.fullName)
/// let result = try await Auth.auth().signIn(with: credential)
/// ```
public final class OAuthProvider: NSObject, Sendable {
    /// The provider ID of generic OAuth providers, as FirebaseAuth names it: `"OAuth"`.
    public static let id = "OAuth"

    /// The provider ID this provider makes credentials for.
    public let providerID: String
    /// The `Auth` whose server runs the redirect flow; nil for `Auth.auth()`.
    let auth: Auth?
    private let request = Locked<(scopes: [String]?, customParameters: [String: String]?)>((nil, nil))

    /// A provider of `providerID`, e.g. `"apple.com"` or `"oidc.corp"`, for `auth` (`Auth.auth()` when nil).
    public init(providerID: String, auth: Auth? = nil) {
        self.providerID = providerID
        self.auth = auth
    }

    /// A provider of `providerID`.
    public convenience init(providerID: AuthProviderID, auth: Auth? = nil) {
        self.init(providerID: providerID.rawValue, auth: auth)
    }

    /// Scopes the redirect flow asks for beyond `openid email profile`.
    public var scopes: [String]? {
        get { request.withLock { $0.scopes } }
        set { request.withLock { $0.scopes = newValue } }
    }

    /// Extra parameters of the provider's authorization request (`prompt`, `login_hint`, …); they cannot replace the
    /// parameters that bind the flow.
    public var customParameters: [String: String]? {
        get { request.withLock { $0.customParameters } }
        set { request.withLock { $0.customParameters = newValue } }
    }

    /// A Sign in with Apple credential: Apple's identity token, the unhashed nonce whose SHA-256 went
    /// into the authorization request, and the name Apple returned (only on the first authorization;
    /// the server stores it on the new user).
    public static func appleCredential(withIDToken idToken: String, rawNonce: String?,
                                       fullName: PersonNameComponents?) -> OAuthCredential {
        OAuthCredential(provider: ProviderID.apple, idToken: idToken, accessToken: nil, rawNonce: rawNonce,
                        appleUserJSON: fullName.flatMap(appleUserJSON))
    }

    /// A credential of an OpenID Connect ID token (e.g. Facebook Limited Login: `.facebook` with the
    /// authentication token and its raw nonce), with the access token if the provider gave one.
    public static func credential(providerID: AuthProviderID, idToken: String, rawNonce: String? = nil,
                                  accessToken: String? = nil) -> OAuthCredential {
        OAuthCredential(provider: providerID.rawValue, idToken: idToken, accessToken: accessToken, rawNonce: rawNonce)
    }

    /// A credential of an OAuth access token (e.g. classic Facebook Login).
    public static func credential(providerID: AuthProviderID, accessToken: String) -> OAuthCredential {
        OAuthCredential(provider: providerID.rawValue, idToken: nil, accessToken: accessToken)
    }

    /// A credential of an ID token and its raw nonce, for a provider named by string.
    @available(*, deprecated, renamed: "credential(providerID:idToken:rawNonce:accessToken:)")
    public static func credential(withProviderID providerID: String, idToken: String, rawNonce: String) -> OAuthCredential {
        OAuthCredential(provider: providerID, idToken: idToken, accessToken: nil, rawNonce: rawNonce)
    }

    /// A credential of an ID token, its raw nonce and an access token, for a provider named by string.
    @available(*, deprecated, renamed: "credential(providerID:idToken:rawNonce:accessToken:)")
    public static func credential(withProviderID providerID: String, idToken: String, rawNonce: String,
                                  accessToken: String) -> OAuthCredential {
        OAuthCredential(provider: providerID, idToken: idToken, accessToken: accessToken, rawNonce: rawNonce)
    }

    /// A credential of an ID token and an access token, for a provider named by string.
    @available(*, deprecated, renamed: "credential(providerID:idToken:rawNonce:accessToken:)")
    public static func credential(withProviderID providerID: String, idToken: String, accessToken: String?) -> OAuthCredential {
        OAuthCredential(provider: providerID, idToken: idToken, accessToken: accessToken)
    }

    /// A credential of an access token, for a provider named by string.
    @available(*, deprecated, renamed: "credential(providerID:accessToken:)")
    public static func credential(withProviderID providerID: String, accessToken: String) -> OAuthCredential {
        OAuthCredential(provider: providerID, idToken: nil, accessToken: accessToken)
    }

    /// Apple's `user` JSON: `{"name":{"firstName":…,"middleName":…,"lastName":…}}`; nil without any part.
    static func appleUserJSON(_ name: PersonNameComponents) -> String? {
        var parts: [String: String] = [:]
        parts["firstName"] = name.givenName
        parts["middleName"] = name.middleName
        parts["lastName"] = name.familyName
        guard !parts.isEmpty,
              let data = try? JSONSerialization.data(withJSONObject: ["name": parts], options: [.sortedKeys])
        else { return nil }
        return String(decoding: data, as: UTF8.self)
    }
}

/// Makes Facebook Login credentials.
public final class FacebookAuthProvider: NSObject, Sendable {
    /// The provider ID of Facebook identities: `"facebook.com"`.
    public static let id = ProviderID.facebook

    /// A credential of a (classic) Facebook Login access token. For Limited Login use
    /// `OAuthProvider.credential(providerID: .facebook, idToken:rawNonce:)`.
    public static func credential(withAccessToken accessToken: String) -> OAuthCredential {
        OAuthCredential(provider: ProviderID.facebook, idToken: nil, accessToken: accessToken)
    }

    private override init() {}
}

/// Nonces for Sign in with Apple and Facebook Limited Login: put `sha256(nonce)` in the provider's
/// request and pass the raw `nonce` to the credential; the server checks the ID token carries the hash.
public enum AuthNonce {
    /// The characters of `random(length:)`: letters, digits, `-`, `.` and `_`.
    public static let charset = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-._")

    /// A nonce of `length` characters from `charset`, drawn from the system's secure random generator.
    public static func random(length: Int = 32) -> String {
        precondition(length > 0, "A nonce needs at least one character")
        var generator = SystemRandomNumberGenerator()
        return String((0..<length).map { _ in charset[Int.random(in: 0..<charset.count, using: &generator)] })
    }

    /// The SHA-256 of `text`'s UTF-8 bytes, as lowercase hex (what Apple's and Facebook's requests take).
    public static func sha256(_ text: String) -> String {
        SHA256.hash(Array(text.utf8)).map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }
}

/// FIPS 180-4 SHA-256, for `AuthNonce` (FlintAuth depends on Foundation only).
enum SHA256 {
    private static let k: [UInt32] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
    ]

    static func hash(_ message: [UInt8]) -> [UInt8] {
        var h: [UInt32] = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]
        var data = message
        let bitLength = UInt64(message.count) * 8
        data.append(0x80)
        while data.count % 64 != 56 { data.append(0) }
        for shift in stride(from: 56, through: 0, by: -8) { data.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift))) }

        var w = [UInt32](repeating: 0, count: 64)
        for chunk in stride(from: 0, to: data.count, by: 64) {
            for i in 0..<16 {
                let j = chunk + i * 4
                w[i] = UInt32(data[j]) << 24 | UInt32(data[j + 1]) << 16 | UInt32(data[j + 2]) << 8 | UInt32(data[j + 3])
            }
            for i in 16..<64 {
                let s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3)
                let s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10)
                w[i] = w[i - 16] &+ s0 &+ w[i - 7] &+ s1
            }
            var (a, b, c, d, e, f, g, hh) = (h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7])
            for i in 0..<64 {
                let s1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)
                let ch = (e & f) ^ (~e & g)
                let t1 = hh &+ s1 &+ ch &+ k[i] &+ w[i]
                let s0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)
                let maj = (a & b) ^ (a & c) ^ (b & c)
                let t2 = s0 &+ maj
                hh = g; g = f; f = e; e = d &+ t1; d = c; c = b; b = a; a = t1 &+ t2
            }
            h[0] = h[0] &+ a; h[1] = h[1] &+ b; h[2] = h[2] &+ c; h[3] = h[3] &+ d
            h[4] = h[4] &+ e; h[5] = h[5] &+ f; h[6] = h[6] &+ g; h[7] = h[7] &+ hh
        }
        return h.flatMap { word in (0..<4).map { UInt8(truncatingIfNeeded: word >> UInt32(24 - 8 * $0)) } }
    }

    private static func rotr(_ x: UInt32, _ n: UInt32) -> UInt32 { (x >> n) | (x << (32 - n)) }
}
