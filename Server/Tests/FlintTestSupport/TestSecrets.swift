import FlintServer
import FlintWire
import Foundation
import NIOConcurrencyHelpers

/// The secret values the tests' clients sent to each server and were given by it: passwords, codes, tokens, client
/// secrets. Every test server checks, as it stops, that none of those its clients used is in its audit trail
/// (`TestServer.stop`): an event names what changed, never the value, and this holds it to that across the whole suite.
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

    /// Words events hold by design (sign-in methods), never taken for a secret: a test's password `password` could not
    /// be told from the method.
    static let vocabulary: Set<String> = [
        "password", "phone", "anonymous", "custom", "emailLink", "federated", "secondFactor", "passkey",
    ]

    /// The noted secrets, by the server (`host:port`) they were sent to or came from.
    private static let seen = NIOLockedValueBox([String: Set<String>]())

    /// Notes a secret value a test used with the server at `server` (`host:port`).
    public static func note(_ value: String, server: String) {
        guard value.count >= shortest, !vocabulary.contains(value) else { return }
        _ = seen.withLockedValue { $0[server, default: []].insert(value) }
    }

    /// Forgets what was noted for `server`: a new server on a port another one had.
    static func forget(server: String) {
        _ = seen.withLockedValue { $0.removeValue(forKey: server) }
    }

    /// Notes the secret fields of a request's or an answer's body, a JSON document (at any depth) or a form, exchanged
    /// with the server at `server`.
    static func noteFields(of body: Data?, server: String) {
        guard let body, !body.isEmpty else { return }
        if let json = try? JSONDecoder().decode(JSONValue.self, from: body) {
            noteFields(of: json, server: server)
        } else if let form = String(data: body, encoding: .utf8), let items = URLComponents(string: "?" + form)?.queryItems {
            for item in items where fieldNames.contains(item.name) {
                item.value.map { note($0.replacingOccurrences(of: "+", with: " "), server: server) }
            }
        }
    }

    /// Notes the secret fields of a decoded JSON document, at any depth.
    static func noteFields(of json: JSONValue, server: String) {
        switch json {
        case .object(let members):
            for (name, value) in members {
                if fieldNames.contains(name), let text = value.stringValue {
                    note(text, server: server)
                } else {
                    noteFields(of: value, server: server)
                }
            }
        case .array(let elements): elements.forEach { noteFields(of: $0, server: server) }
        default: break
        }
    }

    /// The secrets noted for `server` that `text` is, or holds as a word (split at spaces and punctuation that end
    /// tokens).
    static func found(in text: String, server: String) -> [String] {
        let words = [text] + text.split(whereSeparator: { " ,;=&\"'/:()[]{}".contains($0) }).map(String.init)
        return seen.withLockedValue { seen in words.filter { seen[server]?.contains($0) ?? false } }
    }

    /// The audit events of `store` that hold a secret noted for `server`, described (type, column) without the secret.
    public static func leaks(in store: Store, server: String) async throws -> [String] {
        let columns = ["local_id", "session_id", "ip_address", "user_agent", "principal", "operation", "fields", "detail"]
        let rows = try await store.database.query("SELECT id, type, \(columns.joined(separator: ", ")) FROM audit_events", [])
        return rows.flatMap { row in
            columns.filter { column in row.string(column).map { !found(in: $0, server: server).isEmpty } ?? false }
                .map { "event \(row.int("id") ?? 0) (\(row.string("type") ?? "")) holds a secret in \($0)" }
        }
    }
}
