import FlintWire
import Foundation

/// A realm's WebAuthn relying party as configured (`v2/projects/{p}/passkeyConfig`, the console): the RP ID passkeys
/// are bound to, and the origins whose answers count. A tenant without its own uses its project's.
public struct PasskeySettings: Codable, Sendable, Equatable {
    /// The relying party ID: a domain (`example.com`) the web origins are at or under.
    public var rpID: String
    /// The origins accepted besides the defaults (see `RelyingParty.origins`).
    public var expectedOrigins: [String]

    public init(rpID: String, expectedOrigins: [String] = []) {
        self.rpID = rpID
        self.expectedOrigins = expectedOrigins
    }

    /// Checks a config as an admin sends it: a bare lowercase domain as RP ID, and origins that are web origins
    /// at or under it (`http` for `localhost` only) or Android app origins.
    static func validated(rpID: String, expectedOrigins: [String]) throws -> PasskeySettings {
        guard isDomain(rpID) else {
            throw FlintError(.invalidArgument, "rpId must be a lowercase domain, without scheme, port or path.")
        }
        for origin in expectedOrigins where !origin.hasPrefix(RelyingParty.androidOriginPrefix) {
            guard let url = URL(string: origin), let scheme = url.scheme, let host = url.host,
                  origin == "\(scheme)://\(host)\(url.port.map { ":\($0)" } ?? "")",
                  scheme == "https" || (scheme == "http" && host == "localhost"),
                  host == rpID || host.hasSuffix("." + rpID)
            else {
                throw FlintError(
                    .invalidArgument,
                    "expectedOrigins: \(origin) is not an https origin at or under \(rpID), nor an android:apk-key-hash: origin.")
            }
        }
        return PasskeySettings(rpID: rpID, expectedOrigins: expectedOrigins)
    }

    private static func isDomain(_ text: String) -> Bool {
        let labels = text.split(separator: ".", omittingEmptySubsequences: false)
        return (1...253).contains(text.utf8.count) && labels.allSatisfy { label in
            (1...63).contains(label.utf8.count) && !label.hasPrefix("-") && !label.hasSuffix("-")
                && label.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" }
        }
    }
}

/// The relying party one ceremony is checked against.
struct RelyingParty: Sendable, Equatable {
    static let androidOriginPrefix = "android:apk-key-hash:"

    let id: String
    /// Every origin whose `clientDataJSON` is accepted: the configured ones; the authorized domains at or under the
    /// RP ID over https; `https://{rpID}`, where native iOS apps' passkeys come from, when the project has iOS apps
    /// (their `webcredentials` are in `/.well-known/apple-app-site-association`); and the project's Android apps'
    /// signing certificates as `android:apk-key-hash:` origins.
    let origins: Set<String>

    /// The realm's relying party; nil where none is configured.
    init?(_ settings: ProjectSettings) {
        guard let passkeys = settings.passkeys else { return nil }
        id = passkeys.rpID
        var origins = Set(passkeys.expectedOrigins)
        for domain in settings.authorizedDomains where domain == passkeys.rpID || domain.hasSuffix("." + passkeys.rpID) {
            origins.insert("https://\(domain)")
        }
        if !settings.apps.iOS.isEmpty { origins.insert("https://\(passkeys.rpID)") }
        for app in settings.apps.android {
            for fingerprint in app.sha256CertFingerprints {
                if let hash = Self.bytes(ofFingerprint: fingerprint) { origins.insert(Self.androidOriginPrefix + Base64URL.encode(hash)) }
            }
        }
        self.origins = origins
    }

    /// `AA:BB:…` as bytes.
    private static func bytes(ofFingerprint fingerprint: String) -> [UInt8]? {
        let pairs = fingerprint.split(separator: ":")
        let bytes = pairs.compactMap { $0.count == 2 ? UInt8($0, radix: 16) : nil }
        return bytes.count == pairs.count && !bytes.isEmpty ? bytes : nil
    }
}
