import Foundation

/// Where an `AdminAuth` sends its calls, where it finds the keys that sign ID tokens and session cookies, and which
/// issuers those carry: Firebase's, a Flint server's, or an emulator's.
public struct AdminEndpoints: Sendable {
    /// A published set of token-signing keys.
    public enum KeySource: Sendable, Equatable {
        /// A JSON object of key id → PEM X.509 certificate (Google's form).
        case x509Certificates(URL)
        /// A JWK Set (RFC 7517) of RSA keys.
        case jwks(URL)
    }

    /// The Admin REST API's root, under which its `/v1/…` and `/v2/…` paths lie.
    public var api: URL
    public var idTokenKeys: KeySource
    public var sessionCookieKeys: KeySource
    /// An ID token's `iss` is this followed by the project ID.
    public var idTokenIssuerPrefix: String
    /// A session cookie's `iss` is this followed by the project ID.
    public var sessionCookieIssuerPrefix: String
    /// An emulator signs nothing: its tokens' signatures (or `alg: none`) are not checked, as the Admin SDKs do there.
    public var isEmulator: Bool

    public init(api: URL, idTokenKeys: KeySource, sessionCookieKeys: KeySource, idTokenIssuerPrefix: String,
                sessionCookieIssuerPrefix: String, isEmulator: Bool = false) {
        self.api = api
        self.idTokenKeys = idTokenKeys
        self.sessionCookieKeys = sessionCookieKeys
        self.idTokenIssuerPrefix = idTokenIssuerPrefix
        self.sessionCookieIssuerPrefix = sessionCookieIssuerPrefix
        self.isEmulator = isEmulator
    }

    /// Firebase Authentication and Identity Platform.
    public static let firebase = AdminEndpoints(
        api: URL(string: "https://identitytoolkit.googleapis.com")!,
        idTokenKeys: .x509Certificates(URL(string:
            "https://www.googleapis.com/robot/v1/metadata/x509/securetoken@system.gserviceaccount.com")!),
        sessionCookieKeys: .x509Certificates(URL(string:
            "https://www.googleapis.com/identitytoolkit/v3/relyingparty/publicKeys")!),
        idTokenIssuerPrefix: "https://securetoken.google.com/",
        sessionCookieIssuerPrefix: "https://session.firebase.google.com/")

    /// A Flint server in production mode at `server` (its public URL): its tokens' issuer is that URL plus the project,
    /// its session cookies' that URL plus `/session/` and the project, and one JWKS holds the keys of both.
    public static func flint(_ server: URL) -> AdminEndpoints {
        let base = server.absoluteString.hasSuffix("/") ? String(server.absoluteString.dropLast()) : server.absoluteString
        let keys = KeySource.jwks(URL(string: base + "/.well-known/jwks.json")!)
        return AdminEndpoints(api: URL(string: base)!, idTokenKeys: keys, sessionCookieKeys: keys,
                              idTokenIssuerPrefix: base + "/", sessionCookieIssuerPrefix: base + "/session/")
    }

    /// An Auth emulator at `host` (`127.0.0.1:9099`, as `FIREBASE_AUTH_EMULATOR_HOST` gives it): the official one, or
    /// Flint's emulator mode. Its tokens carry Firebase's issuers.
    public static func emulator(host: String) -> AdminEndpoints {
        let root = URL(string: "http://\(host)/identitytoolkit.googleapis.com")!
        return AdminEndpoints(api: root, idTokenKeys: Self.firebase.idTokenKeys, sessionCookieKeys: Self.firebase.sessionCookieKeys,
                              idTokenIssuerPrefix: Self.firebase.idTokenIssuerPrefix,
                              sessionCookieIssuerPrefix: Self.firebase.sessionCookieIssuerPrefix, isEmulator: true)
    }

    /// The emulator `FIREBASE_AUTH_EMULATOR_HOST` names, as every Admin SDK reads it; nil when it is unset or empty.
    public static func emulatorFromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment)
        -> AdminEndpoints? {
        guard let host = environment["FIREBASE_AUTH_EMULATOR_HOST"], !host.isEmpty else { return nil }
        return emulator(host: host)
    }
}
