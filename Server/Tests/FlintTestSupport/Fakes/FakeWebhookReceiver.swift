import Crypto
import FlintServer
import Foundation
import Hummingbird
import NIOConcurrencyHelpers

/// A local receiver of the `webhook` SMS provider, doing what the doc comment of `WebhookSignature` asks
/// of a receiver (with its own code, so the two are checked against each other):
///
/// - `X-Flint-Signature` missing or malformed, `t` more than 5 minutes from the fake's clock, or `v1`
///   not the HMAC-SHA256 of `"<t>.<body>"` under the shared secret (compared in constant time) → 401
/// - a body that is not the JSON payload with all five fields → 400; not POST → 405; another path → 404
///
/// Accepted messages are answered 204 and recorded in `messages`. The same receiver takes user-deletion
/// events at `/user-deleted` (same signature rules), recorded in `deletions`.
public final class FakeWebhookReceiver: FakeService {
    public let secret: String
    /// Accepted messages, in order.
    public let messages = Recorder<SMSMessage>()
    /// Accepted user-deletion events, in order.
    public let deletions = Recorder<UserDeletedEvent>()
    /// The `traceparent` header of every request that had one, in order.
    public let traceParents = Recorder<String>()
    /// How far a timestamp may be from the fake's clock.
    public static let tolerance: TimeInterval = 300

    private let clock: any FlintClock
    let server = NIOLockedValueBox<FakeHTTPServer?>(nil)

    public var port: Int { server.withLockedValue { $0?.port ?? 0 } }
    public var url: String { "http://127.0.0.1:\(port)/sms" }
    public var userDeletedURL: String { "http://127.0.0.1:\(port)/user-deleted" }

    private init(secret: String, clock: any FlintClock) {
        self.secret = secret
        self.clock = clock
    }

    /// Starts a receiver; the secret is random unless given.
    public static func start(secret: String? = nil, clock: any FlintClock = SystemClock()) async throws -> FakeWebhookReceiver {
        let fake = FakeWebhookReceiver(secret: secret ?? FakeHTTP.randomHex(bytes: 32), clock: clock)
        try await fake.serve(name: "fake-webhook")
        return fake
    }

    public func stop() async {
        await server.withLockedValue { $0 }?.stop()
        messages.finish()
        deletions.finish()
        traceParents.finish()
    }

    /// The SMS provider setting that reaches this fake (`secret` to test a wrong one).
    public func provider(secret: String? = nil) -> DeliveryConfiguration.SMSProvider {
        .webhook(url: url, secret: secret ?? self.secret)
    }

    private struct Payload: Decodable {
        var projectId: String
        var phoneNumber: String
        var code: String
        var text: String
        var locale: String
    }

    func handle(_ request: Request) async -> Response {
        if let traceParent = FakeHTTP.header(request, "traceparent") { traceParents.append(traceParent) }
        guard ["/sms", "/user-deleted"].contains(request.uri.path) else { return FakeHTTP.json(404, ["error": "not found"]) }
        guard request.method == .post else { return FakeHTTP.json(405, ["error": "method not allowed"]) }
        let body = await FakeHTTP.body(request) ?? Data()
        guard let header = FakeHTTP.header(request, "x-flint-signature"), isValid(signature: header, body: body) else {
            return FakeHTTP.json(401, ["error": "bad signature"])
        }
        if request.uri.path == "/user-deleted" {
            guard let event = try? JSONDecoder().decode(UserDeletedEvent.self, from: body), event.event == "user.deleted" else {
                return FakeHTTP.json(400, ["error": "not a user.deleted event"])
            }
            deletions.append(event)
            return FakeHTTP.empty(204)
        }
        guard let payload = try? JSONDecoder().decode(Payload.self, from: body) else {
            return FakeHTTP.json(400, ["error": "not an SMS payload"])
        }
        messages.append(SMSMessage(projectID: payload.projectId, phoneNumber: payload.phoneNumber, code: payload.code,
                                   text: payload.text, locale: payload.locale))
        return FakeHTTP.empty(204)
    }

    /// `t=<seconds>,v1=<hex>`: fresh, and one `v1` is the HMAC.
    private func isValid(signature header: String, body: Data) -> Bool {
        var timestamp: String?
        var candidates: [String] = []
        for element in header.split(separator: ",") {
            let pair = element.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2 else { return false }
            switch pair[0] {
            case "t": timestamp = pair[1]
            case "v1": candidates.append(pair[1])
            default: continue
            }
        }
        guard let timestamp, let seconds = Int64(timestamp),
              abs(clock.now().timeIntervalSince1970 - TimeInterval(seconds)) <= Self.tolerance
        else { return false }
        let key = SymmetricKey(data: Data(secret.utf8))
        let signed = Data(timestamp.utf8) + Data(".".utf8) + body
        return candidates.contains { candidate in
            guard let mac = Self.bytes(fromHex: candidate) else { return false }
            return HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: signed, using: key)
        }
    }

    private static func bytes(fromHex text: String) -> Data? {
        guard text.count % 2 == 0 else { return nil }
        var data = Data()
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            guard let byte = UInt8(text[index..<next], radix: 16) else { return nil }
            data.append(byte)
            index = next
        }
        return data
    }
}
