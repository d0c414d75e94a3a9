import FlintWire
import Foundation

extension Auth {
    /// The APNs device token phone sign-in uses to verify the app through a silent push; nil until the
    /// app sets one. Setting it is `setAPNSToken(_:type:)` with `.unknown`.
    public var apnsToken: Data? {
        get { phoneAuth.appCredentials.token?.data }
        set {
            if let newValue {
                setAPNSToken(newValue, type: .unknown)
            } else {
                phoneAuth.appCredentials.token = nil
            }
        }
    }

    /// Gives Auth the app's APNs device token, from
    /// `application(_:didRegisterForRemoteNotificationsWithDeviceToken:)` (FlintAuth does not swizzle
    /// the app delegate). `.unknown` is resolved from the app's provisioning profile.
    public func setAPNSToken(_ token: Data, type: AuthAPNSTokenType) {
        phoneAuth.appCredentials.token = APNSToken(data: token, type: type.resolved)
    }

    /// Offers Auth a remote notification, from `application(_:didReceiveRemoteNotification:…)`.
    /// Returns true if it was the silent push of phone sign-in's app verification
    /// (`{"com.google.firebase.auth": {"receipt": …, "secret": …}}`, the inner part a dictionary or
    /// a JSON string); the app should then ignore it.
    public func canHandleNotification(_ userInfo: [AnyHashable: Any]) -> Bool {
        var payload = userInfo[AppCredentialPush.key] as? [String: Any]
        if payload == nil, let json = userInfo[AppCredentialPush.key] as? String {
            payload = (try? JSONSerialization.jsonObject(with: Data(json.utf8))) as? [String: Any]
        }
        guard let payload else { return false }
        if payload["warning"] != nil {
            // FirebaseAuth's probe of notification forwarding; FlintAuth does not probe, but the
            // notification is Auth's all the same.
            return true
        }
        guard let receipt = payload["receipt"] as? String, let secret = payload["secret"] as? String else {
            return false
        }
        return phoneAuth.appCredentials.handlePush(receipt: receipt, secret: secret)
    }

    /// Offers Auth a URL the app was asked to open. Returns true if it ends the web flow in progress
    /// (the reCAPTCHA page of phone sign-in): `{scheme}://firebaseauth/link?deep_link_id=…` with that
    /// flow's event ID. Email sign-in links are not handled here.
    public func canHandle(_ url: URL) -> Bool {
        phoneAuth.webFlows.handle(url)
    }
}
