import Foundation
import Hummingbird

/// What a user's mailbox and phone have received, over HTTP on loopback, for a browser driver (a child process) to
/// read a link or a code from while it signs in: `GET /messages?to=<address or number>` answers the texts sent there,
/// oldest first, as a JSON array of strings. The test gives the source: an `SMTPTestServer`'s mail, a `FakeTwilio`'s
/// messages.
public final class FakeInbox: Sendable {
    private let server: FakeHTTPServer

    /// The address the driver reads from (`<url>/messages?to=…`).
    public var url: String { "http://127.0.0.1:\(server.port)" }

    private init(server: FakeHTTPServer) {
        self.server = server
    }

    /// Serves `messages(to)`, the texts received at `to`.
    public static func start(_ messages: @escaping @Sendable (String) -> [String]) async throws -> FakeInbox {
        let server = try await FakeHTTPServer.start(name: "fake-inbox") { request, _ in
            guard request.method == .get, request.uri.path == "/messages", let to = request.uri.queryParameters.get("to") else {
                return FakeHTTP.json(404, ["error": "not_found"])
            }
            return FakeHTTP.jsonArray(200, messages(to))
        }
        return FakeInbox(server: server)
    }

    public func stop() async {
        await server.stop()
    }
}
