import FlintWire
import Foundation

/// The `twilio` SMS provider: Twilio's Messages API (`POST /2010-04-01/Accounts/{sid}/Messages.json`,
/// form-encoded `To`, `From`, `Body`, HTTP Basic auth with the account SID and auth token). Twilio answers
/// 201 with the new message's `sid`; any other answer is `DeliveryError.rejected` with Twilio's `message`.
public struct TwilioSMSSender: SMSSender {
    public var metricsName: String { "twilio" }
    private let endpoint: String
    private let authorization: String
    private let from: String
    private let http: OutsideHTTP

    /// `baseURL` is `https://api.twilio.com` in production.
    public init(baseURL: String, accountSID: String, authToken: String, from: String, http: OutsideHTTP) {
        let base = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        endpoint = "\(base)/2010-04-01/Accounts/\(FormURLEncoding.escape(accountSID))/Messages.json"
        authorization = "Basic " + Data("\(accountSID):\(authToken)".utf8).base64EncodedString()
        self.from = from
        self.http = http
    }

    public func send(_ message: SMSMessage) async throws {
        let form = FormURLEncoding.encode([("To", message.phoneNumber), ("From", from), ("Body", message.text)])
        let request = DeliveryHTTP.post(endpoint, contentType: "application/x-www-form-urlencoded", body: Data(form.utf8),
                                        headers: [("authorization", authorization), ("accept", "application/json")])
        let answer = try await http.send(request, to: .twilio)
        guard answer.status == 201 else {
            throw DeliveryError.rejected(status: answer.status, detail: answer.jsonString("message") ?? answer.bodyText)
        }
        guard answer.jsonString("sid") != nil else {
            throw DeliveryError.unavailable("Twilio: a 201 answer without a message sid: \(answer.bodyText)")
        }
    }
}
