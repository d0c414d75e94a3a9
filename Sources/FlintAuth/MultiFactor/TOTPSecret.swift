import FlintWire
import Foundation
#if canImport(UIKit) && !os(watchOS)
import UIKit
#elseif canImport(AppKit)
import AppKit
#endif

/// A new TOTP shared secret, from `TOTPMultiFactorGenerator.generateSecret(with:)`: the user adds it to an
/// authenticator app, then enrolls with a code the app shows
/// (`TOTPMultiFactorGenerator.assertionForEnrollment(with:oneTimePassword:)`).
public final class TOTPSecret: NSObject, Sendable {
    private let secretKey: String
    private let hashingAlgorithm: String
    private let codeLength: Int
    private let periodSeconds: Int
    /// The enrollment session the secret belongs to, sent back with the first code.
    let sessionInfo: String

    init(_ info: TOTPSessionInfo) {
        secretKey = info.sharedSecretKey
        hashingAlgorithm = info.hashingAlgorithm
        codeLength = info.verificationCodeLength
        periodSeconds = info.periodSec
        sessionInfo = info.sessionInfo
    }

    /// The shared secret, base32-encoded, for entering into an authenticator app by hand.
    public func sharedSecretKey() -> String {
        secretKey
    }

    /// The `otpauth://` URL an authenticator app reads from a QR code:
    /// `otpauth://totp/ISSUER:ACCOUNT?secret=…&issuer=ISSUER&algorithm=SHA1&digits=6&period=30`,
    /// the account name and issuer percent-encoded.
    public func generateQRCodeURL(withAccountName accountName: String, issuer: String) -> String {
        let label = Self.encoded(issuer) + ":" + Self.encoded(accountName)
        let parameters = [("secret", secretKey), ("issuer", issuer), ("algorithm", hashingAlgorithm),
                          ("digits", String(codeLength)), ("period", String(periodSeconds))]
        return "otpauth://totp/\(label)?" + parameters.map { "\($0.0)=\(Self.encoded($0.1))" }.joined(separator: "&")
    }

    /// Opens `qrCodeURL` (from `generateQRCodeURL(withAccountName:issuer:)`) in the authenticator app that
    /// handles `otpauth://` URLs. Does nothing where no app can open URLs (Linux) or the URL is invalid.
    public func openInOTPApp(withQRCodeURL qrCodeURL: String) {
        #if canImport(UIKit) && !os(watchOS)
        guard let url = URL(string: qrCodeURL) else { return }
        Task { @MainActor in UIApplication.shared.open(url, options: [:], completionHandler: nil) }
        #elseif canImport(AppKit)
        guard let url = URL(string: qrCodeURL) else { return }
        Task { @MainActor in _ = NSWorkspace.shared.open(url) }
        #endif
    }

    /// Percent-encodes everything but the URI's unreserved characters.
    private static func encoded(_ text: String) -> String {
        var allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}
