import FlintServer
import Foundation
import Hummingbird
import NIOConcurrencyHelpers

/// A local siteverify endpoint (the protocol reCAPTCHA, hCaptcha and Turnstile share): a form POST of
/// `secret`, `response` and optionally `remoteip`, answered 200 with `{"success": true, "challenge_ts",
/// "hostname"}` or `{"success": false, "error-codes": [...]}`:
///
/// - no `secret` → `missing-input-secret`; another secret → `invalid-input-secret`
/// - no `response` → `missing-input-response`; not a token this fake issued → `invalid-input-response`;
///   already verified once, or issued more than `tokenLifetime` ago → `timeout-or-duplicate`
///
/// Tests get valid tokens from `issueToken()` (what the captcha widget would hand the browser). Every
/// verification is recorded in `verifications`, with the `remoteip` it carried.
public final class FakeSiteVerify: FakeService {
    public struct Verification: Sendable, Equatable {
        public let response: String?
        public let remoteIP: String?
        public let success: Bool
        public let errorCodes: [String]
    }

    public let secret: String
    /// Tokens are good for this long (reCAPTCHA and Turnstile: 2 minutes).
    public static let tokenLifetime: TimeInterval = 120
    /// Every verification, in order.
    public let verifications = Recorder<Verification>()

    private let clock: any FlintClock
    private let issued = NIOLockedValueBox([String: (issuedAt: Date, used: Bool)]())
    let server = NIOLockedValueBox<FakeHTTPServer?>(nil)

    public var port: Int { server.withLockedValue { $0?.port ?? 0 } }
    public var url: String { "http://127.0.0.1:\(port)/siteverify" }

    private init(secret: String, clock: any FlintClock) {
        self.secret = secret
        self.clock = clock
    }

    /// Starts a fake; the secret is random unless given.
    public static func start(secret: String? = nil, clock: any FlintClock = SystemClock()) async throws -> FakeSiteVerify {
        let fake = FakeSiteVerify(secret: secret ?? FakeHTTP.randomHex(bytes: 20), clock: clock)
        try await fake.serve(name: "fake-siteverify")
        return fake
    }

    public func stop() async {
        await server.withLockedValue { $0 }?.stop()
        verifications.finish()
    }

    /// The siteverify setting that reaches this fake (`secret` to test a wrong one).
    public func configuration(secret: String? = nil) -> DeliveryConfiguration.SiteVerify {
        .init(url: url, secret: secret ?? self.secret, siteKey: "fake-site-key")
    }

    /// A new response token, valid once.
    public func issueToken() -> String {
        let token = "fake-captcha-" + FakeHTTP.randomHex(bytes: 24)
        let now = clock.now()
        issued.withLockedValue { $0[token] = (now, false) }
        return token
    }

    func handle(_ request: Request) async -> Response {
        guard request.uri.path == "/siteverify" else { return FakeHTTP.json(404, ["error": "not found"]) }
        guard request.method == .post else { return FakeHTTP.json(405, ["error": "method not allowed"]) }
        let body = await FakeHTTP.body(request) ?? Data()
        let form = FakeHTTP.isForm(request) ? FakeHTTP.form(body) : [:]
        let response = form["response"].flatMap { $0.isEmpty ? nil : $0 }
        let remoteIP = form["remoteip"].flatMap { $0.isEmpty ? nil : $0 }
        let errors = check(secret: form["secret"], response: response)
        verifications.append(Verification(response: response, remoteIP: remoteIP, success: errors.isEmpty, errorCodes: errors))
        guard errors.isEmpty else { return FakeHTTP.json(200, ["success": false, "error-codes": errors]) }
        return FakeHTTP.json(200, ["success": true, "challenge_ts": ISO8601DateFormatter().string(from: clock.now()),
                                   "hostname": "localhost"])
    }

    /// The error codes for this request (none: valid), consuming the token when it is good.
    private func check(secret: String?, response: String?) -> [String] {
        guard let secret, !secret.isEmpty else { return ["missing-input-secret"] }
        guard secret == self.secret else { return ["invalid-input-secret"] }
        guard let response else { return ["missing-input-response"] }
        let now = clock.now()
        return issued.withLockedValue { issued in
            guard let token = issued[response] else { return ["invalid-input-response"] }
            guard !token.used, now.timeIntervalSince(token.issuedAt) <= Self.tokenLifetime else {
                return ["timeout-or-duplicate"]
            }
            issued[response]?.used = true
            return []
        }
    }
}
