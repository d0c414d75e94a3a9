@testable import FlintAuth
import FlintWire
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// Answers as a server would for one anonymous account, `uid-1`: its sign-up, its lookups and its token refreshes,
/// each with a new ID token. Every other request fails with `EMAIL_NOT_FOUND`.
final class StubHTTPClient: AuthHTTPClient {
    static let uid = "uid-1"
    private let issuedTokens = Locked(0)

    func data(for request: URLRequest) async throws -> (Data, URLResponse) {
        let url = try #require(request.url)
        var status = 200
        let body: any Encodable
        switch url.lastPathComponent {
        case "accounts:signUp":
            body = SignInResponse(localId: Self.uid, idToken: newIDToken(), refreshToken: "refresh", expiresIn: "3600")
        case "accounts:lookup":
            body = LookupResponse(users: [UserRecord(localId: Self.uid)])
        case "token":
            body = SecureTokenResponse(idToken: newIDToken(), refreshToken: "refresh", expiresIn: "3600",
                                       userId: Self.uid, projectId: "demo-unit")
        default:
            status = 400
            let item = ErrorEnvelope.Item(message: "EMAIL_NOT_FOUND", reason: "invalid")
            body = ErrorEnvelope(error: .init(code: status, message: "EMAIL_NOT_FOUND", errors: [item], status: nil))
        }
        let response = try #require(HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1",
                                                    headerFields: ["Content-Type": "application/json"]))
        return (try JSONEncoder().encode(body), response)
    }

    private func newIDToken() -> String {
        "id-token-\(issuedTokens.withLock { $0 += 1; return $0 })"
    }
}

/// Runs `body` with the `Auth` of a new app that keeps its user in memory and talks to a `StubHTTPClient`.
func withStubAuth(_ body: (Auth) async throws -> Void) async throws {
    let name = "flint-auth-unit-\(UUID().uuidString)"
    FirebaseApp.configure(name: name, options: FirebaseOptions(apiKey: "stub-key", projectID: "demo-unit",
                                                               serverURL: URL(string: "http://flint.test")))
    let app = try #require(FirebaseApp.app(name: name))
    let auth = Auth(app: app, credentialStore: InMemoryCredentialStore(), httpClient: StubHTTPClient())
    do {
        try await body(auth)
    } catch {
        await app.delete()
        throw error
    }
    await app.delete()
}
