import Foundation
import Hummingbird

/// What one POST request of the floor does between decoding its ~300-byte body with JSONDecoder and encoding its ~600-byte
/// answer with JSONEncoder (what `/echo` does alone), so that the difference between two recipes is the cost of their
/// pieces inside a server. Flint's operations are each judged against the recipe with their crypto and their number of
/// write transactions (README.md).
struct Recipe: Sendable, Equatable {
    /// RS256 verifications of the body's `idToken`.
    var verifications = 0
    /// RS256 signatures of a new ID token (the answer carries the last).
    var signatures = 0
    /// Firebase-scrypt hashes of the body's `password`.
    var scryptHashes = 0
    /// Write transactions, one account row INSERTed in each.
    var inserts = 0
    /// Write transactions of Flint's sign-up: the account, its session, the budget's counter and the audit event
    /// (`SignUpRows`). The account has an email when the recipe hashes a password (an email sign-up), else none; the
    /// body's, made the account's own (the index on it is unique).
    var signUps = 0
    /// Whether the transactions go to PostgreSQL (else SQLite).
    var onPostgres = false

    /// The recipe of `POST /work?verify=V&sign=S&scrypt=H&insert=I&signup=U[&store=pg]`, each count 0...4 (absent: 0).
    init(query: [String: String]) throws {
        func count(_ name: String) throws -> Int {
            guard let text = query[name] else { return 0 }
            guard let value = Int(text), (0...4).contains(value) else {
                throw HTTPError(.badRequest, message: "\(name) must be 0...4")
            }
            return value
        }
        self.init(verifications: try count("verify"), signatures: try count("sign"), scryptHashes: try count("scrypt"),
                  inserts: try count("insert"), signUps: try count("signup"), onPostgres: query["store"] == "pg")
        if onPostgres && signUps > 0 { throw HTTPError(.badRequest, message: "signup is on SQLite only") }
    }

    init(verifications: Int = 0, signatures: Int = 0, scryptHashes: Int = 0, inserts: Int = 0, signUps: Int = 0,
         onPostgres: Bool = false) {
        (self.verifications, self.signatures, self.scryptHashes, self.inserts, self.signUps, self.onPostgres) =
            (verifications, signatures, scryptHashes, inserts, signUps, onPostgres)
    }

    /// The fixed endpoints, kept as names of recipes.
    static let named: [(path: String, recipe: Recipe)] = [
        ("/echo", Recipe()),
        ("/verify", Recipe(verifications: 1)),
        ("/sign", Recipe(signatures: 1)),
        ("/sign-insert", Recipe(signatures: 1, inserts: 1)),
        ("/sign-insert-pg", Recipe(signatures: 1, inserts: 1, onPostgres: true)),
    ]
}

/// The floor's endpoints: `GET /` (20 bytes of text, the cost of HTTP alone), `POST /work?…` (any recipe) and the
/// named recipes (`/echo`, `/verify`, `/sign`, `/sign-insert`, `/sign-insert-pg`).
struct FloorRoutes: Sendable {
    let tokens: IDTokens
    let scrypt: FirebaseScrypt
    let sqlite: SQLiteStore
    let postgres: PostgresStore?

    func add(to router: Router<BasicRequestContext>) {
        router.get("/") { _, _ in "floor: hello, world\n" }
        router.post("/work") { request, context in
            let recipe = try Recipe(query: Dictionary(request.uri.queryParameters.map { (String($0.key), String($0.value)) },
                                                      uniquingKeysWith: { first, _ in first }))
            return try await perform(recipe, try await request.decode(as: FloorRequest.self, context: context))
        }
        for (path, recipe) in Recipe.named where !recipe.onPostgres || postgres != nil {
            router.post(RouterPath(path)) { request, context in
                try await perform(recipe, try await request.decode(as: FloorRequest.self, context: context))
            }
        }
    }

    /// Does `recipe`'s work for `body`, inline in the handler (scrypt too: the handlers run on Swift's concurrent
    /// executor, not on the event loops, so a hash holds up no connection's I/O).
    private func perform(_ recipe: Recipe, _ body: FloorRequest) async throws -> FloorResponse {
        let now = Date()
        var localId = Self.newLocalId()
        for _ in 0..<recipe.verifications {
            guard let token = body.idToken, let claims = try? tokens.verify(token, now: now) else {
                throw HTTPError(.unauthorized, message: FloorError.badToken.description)
            }
            localId = claims.sub
        }
        for _ in 0..<recipe.scryptHashes { _ = try scrypt.hash(body.password) }
        var idToken: String?
        for _ in 0..<recipe.signatures { idToken = try tokens.sign(localId: localId, email: body.email, now: now) }
        for _ in 0..<recipe.inserts {
            // A new row each time: a verified token's user id repeats from request to request.
            let row = AccountRow(localId: Self.newLocalId(), email: body.email, displayName: body.displayName,
                                 createdAt: Int(now.timeIntervalSince1970 * 1000))
            if recipe.onPostgres {
                guard let postgres else { throw HTTPError(.badRequest, message: "the floor was started without --database-url") }
                try await postgres.insert(row)
            } else {
                try sqlite.insert(row)
            }
        }
        for _ in 0..<recipe.signUps {
            let localId = Self.newLocalId()
            try sqlite.signUp(SignUpRows(
                localId: localId, email: recipe.scryptHashes > 0 ? localId + "." + body.email : nil,
                displayName: body.displayName, createdAt: Int(now.timeIntervalSince1970 * 1000),
                tokenHash: Self.hexID() + Self.hexID(), sessionID: Self.hexID(), budget: "signup:127.0.0.1",
                ipAddress: "127.0.0.1"))
        }
        return FloorResponse(for: body, localId: localId, now: now, idToken: idToken)
    }

    /// A new 28-character account id, as long as Firebase's.
    private static func newLocalId() -> String {
        String(hexID().prefix(28))
    }

    /// 32 random hex digits (a UUID's): half a refresh token's hash, or a session id.
    private static func hexID() -> String {
        UUID().uuidString.replacingOccurrences(of: "-", with: "")
    }
}
