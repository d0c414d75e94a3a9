import FlintWire
import Foundation

/// Where an emailed action link leads and which app may open it, for `Auth.sendSignInLink`,
/// `Auth.sendPasswordReset(withEmail:actionCodeSettings:)` and `User.sendEmailVerification(with:)`.
///
/// Thread-safe; read when the request is sent.
public final class ActionCodeSettings: NSObject, Sendable {
    struct State: Sendable {
        var url: URL?
        var handleCodeInApp = false
        var iOSBundleID: String? = Bundle.main.bundleIdentifier
        var androidPackageName: String?
        var androidMinimumVersion: String?
        var androidInstallIfNotAvailable = false
        var linkDomain: String?
        var dynamicLinkDomain: String?
    }

    let state = Locked(State())

    /// Settings with no continue URL, the code handled by the web page, and `iOSBundleID` set to the
    /// main bundle's identifier (nil where there is none, e.g. on Linux).
    public override init() {}

    /// The continue URL: where the user goes after the action (its domain must be authorized), and
    /// the state an app gets back in the link's `continueUrl`.
    public var url: URL? {
        get { state[\.url] }
        set { state[\.url] = newValue }
    }

    /// Whether the link opens the app (required for email-link sign-in) rather than the web page.
    public var handleCodeInApp: Bool {
        get { state[\.handleCodeInApp] }
        set { state[\.handleCodeInApp] = newValue }
    }

    /// The iOS app that should open the link.
    public var iOSBundleID: String? {
        get { state[\.iOSBundleID] }
        set { state[\.iOSBundleID] = newValue }
    }

    /// The Android app that should open the link.
    public var androidPackageName: String? { state[\.androidPackageName] }

    /// The minimum Android app version that may open the link.
    public var androidMinimumVersion: String? { state[\.androidMinimumVersion] }

    /// Whether an Android device without the app should be offered to install it.
    public var androidInstallIfNotAvailable: Bool { state[\.androidInstallIfNotAvailable] }

    /// A custom domain (e.g. a Hosting domain of the project) for the emailed link.
    public var linkDomain: String? {
        get { state[\.linkDomain] }
        set { state[\.linkDomain] = newValue }
    }

    /// The Firebase Dynamic Links domain of the link. Passed through; Flint ignores it.
    @available(*, deprecated, message: "Firebase Dynamic Links is shut down; use linkDomain.")
    public var dynamicLinkDomain: String? {
        get { state[\.dynamicLinkDomain] }
        set { state[\.dynamicLinkDomain] = newValue }
    }

    /// Sets `iOSBundleID`.
    public func setIOSBundleID(_ bundleID: String) {
        state[\.iOSBundleID] = bundleID
    }

    /// Sets the Android app that should open the link.
    public func setAndroidPackageName(_ packageName: String, installIfNotAvailable: Bool, minimumVersion: String?) {
        state.withLock { state in
            state.androidPackageName = packageName
            state.androidInstallIfNotAvailable = installIfNotAvailable
            state.androidMinimumVersion = minimumVersion
        }
    }

    /// Fills the `accounts:sendOobCode` fields of these settings, as the official SDKs send them
    /// (`canHandleCodeInApp` and `androidInstallApp` only when true).
    func apply(to request: inout SendOobCodeRequest) {
        let state = state.withLock { $0 }
        request.continueUrl = state.url?.absoluteString
        request.canHandleCodeInApp = state.handleCodeInApp ? true : nil
        request.iOSBundleId = state.iOSBundleID
        request.androidPackageName = state.androidPackageName
        request.androidInstallApp = state.androidInstallIfNotAvailable ? true : nil
        request.androidMinimumVersion = state.androidMinimumVersion
        request.linkDomain = state.linkDomain
        request.dynamicLinkDomain = state.dynamicLinkDomain
    }
}
