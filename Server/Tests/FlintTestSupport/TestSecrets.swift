import FlintServer
import FlintWire
import Foundation
import NIOConcurrencyHelpers

/// The secret values the tests' clients sent and were given: passwords, codes, tokens, client secrets. Every test
/// server checks, as it stops, that none of them is in its audit trail (`TestServer.stop`): an event names what
/// changed, never the value, and this holds it to that across the whole suite.
public enum TestSecrets {
    /// The JSON and form fields whose values are secrets, in requests and in answers.
    static let fieldNames: Set<String> = [
        "password", "newPassword", "oldPassword", "oobCode", "code", "idToken", "refreshToken", "accessToken",
        "sessionInfo", "temporaryProof", "mfaPendingCredential", "pendingToken", "verificationCode", "sharedSecretKey",
        "clientSecret", "webhookSecret", "secret", "postBody", "oauthIdToken", "oauthAccessToken", "oauthTokenSecret",
        "id_token", "access_token", "refresh_token", "client_secret", "code_verifier", "device_code", "user_code",
        "client_assertion", "subject_token", "assertion",
    ]

    /// Values shorter than this are not noted: they could be found in an event by chance (a 5-digit event ID).
    static let shortest = 6

    private static let seen = NIOLockedValueBox(Set<String>())

    /// Notes a secret value the tests used.
    public static func note(_ value: String) {
        guard value.count >= shortest else { return }
        _ = seen.withLockedValue { $0.insert(value) }
    }

    /// Notes the secret fields of a request's or an answer's body: a JSON document (at any depth) or a form.
    static func noteFields(of body: Data?) {
        guard let body, !body.isEmpty else { return }
        if let json = try? JSONDecoder().decode(JSONValue.self, from: body) {
            noteFields(of: json)
        } else if let form = String(data: body, encoding: .utf8), let items = URLComponents(string: "?" + form)?.queryItems {
            for item in items where fieldNames.contains(item.name) {
                item.value.map { note($0.replacingOccurrences(of: "+", with: " ")) }
            }
        }
    }

    private static func noteFields(of json: JSONValue) {
        switch json {
        case .object(let members):
            for (name, value) in members {
                if fieldNames.contains(name), let text = value.stringValue { note(text) } else { noteFields(of: value) }
            }
        case .array(let elements): elements.forEach(noteFields)
        default: break
        }
    }

    /// The noted secrets that `text` is, or holds as a word (split at spaces and punctuation that end tokens).
    static func found(in text: String) -> [String] {
        let words = [text] + text.split(whereSeparator: { " ,;=&\"'/:()[]{}".contains($0) }).map(String.init)
        return seen.withLockedValue { seen in words.filter(seen.contains) }
    }

    /// The audit events of `store` that hold a noted secret, described (type, column) without the secret itself.
    public static func leaks(in store: Store) async throws -> [String] {
        let columns = ["local_id", "session_id", "ip_address", "user_agent", "principal", "operation", "fields", "detail"]
        let rows = try await store.database.query("SELECT id, type, \(columns.joined(separator: ", ")) FROM audit_events", [])
        return rows.flatMap { row in
            columns.filter { column in row.string(column).map { !found(in: $0).isEmpty } ?? false }
                .map { "event \(row.int("id") ?? 0) (\(row.string("type") ?? "")) holds a secret in \($0)" }
        }
    }
}
