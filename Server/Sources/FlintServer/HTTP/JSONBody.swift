import Foundation
import Hummingbird
import NIOCore

/// Reading requests and writing responses as JSON, with Firebase's error for bad input.
enum JSONBody {
    /// Bodies larger than this are refused (no operation needs more).
    static let maximumSize = 1 << 20

    static let decoder = JSONDecoder()
    /// Shared: JSON coders are safe to use concurrently, and creating one per request costs. Keys are sorted,
    /// so equal answers are equal bytes (the encoder's own order varies from answer to answer, and with
    /// enumeration protection the answers for a known and an unknown address must not differ at all).
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        return encoder
    }()

    static func decode<T: Decodable>(_ type: T.Type, from request: Request) async throws -> T {
        let buffer = try await collect(request)
        let bytes = buffer.readableBytes == 0 ? Data("{}".utf8) : Data(buffer.readableBytesView)
        do {
            return try decoder.decode(T.self, from: bytes)
        } catch let error as DecodingError {
            throw FlintError.invalidJSON(describe(error))
        } catch {
            throw FlintError.invalidJSON("Unexpected token.")
        }
    }

    static func collect(_ request: Request) async throws -> ByteBuffer {
        do {
            return try await request.body.collect(upTo: maximumSize)
        } catch {
            throw FlintError(sentence: "Request payload too large.", status: .contentTooLarge, reason: "badRequest")
        }
    }

    /// The answer with `value`'s JSON. Values that write themselves (the hot answers: see `JSONWriter`) do, with
    /// the encoder's bytes; the check is dynamic since generic endpoints know their result only as `Encodable`.
    static func response(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
        if let writable = value as? any JSONWritable {
            return Response(
                status: status, headers: [.contentType: "application/json; charset=utf-8"],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: try writable.jsonBytes())))
        }
        return response(data: try encoder.encode(value), status: status)
    }

    static func response(data: Data, status: HTTPResponse.Status = .ok) -> Response {
        Response(
            status: status, headers: [.contentType: "application/json; charset=utf-8"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// A short description in the emulator's style: `/password must be string`.
    private static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            "/" + context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: "/")
        }
        switch error {
        case .typeMismatch(let type, let context): return "\(path(context)) must be \(jsonTypeName(type))"
        case .valueNotFound(let type, let context): return "\(path(context)) must be \(jsonTypeName(type))"
        case .keyNotFound(let key, _): return "/\(key.stringValue) is required"
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty ? "Unexpected token." : "\(path(context)) is invalid"
        @unknown default: return "Unexpected token."
        }
    }

    private static func jsonTypeName(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "string"
        case is Bool.Type: "boolean"
        case is Int.Type, is Int64.Type, is Double.Type: "number"
        case is [Any].Type: "array"
        default: "object"
        }
    }
}
