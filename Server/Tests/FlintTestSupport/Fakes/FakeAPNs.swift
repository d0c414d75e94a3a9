import Crypto
import FlintServer
import FlintWire
import Foundation
import Hummingbird
import HummingbirdHTTP2
import NIOConcurrencyHelpers

/// A local Apple Push Notification service: HTTP/2 over TLS (with its own throwaway CA), token-based auth
/// only, refusing what APNs refuses, with Apple's statuses and `reason`s:
///
/// - not HTTP/2 → 505 (APNs does not speak HTTP/1 at all); not POST → 405 `MethodNotAllowed`;
///   not `/{production|sandbox}/3/device/{token}` → 404 `BadPath`
/// - no bearer token → 403 `MissingProviderToken`; not an ES256 JWT signed by the team key with this `kid`
///   and `iss` → 403 `InvalidProviderToken`; `iat` over an hour old → 403 `ExpiredProviderToken`;
///   a new token less than 20 minutes after the previous one → 429 `TooManyProviderTokenUpdates`
/// - no `apns-topic` → 400 `MissingTopic`; another topic → 400 `TopicDisallowed`
/// - `apns-push-type` not `background` → 400 `InvalidPushType`; `apns-priority` not 5 → 400 `BadPriority`;
///   malformed `apns-expiration` → 400 `BadExpirationDate`; malformed `apns-id` → 400 `BadMessageId`
/// - a token that is not 64 hex digits, or not registered in that environment → 400 `BadDeviceToken`;
///   unregistered → 410 `Unregistered`
/// - empty body → 400 `PayloadEmpty`; over 4 KB → 413 `PayloadTooLarge`; no `aps.content-available: 1` or
///   no `com.google.firebase.auth` {receipt, secret} → 400 `BadPayload` (the fake's own reason)
///
/// The two environments are told apart by a path prefix (`productionURL`, `sandboxURL`), since the fake
/// has one host. Accepted pushes are answered 200 with an `apns-id` and recorded in `pushes`.
public final class FakeAPNs: FakeServer {
    /// One accepted push.
    public struct Push: Sendable, Equatable {
        public let deviceToken: String
        public let sandbox: Bool
        public let credential: AppCredentialPush
        public let topic: String
        public let apnsID: String
        /// The provider JWT it came with.
        public let providerToken: String
        public let expiration: Int64?
    }

    /// One refused request.
    public struct Refusal: Sendable, Equatable {
        public let status: Int
        public let reason: String
    }

    public let teamID: String
    public let keyID: String
    public let topic: String
    /// Trust this (`DeliveryConfiguration.extraTrustRootsPEM`) to reach the fake.
    public let caCertificatePEM: String
    /// Accepted pushes, in order.
    public let pushes = Recorder<Push>()
    /// Refused requests, in order.
    public let refusals = Recorder<Refusal>()

    private let publicKey: P256.Signing.PublicKey
    private let clock: any FlintClock
    private let state = NIOLockedValueBox(State())
    let server = NIOLockedValueBox<FakeHTTPServer?>(nil)

    private struct State {
        /// Registered device tokens: environment (sandbox?) and whether still registered.
        var devices: [String: (sandbox: Bool, active: Bool)] = [:]
        /// The last provider token seen and when it was first seen (by the fake's clock).
        var lastToken: (token: String, firstSeen: Date)?
    }

    /// Apple refuses tokens older than this.
    public static let tokenMaximumAge: TimeInterval = 3600
    /// Apple refuses refreshing the provider token more often than this.
    public static let tokenMinimumRefreshInterval: TimeInterval = 20 * 60
    /// Apple's limit on a push payload.
    public static let maximumPayloadBytes = 4096

    public var port: Int { server.withLockedValue { $0?.port ?? 0 } }
    public var productionURL: String { "https://127.0.0.1:\(port)/production" }
    public var sandboxURL: String { "https://127.0.0.1:\(port)/sandbox" }

    private init(teamID: String, keyID: String, topic: String, publicKey: P256.Signing.PublicKey, clock: any FlintClock,
                 caCertificatePEM: String) {
        self.teamID = teamID
        self.keyID = keyID
        self.topic = topic
        self.publicKey = publicKey
        self.clock = clock
        self.caCertificatePEM = caCertificatePEM
    }

    /// Starts a fake for one team key (`publicKey` is the .p8 key's public half) and one app (`topic`).
    /// `clock` judges token age (pass the server's `TestClock` to move both together).
    public static func start(publicKey: P256.Signing.PublicKey, teamID: String = "FLINTTEAM1", keyID: String = "FLINTKEY01",
                             topic: String = "dev.flint.example", clock: any FlintClock = SystemClock()) async throws -> FakeAPNs {
        let authority = try FakeCertificateAuthority()
        let fake = FakeAPNs(teamID: teamID, keyID: keyID, topic: topic, publicKey: publicKey, clock: clock,
                            caCertificatePEM: authority.caCertificatePEM)
        let server = try await FakeHTTPServer.start(
            name: "fake-apns", server: .http2Upgrade(tlsConfiguration: authority.serverTLSConfiguration()),
            context: Context.self
        ) { [weak fake] request, context in
            guard let fake else { return FakeHTTP.empty(503) }
            return await fake.handle(request, context: context)
        }
        fake.server.withLockedValue { $0 = server }
        return fake
    }

    /// Stops the server and releases anyone waiting on `pushes` or `refusals`.
    public func stop() async {
        await server.withLockedValue { $0 }?.stop()
        pushes.finish()
        refusals.finish()
    }

    /// The APNs settings that reach this fake with the key whose public half it was given.
    public func configuration(privateKeyPEM: String) -> DeliveryConfiguration.APNs {
        var apns = DeliveryConfiguration.APNs(teamID: teamID, keyID: keyID, privateKeyPEM: privateKeyPEM, topic: topic)
        apns.productionURL = productionURL
        apns.sandboxURL = sandboxURL
        return apns
    }

    /// Registers a new random device (64 hex digits) in one environment and returns its token.
    public func registerDevice(sandbox: Bool) -> String {
        let token = FakeHTTP.randomHex(bytes: 32)
        register(deviceToken: token, sandbox: sandbox)
        return token
    }

    public func register(deviceToken: String, sandbox: Bool) {
        state.withLockedValue { $0.devices[deviceToken.lowercased()] = (sandbox, true) }
    }

    /// The app was removed from the device: APNs answers 410 `Unregistered` from now on.
    public func unregister(deviceToken: String) {
        state.withLockedValue { $0.devices[deviceToken.lowercased()]?.active = false }
    }

    /// Tells HTTP/2 streams from HTTP/1 connections: a stream's channel is a child of the connection's.
    struct Context: RequestContext {
        var coreContext: CoreRequestContextStorage
        let isHTTP2: Bool

        init(source: ApplicationRequestContextSource) {
            coreContext = .init(source: source)
            isHTTP2 = source.channel.parent?.parent != nil
        }
    }

    private struct Refused: Error {
        let status: Int
        let reason: String
    }

    private func handle(_ request: Request, context: Context) async -> Response {
        do {
            let push = try await check(request, isHTTP2: context.isHTTP2)
            pushes.append(push)
            var headers = ["apns-id": push.apnsID]
            if push.sandbox { headers["apns-unique-id"] = UUID().uuidString.lowercased() }
            return FakeHTTP.empty(200, headers: headers)
        } catch let refused as Refused {
            refusals.append(Refusal(status: refused.status, reason: refused.reason))
            var body: [String: Any] = ["reason": refused.reason]
            if refused.status == 410 { body["timestamp"] = clock.milliseconds }
            return FakeHTTP.json(refused.status, body)
        } catch {
            return FakeHTTP.json(500, ["reason": "InternalServerError"])
        }
    }

    private func check(_ request: Request, isHTTP2: Bool) async throws -> Push {
        guard isHTTP2 else { throw Refused(status: 505, reason: "HTTP/2 is required") }
        guard request.method == .post else { throw Refused(status: 405, reason: "MethodNotAllowed") }
        let path = request.uri.path.split(separator: "/", omittingEmptySubsequences: false)
        guard path.count == 5, path[0].isEmpty, ["production", "sandbox"].contains(path[1]), path[2] == "3",
              path[3] == "device"
        else { throw Refused(status: 404, reason: "BadPath") }
        let sandbox = path[1] == "sandbox"
        let deviceToken = String(path[4])

        let providerToken = try checkProviderToken(FakeHTTP.header(request, "authorization"))

        guard let topic = FakeHTTP.header(request, "apns-topic") else { throw Refused(status: 400, reason: "MissingTopic") }
        guard topic == self.topic else { throw Refused(status: 400, reason: "TopicDisallowed") }
        guard FakeHTTP.header(request, "apns-push-type") == "background" else {
            throw Refused(status: 400, reason: "InvalidPushType")
        }
        // Background pushes must go at priority 5 (an absent header means 10).
        guard FakeHTTP.header(request, "apns-priority") == "5" else { throw Refused(status: 400, reason: "BadPriority") }
        var expiration: Int64?
        if let text = FakeHTTP.header(request, "apns-expiration") {
            guard let value = Int64(text), value >= 0 else { throw Refused(status: 400, reason: "BadExpirationDate") }
            expiration = value
        }
        var apnsID = UUID().uuidString
        if let text = FakeHTTP.header(request, "apns-id") {
            guard UUID(uuidString: text) != nil else { throw Refused(status: 400, reason: "BadMessageId") }
            apnsID = text
        }

        guard deviceToken.utf8.count == 64, deviceToken.allSatisfy(\.isHexDigit) else {
            throw Refused(status: 400, reason: "BadDeviceToken")
        }
        let device = state.withLockedValue { $0.devices[deviceToken.lowercased()] }
        guard let device, device.sandbox == sandbox else { throw Refused(status: 400, reason: "BadDeviceToken") }
        guard device.active else { throw Refused(status: 410, reason: "Unregistered") }

        guard let body = await FakeHTTP.body(request, limit: Self.maximumPayloadBytes) else {
            throw Refused(status: 413, reason: "PayloadTooLarge")
        }
        guard !body.isEmpty else { throw Refused(status: 400, reason: "PayloadEmpty") }
        guard let payload = try? JSONDecoder().decode(Payload.self, from: body), payload.aps.contentAvailable == 1
        else { throw Refused(status: 400, reason: "BadPayload") }

        return Push(deviceToken: deviceToken, sandbox: sandbox, credential: payload.credential, topic: topic,
                    apnsID: apnsID, providerToken: providerToken, expiration: expiration)
    }

    private struct Payload: Decodable {
        struct APS: Decodable {
            var contentAvailable: Int?
            enum CodingKeys: String, CodingKey { case contentAvailable = "content-available" }
        }

        var aps: APS
        var credential: AppCredentialPush

        enum CodingKeys: String, CodingKey {
            case aps
            case credential = "com.google.firebase.auth"
        }
    }

    private struct JWTHeader: Decodable {
        var alg: String
        var kid: String?
    }

    private struct JWTClaims: Decodable {
        var iss: String?
        var iat: Int64?
    }

    /// Checks `authorization: bearer <jwt>` as APNs does and returns the JWT.
    private func checkProviderToken(_ authorization: String?) throws -> String {
        guard let authorization, !authorization.isEmpty else { throw Refused(status: 403, reason: "MissingProviderToken") }
        let invalid = Refused(status: 403, reason: "InvalidProviderToken")
        let parts = authorization.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { throw invalid }
        let token = String(parts[1])
        let segments = token.split(separator: ".", omittingEmptySubsequences: false)
        guard segments.count == 3,
              let headerData = Base64URL.decode(segments[0]), let claimsData = Base64URL.decode(segments[1]),
              let signatureData = Base64URL.decode(segments[2]),
              let header = try? JSONDecoder().decode(JWTHeader.self, from: headerData),
              let claims = try? JSONDecoder().decode(JWTClaims.self, from: claimsData),
              header.alg == "ES256", header.kid == keyID, claims.iss == teamID, let iat = claims.iat,
              let signature = try? P256.Signing.ECDSASignature(rawRepresentation: signatureData),
              publicKey.isValidSignature(signature, for: Data("\(segments[0]).\(segments[1])".utf8))
        else { throw invalid }
        let now = clock.now()
        let issued = Date(timeIntervalSince1970: TimeInterval(iat))
        guard now.timeIntervalSince(issued) <= Self.tokenMaximumAge else {
            throw Refused(status: 403, reason: "ExpiredProviderToken")
        }
        guard issued.timeIntervalSince(now) <= 60 else { throw invalid }
        let tooSoon = state.withLockedValue { state -> Bool in
            guard let last = state.lastToken, last.token != token else {
                if state.lastToken == nil { state.lastToken = (token, now) }
                return false
            }
            if now.timeIntervalSince(last.firstSeen) < Self.tokenMinimumRefreshInterval { return true }
            state.lastToken = (token, now)
            return false
        }
        guard !tooSoon else { throw Refused(status: 429, reason: "TooManyProviderTokenUpdates") }
        return token
    }
}
