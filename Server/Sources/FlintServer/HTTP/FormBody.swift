import FlintWire
import Foundation
import Hummingbird
import NIOCore

/// The fields of a URL-encoded form POST (the console's forms, a SAML IdP's HTTP-POST binding): the first value of each
/// name; a body over `limit` bytes is refused.
enum FormBody {
    static func fields(of request: Request, upTo limit: Int, joining repeatable: Set<String> = []) async throws -> [String: String] {
        let body: ByteBuffer
        do {
            body = try await request.body.collect(upTo: limit)
        } catch {
            throw FlintError(sentence: "Request payload too large.", status: .contentTooLarge, reason: "badRequest")
        }
        return fields(of: String(buffer: body), joining: repeatable)
    }

    /// The fields of a URL-encoded string: the first value of each name, but every value of the `repeatable` names
    /// (RFC 8707's `resource`), joined by spaces (which their values, URIs, cannot hold).
    static func fields(of encoded: String, joining repeatable: Set<String> = []) -> [String: String] {
        var fields: [String: String] = [:]
        for (name, value) in FormURLEncoding.decode(encoded) {
            if let first = fields[name] {
                if repeatable.contains(name) { fields[name] = first + " " + value }
            } else {
                fields[name] = value
            }
        }
        return fields
    }
}
