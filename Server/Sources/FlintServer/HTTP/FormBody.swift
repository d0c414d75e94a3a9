import FlintWire
import Foundation
import Hummingbird
import NIOCore

/// The fields of a URL-encoded form POST (the console's forms, a SAML IdP's HTTP-POST binding): the first value of each
/// name; a body over `limit` bytes is refused.
enum FormBody {
    static func fields(of request: Request, upTo limit: Int) async throws -> [String: String] {
        let body: ByteBuffer
        do {
            body = try await request.body.collect(upTo: limit)
        } catch {
            throw FlintError(sentence: "Request payload too large.", status: .contentTooLarge, reason: "badRequest")
        }
        var fields: [String: String] = [:]
        for (name, value) in FormURLEncoding.decode(String(buffer: body)) where fields[name] == nil { fields[name] = value }
        return fields
    }
}
