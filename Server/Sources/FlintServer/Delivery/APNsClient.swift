import FlintWire
import Foundation

/// Sends the silent app-verification push through Apple Push Notification service, token-based: HTTP/2
/// (negotiated with ALPN) `POST /3/device/{token}` to the production or sandbox host, with a cached ES256
/// provider token (`APNsProviderToken`). Any answer but 200 is `DeliveryError.rejected` with Apple's
/// `reason` (`BadDeviceToken`, `InvalidProviderToken`, `TopicDisallowed`, …).
public final class APNsClient: PushSender {
    /// How long APNs keeps trying to deliver a push the device cannot take yet; a verification push is
    /// useless after the client's timeout anyway.
    public static let expirationSeconds: Int64 = 300
    /// Device tokens are 32 bytes today; Apple reserves the right to lengthen them.
    static let maximumDeviceTokenBytes = 100

    private let configuration: DeliveryConfiguration.APNs
    private let http: OutsideHTTP
    private let clock: any FlintClock
    let providerToken: APNsProviderToken

    /// Throws `DeliveryConfigurationError` if the configured key is not a P-256 private key.
    public init(configuration: DeliveryConfiguration.APNs, http: OutsideHTTP, clock: any FlintClock) throws {
        self.configuration = configuration
        self.http = http
        self.clock = clock
        providerToken = try APNsProviderToken(teamID: configuration.teamID, keyID: configuration.keyID,
                                              privateKeyPEM: configuration.privateKeyPEM, clock: clock)
    }

    /// The body: a background push (`content-available`, no alert) carrying the receipt and secret.
    private struct Payload: Encodable {
        struct APS: Encodable {
            var contentAvailable = 1
            enum CodingKeys: String, CodingKey { case contentAvailable = "content-available" }
        }

        var aps = APS()
        var credential: AppCredentialPush

        enum CodingKeys: String, CodingKey {
            case aps
            case credential = "com.google.firebase.auth"
        }
    }

    /// True for a plausible device token: hex, whole bytes, at most `maximumDeviceTokenBytes`.
    static func isValidDeviceToken(_ token: String) -> Bool {
        guard let bytes = Hex.decode(token) else { return false }
        return !bytes.isEmpty && bytes.count <= maximumDeviceTokenBytes
    }

    public func send(_ push: SilentPush) async throws {
        // What Apple would answer, without asking it (and without putting the text into a URL).
        guard Self.isValidDeviceToken(push.deviceToken) else {
            throw DeliveryError.rejected(status: 400, detail: "BadDeviceToken")
        }
        let base = push.sandbox ? configuration.sandboxURL : configuration.productionURL
        let url = (base.hasSuffix("/") ? String(base.dropLast()) : base) + "/3/device/" + push.deviceToken.lowercased()
        let token = try providerToken.current()
        let body = try JSONEncoder().encode(Payload(credential: push.credential))
        let request = DeliveryHTTP.post(url, contentType: "application/json", body: body, headers: [
            ("authorization", "bearer \(token)"),
            ("apns-topic", configuration.topic),
            ("apns-push-type", "background"),
            ("apns-priority", "5"),
            ("apns-expiration", String(clock.seconds + Self.expirationSeconds)),
        ])
        let answer = try await http.send(request, to: .apns)
        guard answer.status == 200 else {
            let reason = answer.jsonString("reason") ?? answer.bodyText
            if reason == "ExpiredProviderToken" { providerToken.invalidate(token) }
            throw DeliveryError.rejected(status: answer.status, detail: reason)
        }
    }
}
