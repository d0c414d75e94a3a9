@testable import FlintAuth
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// An `AuthHTTPClient` that answers from a script instead of a server, and records what it was sent.
final class FakeHTTPClient: AuthHTTPClient {
    struct Sent: Sendable {
        let url: URL
        let method: String
        let headers: [String: String]
        let bodyData: Data

        /// The RPC: the last path component, e.g. `accounts:sendVerificationCode` or `recaptchaConfig`.
        var rpc: String { url.lastPathComponent }

        /// The JSON body as a dictionary (empty for GET).
        var body: [String: Any] {
            (try? JSONSerialization.jsonObject(with: bodyData)) as? [String: Any] ?? [:]
        }

        func string(_ key: String) -> String? { body[key] as? String }

        /// The query parameters, by name.
        var query: [String: String] {
            var items: [String: String] = [:]
            for item in URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? [] {
                items[item.name] = item.value ?? ""
            }
            return items
        }
    }

    struct Reply: Sendable {
        let status: Int
        let body: Data

        static func ok(_ json: [String: Any]) -> Reply {
            Reply(status: 200, body: try! JSONSerialization.data(withJSONObject: json))
        }

        /// A Firebase error envelope with `message`, e.g. `INVALID_CODE`.
        static func error(_ message: String, status: Int = 400) -> Reply {
            let body: [String: Any] = ["error": ["code": status, "message": message,
                                                 "errors": [["message": message, "reason": "invalid", "domain": "global"]]]]
            return Reply(status: status, body: try! JSONSerialization.data(withJSONObject: body))
        }
    }

    private let handler: @Sendable (Sent) async throws -> Reply
    private let sent = Locked<[Sent]>([])

    init(_ handler: @escaping @Sendable (Sent) async throws -> Reply) {
        self.handler = handler
    }

    func data(for request: URLRequest) async throws -> (Data, URLResponse) {
        let record = Sent(url: request.url!, method: request.httpMethod ?? "GET",
                          headers: request.allHTTPHeaderFields ?? [:], bodyData: request.httpBody ?? Data())
        sent.withLock { $0.append(record) }
        let reply = try await handler(record)
        let response = HTTPURLResponse(url: record.url, statusCode: reply.status, httpVersion: "HTTP/1.1",
                                       headerFields: ["Content-Type": "application/json"])!
        return (reply.body, response)
    }

    var requests: [Sent] { sent.withLock { $0 } }

    /// The requests of one RPC, oldest first.
    func requests(_ rpc: String) -> [Sent] { requests.filter { $0.rpc == rpc } }

    /// Answers every RPC of phone sign-in the way a server that accepts everything would: `recaptchaConfig`
    /// all OFF, `sendVerificationCode` with `session-<n>`, `signInWithPhoneNumber` and `lookup` for
    /// user `uid-phone`. Other RPCs fail the test.
    static func standard(_ sent: Sent, sequence: Int) -> Reply {
        switch sent.rpc {
        case "recaptchaConfig":
            .ok(["recaptchaEnforcementState": [["provider": "PHONE_PROVIDER", "enforcementState": "OFF"]]])
        case "accounts:sendVerificationCode":
            .ok(["sessionInfo": "session-\(sequence)"])
        case "accounts:signInWithPhoneNumber":
            .ok(["idToken": "id-token", "refreshToken": "refresh-token", "expiresIn": "3600", "localId": "uid-phone",
                 "isNewUser": true, "phoneNumber": "+15555550100"])
        case "accounts:lookup":
            .ok(["users": [["localId": "uid-phone", "phoneNumber": "+15555550100",
                            "providerUserInfo": [["providerId": "phone", "rawId": "+15555550100",
                                                  "phoneNumber": "+15555550100"]]]]])
        default:
            .error("UNEXPECTED_RPC : \(sent.rpc)", status: 404)
        }
    }
}

/// A counter shared by a fake's handler and the test.
final class Counter: Sendable {
    private let value = Locked(0)

    /// Adds one and returns the new value.
    @discardableResult
    func next() -> Int { value.withLock { $0 += 1; return $0 } }

    var current: Int { value.withLock { $0 } }
}

/// A fake world: an app (serverURL `http://flint.test` unless `serverURL` says otherwise) and an `Auth`
/// with an in-memory store talking to `client`.
func withFakeAuth(
    serverURL: URL? = URL(string: "http://flint.test"),
    configure: (FirebaseOptions) -> Void = { _ in },
    client: FakeHTTPClient,
    _ body: (Auth) async throws -> Void
) async throws {
    let name = "flint-auth-fake-\(UUID().uuidString)"
    let options = FirebaseOptions(apiKey: "fake-api-key", projectID: "demo-phone", serverURL: serverURL)
    configure(options)
    FirebaseApp.configure(name: name, options: options)
    let app = try #require(FirebaseApp.app(name: name))
    let auth = Auth(app: app, credentialStore: InMemoryCredentialStore(), httpClient: client)
    var failure: (any Error)?
    do {
        try await body(auth)
    } catch {
        failure = error
    }
    await app.delete()
    if let failure {
        throw failure
    }
}

/// `encodeURIComponent`: everything but letters, digits and `-_.!~*'()` percent-encoded.
func encodeURIComponent(_ text: String) -> String {
    var allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
    allowed.insert(charactersIn: "-_.!~*'()")
    return text.addingPercentEncoding(withAllowedCharacters: allowed)!
}

/// The URL the reCAPTCHA page opens at its end: `{scheme}://firebaseauth/link?deep_link_id=<inner>`, the
/// inner URL's query being `authType`, `eventId` and `parameters`, each encoded as the page's script does.
func captchaCallbackURL(scheme: String, eventID: String, authType: String = "verifyApp",
                        host: String = "firebaseauth", path: String = "/link",
                        _ parameters: [(String, String)]) -> URL {
    var inner = "http://flint.test/__/auth/callback?authType=\(encodeURIComponent(authType))&eventId=\(encodeURIComponent(eventID))"
    for (name, value) in parameters {
        inner += "&\(name)=\(encodeURIComponent(value))"
    }
    return URL(string: "\(scheme)://\(host)\(path)?deep_link_id=\(encodeURIComponent(inner))")!
}

#if !canImport(UIKit)
/// A delegate that records the pages it is asked to show and lets the test act on them.
final class FakeUIDelegate: AuthUIDelegate {
    private let onPresent: @Sendable (URL, @escaping @Sendable () -> Void) -> Void
    private let shown = Locked<[URL]>([])
    let dismissals = Counter()

    init(onPresent: @escaping @Sendable (URL, @escaping @Sendable () -> Void) -> Void) {
        self.onPresent = onPresent
    }

    var presented: [URL] { shown.withLock { $0 } }

    func present(_ url: URL, userDidCancel: @escaping @Sendable () -> Void) {
        shown.withLock { $0.append(url) }
        onPresent(url, userDidCancel)
    }

    func dismiss() {
        dismissals.next()
    }
}
#endif

extension FakeHTTPClient {
    /// Anonymous sign-ups `uid-<n>` with ID token `id-token-<n>`, and lookups of those tokens; a lookup
    /// with API key `rejectedKey` fails with `INVALID_ID_TOKEN`.
    static func anonymousAccounts(rejectedKey: String? = nil) -> FakeHTTPClient {
        let sequence = Counter()
        return FakeHTTPClient { sent in
            switch sent.rpc {
            case "accounts:signUp":
                let n = sequence.next()
                return .ok(["localId": "uid-\(n)", "idToken": "id-token-\(n)", "refreshToken": "refresh-\(n)", "expiresIn": "3600"])
            case "accounts:lookup" where sent.query["key"] == rejectedKey:
                return .error("INVALID_ID_TOKEN")
            case "accounts:lookup":
                let uid = (sent.string("idToken") ?? "").replacingOccurrences(of: "id-token-", with: "uid-")
                return .ok(["users": [["localId": uid, "displayName": "looked up with \(sent.query["key"] ?? "")"]]])
            default:
                return .error("UNEXPECTED_RPC : \(sent.rpc)", status: 404)
            }
        }
    }
}
