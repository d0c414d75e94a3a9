import Foundation

/// Settings of an `Auth` instance (`Auth.settings`).
public final class AuthSettings: NSObject, NSCopying, Sendable {
    private let appVerificationDisabled = Locked(false)

    /// Skip app verification (APNs, reCAPTCHA) for phone auth, which then works only for the
    /// server's fictional test numbers. `useEmulator(withHost:port:)` turns it on.
    public var isAppVerificationDisabledForTesting: Bool {
        get { appVerificationDisabled.withLock { $0 } }
        set { appVerificationDisabled.withLock { $0 = newValue } }
    }

    /// Alias of `isAppVerificationDisabledForTesting` (its Objective-C-era name).
    public var appVerificationDisabledForTesting: Bool {
        get { isAppVerificationDisabledForTesting }
        set { isAppVerificationDisabledForTesting = newValue }
    }

    /// Default settings: app verification enabled.
    public override init() {}

    public func copy(with zone: NSZone? = nil) -> Any {
        let copy = AuthSettings()
        copy.isAppVerificationDisabledForTesting = isAppVerificationDisabledForTesting
        return copy
    }
}
