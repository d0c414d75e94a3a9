import Foundation
import Hummingbird
import NIOConcurrencyHelpers

/// A local JWKS endpoint (what Apple's `/auth/keys` or Facebook's `/.well-known/oauth/openid/jwks/` serve):
/// every GET answers `{"keys": […]}` with the keys set by `setKeys`, and `Cache-Control` when set.
/// `setDown(true)` makes it answer 503 instead. Every request is counted in `requestCount`.
public final class FakeJWKSServer: Sendable {
    private struct State {
        var keys: [[String: String]] = []
        var cacheControl: String?
        var down = false
        var requests = 0
    }

    private let state = NIOLockedValueBox(State())
    private let server = NIOLockedValueBox<FakeHTTPServer?>(nil)

    public var port: Int { server.withLockedValue { $0?.port ?? 0 } }
    public var url: String { "http://127.0.0.1:\(port)/keys" }
    /// How many requests reached the fake so far.
    public var requestCount: Int { state.withLockedValue { $0.requests } }

    private init() {}

    public static func start(keys: [[String: String]] = []) async throws -> FakeJWKSServer {
        let fake = FakeJWKSServer()
        fake.setKeys(keys)
        let server = try await FakeHTTPServer.start(name: "fake-jwks") { [weak fake] _, _ in
            guard let fake else { return FakeHTTP.empty(503) }
            return fake.answer()
        }
        fake.server.withLockedValue { $0 = server }
        return fake
    }

    public func stop() async {
        await server.withLockedValue { $0 }?.stop()
    }

    /// The JWKs to publish (each a JSON object of string members).
    public func setKeys(_ keys: [[String: String]]) { state.withLockedValue { $0.keys = keys } }
    public func setCacheControl(_ value: String?) { state.withLockedValue { $0.cacheControl = value } }
    public func setDown(_ down: Bool) { state.withLockedValue { $0.down = down } }

    private func answer() -> Response {
        let (keys, cacheControl, down) = state.withLockedValue { state in
            state.requests += 1
            return (state.keys, state.cacheControl, state.down)
        }
        if down { return FakeHTTP.empty(503) }
        return FakeHTTP.json(200, ["keys": keys], headers: cacheControl.map { ["Cache-Control": $0] } ?? [:])
    }
}
