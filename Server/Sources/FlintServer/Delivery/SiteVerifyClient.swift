import FlintWire
import Foundation

/// Checks captcha tokens with a siteverify endpoint (reCAPTCHA `https://www.google.com/recaptcha/api/siteverify`,
/// hCaptcha `https://api.hcaptcha.com/siteverify`, Turnstile
/// `https://challenges.cloudflare.com/turnstile/v0/siteverify`): a form POST of `secret`, `response` and
/// `remoteip`, answered with JSON `{"success": Bool, "error-codes": [...], ...}`.
public struct SiteVerifyClient: CaptchaVerifier {
    /// Longer responses are refused without asking (Turnstile's limit is 2048; reCAPTCHA's are shorter).
    static let maximumResponseLength = 8192

    private let url: String
    private let secret: String
    private let http: OutsideHTTP

    public init(url: String, secret: String, http: OutsideHTTP) {
        self.url = url
        self.secret = secret
        self.http = http
    }

    private struct Answer: Decodable {
        var success: Bool
    }

    public func verify(response: String, remoteIP: String?) async throws -> Bool {
        guard !response.isEmpty, response.utf8.count <= Self.maximumResponseLength else { return false }
        var fields = [("secret", secret), ("response", response)]
        if let remoteIP, !remoteIP.isEmpty { fields.append(("remoteip", remoteIP)) }
        let request = DeliveryHTTP.post(url, contentType: "application/x-www-form-urlencoded",
                                        body: Data(FormURLEncoding.encode(fields).utf8),
                                        headers: [("accept", "application/json")])
        let answer = try await http.send(request, to: .captcha)
        guard answer.isSuccess else { throw DeliveryError.rejected(status: answer.status, detail: answer.bodyText) }
        guard let decoded = try? JSONDecoder().decode(Answer.self, from: answer.body) else {
            throw DeliveryError.unavailable("siteverify: not a siteverify answer: \(answer.bodyText)")
        }
        return decoded.success
    }
}
