import FlintWire
import Foundation

/// The project's own apps, as the hosted handler (`/__/auth/handler`: the redirect flow and app verification) and
/// `createAuthUri` recognise them.
///
/// A page answers an app through the app's custom URL scheme, and any app can claim any scheme. So the answer (an
/// OIDC code, a SAML response, a captcha token) goes only to a scheme of an app registered with the project
/// (`ProjectSettings.Apps`), never to one made from whatever client ID or app ID the request names: otherwise anyone
/// could start a flow naming their own app's scheme, send the link to a victim and collect the victim's answer on a
/// device where their app is installed. Firebase likewise answers only a project's own apps. A tenant's apps are
/// its project's.
enum RegisteredApps {
    /// Why a request's app is refused; the handler shows `detail` on its error page and sends nothing to any scheme.
    struct Refusal: Error, Equatable {
        let detail: String
    }

    /// What a request says of the app it comes from, as the SDKs send it to the handler: iOS's `clientId` or `appId`
    /// and its bundle ID (`ibi`); Android's package name (`apn`). Empty values count as absent.
    struct Claim: Sendable {
        var clientID: String?
        var appID: String?
        var bundleID: String?
        var androidPackage: String?

        init(clientID: String?, appID: String?, bundleID: String?, androidPackage: String?) {
            func given(_ value: String?) -> String? { value.flatMap { $0.isEmpty ? nil : $0 } }
            self.clientID = given(clientID)
            self.appID = given(appID)
            self.bundleID = given(bundleID)
            self.androidPackage = given(androidPackage)
        }
    }

    /// The scheme to answer an iOS app through: that of the registered app whose client ID (else app ID) the claim
    /// names, the bundle ID it names (if any) being that app's; a named Android package must be registered too.
    static func callbackScheme(for claim: Claim, in apps: ProjectSettings.Apps) throws(Refusal) -> String {
        if let package = claim.androidPackage, !apps.android.contains(where: { $0.packageName == package }) {
            throw Refusal(detail: "apn does not name an Android app of this project.")
        }
        let app: ProjectSettings.Apps.IOS
        let scheme: String?
        if let clientID = claim.clientID {
            guard let named = apps.iOS.first(where: { $0.clientID?.lowercased() == clientID.lowercased() }) else {
                throw Refusal(detail: "clientId does not name an iOS app of this project.")
            }
            (app, scheme) = (named, Self.scheme(clientID: clientID.lowercased()))
        } else if let appID = claim.appID {
            guard let named = apps.iOS.first(where: { $0.appID == appID }) else {
                throw Refusal(detail: "appId does not name an iOS app of this project.")
            }
            (app, scheme) = (named, Self.scheme(appID: appID))
        } else {
            throw Refusal(detail: "A clientId or appId of one of the project's iOS apps is required.")
        }
        if let bundleID = claim.bundleID, bundleID != app.bundleID {
            throw Refusal(detail: "ibi is not the bundle ID of the app the request names.")
        }
        guard let scheme else { throw Refusal(detail: "The app's registered ID makes no URL scheme.") }
        return scheme
    }

    /// Whether `scheme` is a custom URL scheme of a registered app (of the one `appID` names, when given:
    /// `createAuthUri`'s `appId`, an iOS bundle ID or an Android `<certificate hash>:<package name>`): an iOS app's
    /// reversed client ID, its app-ID scheme or its bundle ID; an Android app's package name. Case-insensitive, as
    /// schemes are.
    static func ownsScheme(_ scheme: String, appID: String? = nil, in apps: ProjectSettings.Apps) -> Bool {
        let scheme = scheme.lowercased()
        let named = appID.flatMap { $0.isEmpty ? nil : $0 }
        let package = named.map(androidPackage(of:))
        let iOS = apps.iOS.filter { named == nil || $0.bundleID == named }
        let android = apps.android.filter { package == nil || $0.packageName == package }
        let schemes = iOS.flatMap { app in
            [app.clientID.flatMap(Self.scheme(clientID:)), app.appID.flatMap(Self.scheme(appID:)), app.bundleID]
        } + android.map { Optional($0.packageName) }
        return schemes.contains { $0?.lowercased() == scheme }
    }

    /// Whether `appID` (`createAuthUri`'s: an iOS bundle ID, or an Android `<certificate hash>:<package name>`)
    /// names a registered app.
    static func names(_ appID: String, in apps: ProjectSettings.Apps) -> Bool {
        apps.iOS.contains { $0.bundleID == appID } || apps.android.contains { $0.packageName == androidPackage(of: appID) }
    }

    /// The package name of an Android `<certificate hash>:<package name>` (or of a bare package name).
    private static func androidPackage(of appID: String) -> String {
        appID.split(separator: ":").last.map(String.init) ?? appID
    }

    /// `123-abc.apps.googleusercontent.com` → `com.googleusercontent.apps.123-abc`.
    static func scheme(clientID: String) -> String? {
        let parts = clientID.split(separator: ".", omittingEmptySubsequences: false)
        guard !parts.contains(where: \.isEmpty) else { return nil }
        return validScheme(parts.reversed().joined(separator: "."))
    }

    /// `1:123:ios:abc` → `app-1-123-ios-abc`.
    static func scheme(appID: String) -> String? {
        validScheme("app-" + appID.replacingOccurrences(of: ":", with: "-"))
    }

    /// A URL scheme (RFC 3986 §3.1): a letter, then letters, digits, `+`, `-` and `.`.
    private static func validScheme(_ scheme: String) -> String? {
        guard let first = scheme.unicodeScalars.first, scheme.utf8.count <= 200 else { return nil }
        let isLetter = { (scalar: Unicode.Scalar) in ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) }
        guard isLetter(first), scheme.unicodeScalars.allSatisfy({
            isLetter($0) || ("0"..."9").contains($0) || $0 == "+" || $0 == "-" || $0 == "."
        }) else { return nil }
        return scheme
    }
}
