import FlintServer
import FlintWire
import Foundation
import Hummingbird
import NIOConcurrencyHelpers

/// A project's blocking function, as Cloud Functions would run it: `POST /{event}` with `{"data": {"jwt": …}}`. The
/// JWT must verify against the Flint server's JWKS (`jwksURL`), name the function's own URL as its audience and
/// `issuer` as its issuer, and be of the event the path names; otherwise 401. Then it answers as `answer` says for
/// that event: refuse (403 and an error body, as an `HttpsError` is sent), or change the user (200 with a
/// `userRecord`), or nothing (200 `{}`). Every verified event's claims are recorded.
public final class FakeBlockingFunction: FakeService {
    public enum Answer: Sendable {
        case allow
        case refuse(message: String)
        case change([String: JSONValue])
    }

    /// The verified events, in order.
    public let events = Recorder<[String: JSONValue]>()
    /// What the function answers, by event (`beforeCreate`, `beforeSignIn`); `allow` when absent.
    public let answers = NIOLockedValueBox<[String: Answer]>([:])

    private let verifier: IdentityTokenVerifier
    private let issuer: String
    let server = NIOLockedValueBox<FakeHTTPServer?>(nil)

    public var port: Int { server.withLockedValue { $0?.port ?? 0 } }
    /// The function's URL for `event`.
    public func url(_ event: String) -> String { "http://127.0.0.1:\(port)/\(event)" }

    private init(jwksURL: String, issuer: String, clock: any FlintClock) {
        verifier = IdentityTokenVerifier(keys: JWKSCache(url: jwksURL, http: OutsideHTTP(client: .shared, limits: .underLoad), clock: clock), clock: clock)
        self.issuer = issuer
    }

    /// A function that trusts the keys at `jwksURL` and tokens of `issuer`.
    public static func start(jwksURL: String, issuer: String, clock: any FlintClock) async throws -> FakeBlockingFunction {
        let fake = FakeBlockingFunction(jwksURL: jwksURL, issuer: issuer, clock: clock)
        try await fake.serve(name: "fake-blocking-function")
        return fake
    }

    public func stop() async {
        await server.withLockedValue { $0 }?.stop()
        events.finish()
    }

    func handle(_ request: Request) async -> Response {
        let event = String(request.uri.path.dropFirst())
        guard request.method == .post, let body = await FakeHTTP.body(request),
              case .object(let envelope)? = try? JSONDecoder().decode(JSONValue.self, from: body),
              let jwt = envelope["data"]?.objectValue?["jwt"]?.stringValue,
              let token = try? await verifier.verify(jwt, expectedIssuers: [issuer], audiences: [url(event)], rawNonce: nil),
              token.claims["event_type"]?.stringValue == event
        else { return FakeHTTP.json(401, ["error": ["status": "UNAUTHENTICATED", "message": "Bad event token"]]) }
        events.append(token.claims)
        switch answers.withLockedValue({ $0[event] }) ?? .allow {
        case .allow:
            return FakeHTTP.json(200, [:])
        case .refuse(let message):
            return FakeHTTP.json(403, ["error": ["status": "PERMISSION_DENIED", "message": message]])
        case .change(let record):
            return FakeHTTP.json(200, encoding: ["userRecord": .object(record)])
        }
    }
}
