import Foundation

/// What an `Auth` keeps for phone sign-in: recent sends, the APNs side of app verification, the web flow.
final class PhoneAuthState: Sendable {
    let verifications = PhoneVerificationCache()
    let appCredentials = AppCredentialManager()
    let webFlows = WebFlowCoordinator()
}

/// The APNs environment of a device token (`Auth.setAPNSToken(_:type:)`).
public enum AuthAPNSTokenType: Int, Sendable {
    /// Let FlintAuth decide: sandbox if the app's provisioning profile says `aps-environment`
    /// `development`, production otherwise (no profile, e.g. App Store builds and Linux).
    case unknown = 0
    /// The APNs sandbox (development builds).
    case sandbox = 1
    /// Production APNs.
    case prod = 2

    /// `.unknown` resolved from `embedded.mobileprovision`, if the app has one.
    var resolved: AuthAPNSTokenType {
        guard self == .unknown else { return self }
        let path = Bundle.main.bundleURL.appendingPathComponent("embedded.mobileprovision")
        guard let data = try? Data(contentsOf: path) else { return .prod }
        // The profile is a signed plist; its XML is readable as (mostly) ASCII.
        let text = String(decoding: data.map { $0 == 0 || $0 > 127 ? UInt8(ascii: ".") : $0 }, as: UTF8.self)
        guard let key = text.range(of: "<key>aps-environment</key>") else { return .prod }
        let rest = text[key.upperBound...].drop { $0.isWhitespace }
        return rest.hasPrefix("<string>development</string>") ? .sandbox : .prod
    }
}
