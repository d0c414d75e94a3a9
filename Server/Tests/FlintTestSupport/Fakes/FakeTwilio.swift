import FlintServer
import Foundation
import Hummingbird
import NIOConcurrencyHelpers

/// A local Twilio Messages API (`POST /2010-04-01/Accounts/{sid}/Messages.json`) for one account and one
/// sending number, refusing what Twilio refuses, with Twilio's error JSON (`code`, `message`, `status`):
///
/// - Basic auth not this account's SID and auth token → 401, code 20003 `Authenticate`
/// - another account's SID in the path → 404, code 20404; another path or method → 404 / 405
/// - `To` missing → 400 21604; not E.164 → 400 21211; `From` missing → 400 21603; `From` not the account's
///   number → 400 21606; `Body` missing → 400 21602; over 1600 characters → 400 21617
///   (fields are read only from an `application/x-www-form-urlencoded` body, as Twilio reads them)
///
/// Accepted messages are answered 201 with a new `SM…` sid and recorded in `messages`.
public final class FakeTwilio: FakeService {
    public struct Message: Sendable, Equatable {
        public let sid: String
        public let to: String
        public let from: String
        public let body: String
    }

    public let accountSID: String
    public let authToken: String
    /// The account's sending number.
    public let from: String
    /// Accepted messages, in order.
    public let messages = Recorder<Message>()

    let server = NIOLockedValueBox<FakeHTTPServer?>(nil)

    public var port: Int { server.withLockedValue { $0?.port ?? 0 } }
    /// What `TwilioSMSSender` calls its base URL (`https://api.twilio.com` for the real one).
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    private init(accountSID: String, authToken: String, from: String) {
        self.accountSID = accountSID
        self.authToken = authToken
        self.from = from
    }

    /// Starts a fake account; the SID and token are random unless given.
    public static func start(accountSID: String? = nil, authToken: String? = nil,
                             from: String = "+15005550006") async throws -> FakeTwilio {
        let fake = FakeTwilio(accountSID: accountSID ?? "AC" + FakeHTTP.randomHex(bytes: 16),
                              authToken: authToken ?? FakeHTTP.randomHex(bytes: 16), from: from)
        try await fake.serve(name: "fake-twilio")
        return fake
    }

    public func stop() async {
        await server.withLockedValue { $0 }?.stop()
        messages.finish()
    }

    /// The SMS provider setting that reaches this fake (`authToken` to test a wrong one).
    public func provider(authToken: String? = nil) -> DeliveryConfiguration.SMSProvider {
        .twilio(baseURL: baseURL, accountSID: accountSID, authToken: authToken ?? self.authToken, from: from)
    }

    private func error(_ status: Int, _ code: Int, _ message: String) -> Response {
        FakeHTTP.json(status, ["code": code, "message": message, "more_info": "https://www.twilio.com/docs/errors/\(code)",
                               "status": status])
    }

    func handle(_ request: Request) async -> Response {
        let path = request.uri.path.split(separator: "/", omittingEmptySubsequences: false)
        guard path.count == 5, path[0].isEmpty, path[1] == "2010-04-01", path[2] == "Accounts", path[4] == "Messages.json"
        else { return error(404, 20404, "The requested resource \(request.uri.path) was not found") }
        guard isAuthenticated(FakeHTTP.header(request, "authorization")) else {
            return error(401, 20003, "Authenticate")
        }
        guard path[3] == accountSID else { return error(404, 20404, "The requested resource \(request.uri.path) was not found") }
        guard request.method == .post else { return error(405, 20004, "Method not allowed") }
        let body = await FakeHTTP.body(request) ?? Data()
        let form = FakeHTTP.isForm(request) ? FakeHTTP.form(body) : [:]
        guard let to = form["To"], !to.isEmpty else { return error(400, 21604, "A 'To' phone number is required.") }
        guard Self.isE164(to) else { return error(400, 21211, "Invalid 'To' Phone Number: \(to)") }
        guard let from = form["From"], !from.isEmpty else { return error(400, 21603, "A 'From' phone number is required.") }
        guard from == self.from else {
            return error(400, 21606, "The From phone number \(from) is not a valid, SMS-capable inbound phone number or short code for your account.")
        }
        guard let text = form["Body"], !text.isEmpty else { return error(400, 21602, "Message body is required.") }
        guard text.count <= 1600 else { return error(400, 21617, "The concatenated message body exceeds the 1600 character limit.") }

        let sid = "SM" + FakeHTTP.randomHex(bytes: 16)
        messages.append(Message(sid: sid, to: to, from: from, body: text))
        return FakeHTTP.json(201, [
            "sid": sid, "account_sid": accountSID, "to": to, "from": from, "body": text, "status": "queued",
            "num_segments": "1", "direction": "outbound-api", "api_version": "2010-04-01",
            "uri": "/2010-04-01/Accounts/\(accountSID)/Messages/\(sid).json",
        ])
    }

    private func isAuthenticated(_ authorization: String?) -> Bool {
        guard let authorization, authorization.lowercased().hasPrefix("basic "),
              let decoded = Data(base64Encoded: String(authorization.dropFirst(6)).trimmingCharacters(in: .whitespaces))
        else { return false }
        let expected = Data("\(accountSID):\(authToken)".utf8)
        // Constant-time, as a real service compares secrets.
        guard decoded.count == expected.count else { return false }
        return zip(decoded, expected).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }

    /// `+`, a non-zero first digit, at most 15 digits in all.
    static func isE164(_ number: String) -> Bool {
        let digits = number.utf8.dropFirst()
        return number.first == "+" && (2...15).contains(digits.count) && digits.first != UInt8(ascii: "0")
            && digits.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }
}
