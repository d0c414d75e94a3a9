import FlintAdmin
import FlintTestSupport
import Foundation
import Testing

/// Tokens made by `Tests/python/forge_tokens.py` with Python's `cryptography`: genuine ones and forgeries, for
/// `project` at the instant `now`, and the keys that sign the genuine ones.
struct Forgery: Sendable {
    static let project = "forged-project"
    static let now = Date(timeIntervalSince1970: 1_700_000_000)

    let certificates: [String: String]
    let jwks: [[String: String]]
    let tokens: [String: String]

    static func make() async throws -> Forgery {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("python/forge_tokens.py")
        let process = try ChildProcess.launch("python3", [script.path, project, String(Int(now.timeIntervalSince1970))],
                                              environment: ChildProcess.environment)
        let result = await process.finish()
        try #require(result.status == 0, "\(result.errors)")
        struct Output: Decodable {
            var certificates: [String: String]
            var jwks: [String: [[String: String]]]
            var tokens: [String: String]
        }
        let output = try JSONDecoder().decode(Output.self, from: Data(result.output.utf8))
        return Forgery(certificates: output.certificates, jwks: output.jwks["keys"] ?? [], tokens: output.tokens)
    }

    func token(_ name: String) throws -> String { try #require(tokens[name], "no token \(name)") }
}

/// Endpoints shaped like Firebase's (its issuers), with the keys and the API at local fakes.
func googleShapedEndpoints(api: String, idTokenKeys: AdminEndpoints.KeySource, sessionCookieKeys: AdminEndpoints.KeySource,
                           isEmulator: Bool = false) -> AdminEndpoints {
    AdminEndpoints(api: URL(string: api)!, idTokenKeys: idTokenKeys, sessionCookieKeys: sessionCookieKeys,
                   idTokenIssuerPrefix: AdminEndpoints.firebase.idTokenIssuerPrefix,
                   sessionCookieIssuerPrefix: AdminEndpoints.firebase.sessionCookieIssuerPrefix, isEmulator: isEmulator)
}

/// Expects `body` to throw an `AdminError` with `code`.
func expectAdminError<Value>(_ code: AdminError.Code, _ comment: @autoclosure () -> String = "",
                             sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> Value) async {
    do {
        let value = try await body()
        Issue.record("expected \(code), got \(value) \(comment())", sourceLocation: sourceLocation)
    } catch let error as AdminError {
        #expect(error.code == code, "\(error) \(comment())", sourceLocation: sourceLocation)
    } catch {
        Issue.record("expected \(code), got \(error) \(comment())", sourceLocation: sourceLocation)
    }
}
