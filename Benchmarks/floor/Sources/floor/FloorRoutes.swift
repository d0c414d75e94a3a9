import Foundation
import Hummingbird

/// The floor's endpoints. Each POST one does what `/echo` does (decode the ~300-byte request with JSONDecoder,
/// encode a ~600-byte answer with JSONEncoder) and then one more piece of Flint's work, so that the difference
/// between two endpoints is the cost of that piece inside a server:
/// - `GET /`: 20 bytes of text; the cost of HTTP alone.
/// - `POST /echo`: the JSON round trip.
/// - `POST /verify`: echo + parse the request's `idToken` and check its RS256 signature (Flint's lookup).
/// - `POST /sign`: echo + sign a new ID token (Flint's refresh and sign-ins).
/// - `POST /sign-insert`: echo + sign + one SQLite insert transaction (Flint's sign-ups).
/// - `POST /sign-insert-pg`: the same on PostgreSQL, when the floor was given `--database-url`.
struct FloorRoutes: Sendable {
    let tokens: IDTokens
    let sqlite: SQLiteStore
    let postgres: PostgresStore?

    func add(to router: Router<BasicRequestContext>) {
        router.get("/") { _, _ in "floor: hello, world\n" }
        router.post("/echo") { request, context in
            FloorResponse(for: try await request.decode(as: FloorRequest.self, context: context), localId: Self.newLocalId(), now: Date())
        }
        router.post("/verify") { request, context in
            let body = try await request.decode(as: FloorRequest.self, context: context)
            let now = Date()
            guard let token = body.idToken, let claims = try? tokens.verify(token, now: now) else {
                throw HTTPError(.unauthorized, message: FloorError.badToken.description)
            }
            return FloorResponse(for: body, localId: claims.sub, now: now)
        }
        router.post("/sign") { request, context in
            try signed(try await request.decode(as: FloorRequest.self, context: context)).response
        }
        router.post("/sign-insert") { request, context in
            let (response, row) = try signed(try await request.decode(as: FloorRequest.self, context: context))
            try sqlite.insert(row)
            return response
        }
        if let postgres {
            router.post("/sign-insert-pg") { request, context in
                let (response, row) = try signed(try await request.decode(as: FloorRequest.self, context: context))
                try await postgres.insert(row)
                return response
            }
        }
    }

    /// The answer for a new account with a freshly signed token, and the row that stores it.
    private func signed(_ body: FloorRequest) throws -> (response: FloorResponse, row: AccountRow) {
        let now = Date()
        let localId = Self.newLocalId()
        let token = try tokens.sign(localId: localId, email: body.email, now: now)
        return (FloorResponse(for: body, localId: localId, now: now, idToken: token),
                AccountRow(localId: localId, email: body.email, displayName: body.displayName,
                           createdAt: Int(now.timeIntervalSince1970 * 1000)))
    }

    /// A new 28-character account id, as long as Firebase's.
    private static func newLocalId() -> String {
        String(UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(28))
    }
}
