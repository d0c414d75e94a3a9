import Crypto
import Foundation

/// The JSON body the `webhook` SMS provider POSTs.
public struct WebhookSMSPayload: Codable, Sendable, Equatable {
    public var projectId: String
    /// E.164.
    public var phoneNumber: String
    public var code: String
    /// The localised message, ready to send as is.
    public var text: String
    /// The locale of `text`.
    public var locale: String

    public init(_ message: SMSMessage) {
        projectId = message.projectID
        phoneNumber = message.phoneNumber
        code = message.code
        text = message.text
        locale = message.locale
    }
}

/// The `X-Flint-Signature` header of webhook requests:
///
///     X-Flint-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>
///
/// The HMAC is lowercase hex, keyed with the shared secret's UTF-8 bytes, over the decimal timestamp, a
/// dot and the request body exactly as received (before any JSON parsing). A receiver should recompute it,
/// compare in constant time (e.g. `hmac.compare_digest` in Python, `crypto.timingSafeEqual` in Node), and
/// reject requests whose `t` is more than a few minutes from its own clock, so a captured request cannot
/// be replayed later.
public enum WebhookSignature {
    public static let headerName = "X-Flint-Signature"

    /// The header value for `body` sent at `timestamp`.
    public static func header(body: some DataProtocol, secret: String, timestamp: Int64) -> String {
        "t=\(timestamp),v1=\(Hex.encode(mac(body: body, secret: secret, timestamp: timestamp)))"
    }

    /// Checks a header value against `body`: a well-formed `t`, within `tolerance` seconds of `now`, and a
    /// `v1` equal (in constant time) to the HMAC of `body`.
    public static func isValid(header: String, body: some DataProtocol, secret: String, now: Int64,
                               tolerance: Int64 = 300) -> Bool {
        var timestamp: Int64?
        var signatures: [Data] = []
        for part in header.split(separator: ",") {
            let pair = part.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
            guard pair.count == 2 else { continue }
            if pair[0] == "t" { timestamp = Int64(pair[1]) }
            if pair[0] == "v1", let bytes = Hex.decode(pair[1]) { signatures.append(bytes) }
        }
        guard let timestamp, abs(now - timestamp) <= tolerance else { return false }
        let key = SymmetricKey(data: Data(secret.utf8))
        let signed = Data("\(timestamp).".utf8) + Data(body)
        return signatures.contains { HMAC<SHA256>.isValidAuthenticationCode($0, authenticating: signed, using: key) }
    }

    private static func mac(body: some DataProtocol, secret: String, timestamp: Int64) -> [UInt8] {
        var hmac = HMAC<SHA256>(key: SymmetricKey(data: Data(secret.utf8)))
        hmac.update(data: Data("\(timestamp).".utf8))
        hmac.update(data: Data(body))
        return Array(hmac.finalize())
    }
}

/// The `webhook` SMS provider: POSTs a `WebhookSMSPayload` as JSON to a URL of the operator's, signed
/// with `X-Flint-Signature` (see `WebhookSignature`). Any 2xx answer is success; anything else is
/// `DeliveryError.rejected`.
public struct WebhookSMSSender: SMSSender {
    public var metricsName: String { "webhook" }
    private let url: String
    private let secret: String
    private let http: OutsideHTTP
    private let clock: any FlintClock

    public init(url: String, secret: String, http: OutsideHTTP, clock: any FlintClock) {
        self.url = url
        self.secret = secret
        self.http = http
        self.clock = clock
    }

    public func send(_ message: SMSMessage) async throws {
        try await http.postSigned(WebhookSMSPayload(message), to: url, secret: secret, timestamp: clock.seconds, service: .smsWebhook)
    }
}

extension OutsideHTTP {
    /// POSTs `value` as JSON (keys sorted) to the webhook at `url`, signed with `secret` at `timestamp` (see
    /// `WebhookSignature`), with `headers` besides. Any 2xx answer is success; another is `DeliveryError.rejected`.
    func postSigned(_ value: some Encodable, to url: String, secret: String, timestamp: Int64,
                    headers: [(String, String)] = [], service: OutsideService) async throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let body = try encoder.encode(value)
        let signature = WebhookSignature.header(body: body, secret: secret, timestamp: timestamp)
        let request = DeliveryHTTP.post(url, contentType: "application/json", body: body,
                                        headers: [(WebhookSignature.headerName, signature)] + headers)
        let answer = try await send(request, to: service)
        guard answer.isSuccess else { throw DeliveryError.rejected(status: answer.status, detail: answer.bodyText) }
    }
}
