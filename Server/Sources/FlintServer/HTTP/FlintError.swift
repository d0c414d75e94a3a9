import FlintWire
import HTTPTypes

/// An error a client sees, rendered in Firebase's envelope
/// (`{"error":{"code":400,"message":"CODE : detail","errors":[…],"status":"…"}}`).
/// Services throw these; the error middleware renders them.
public struct FlintError: Error, Sendable, Equatable, CustomStringConvertible {
    public var status: HTTPResponse.Status
    /// The full `message`: `CODE`, `CODE : detail`, or a sentence for transport-level errors.
    public var message: String
    /// `errors[0].reason`; some SDKs key on it (e.g. `keyInvalid` → invalid API key).
    public var reason: String
    public var statusName: String
    /// What went wrong inside (an SMTP reply, a provider's answer): written to the server log by the error
    /// middleware, never sent to the client.
    public var cause: String?

    public init(_ code: ServerErrorCode, _ detail: String? = nil, status: HTTPResponse.Status = .badRequest) {
        self.status = status
        self.message = detail.map { "\(code.rawValue) : \($0)" } ?? code.rawValue
        self.reason = "invalid"
        self.statusName = Self.statusName(for: status)
    }

    /// An error whose message is a sentence rather than a code (API key and schema errors).
    public init(sentence: String, status: HTTPResponse.Status, reason: String) {
        self.status = status
        self.message = sentence
        self.reason = reason
        self.statusName = Self.statusName(for: status)
    }

    public var description: String { "\(status.code) \(message)" }

    /// A 4xx: the request was refused, nothing failed on the server's side.
    public var isClientError: Bool { (400..<500).contains(status.code) }

    /// The error's code for metrics: the `CODE` of `CODE : detail`, or the status name of a sentence
    /// (`PERMISSION_DENIED`), so labels stay a small fixed set.
    public var code: String {
        let head = message.range(of: " : ").map { message[..<$0.lowerBound] } ?? message[...]
        let isCode = !head.isEmpty && head.allSatisfy { $0.isUppercase || $0 == "_" || $0.isNumber }
        return isCode ? String(head) : statusName
    }

    /// Whether this is the error `code`, with or without a detail.
    public func `is`(_ code: ServerErrorCode) -> Bool {
        message == code.rawValue || message.hasPrefix(code.rawValue + " :")
    }

    public var envelope: ErrorEnvelope {
        ErrorEnvelope(error: .init(
            code: status.code, message: message, errors: [.init(message: message, reason: reason)], status: statusName))
    }

    private static func statusName(for status: HTTPResponse.Status) -> String {
        switch status.code {
        case 400: "INVALID_ARGUMENT"
        case 401: "UNAUTHENTICATED"
        case 403: "PERMISSION_DENIED"
        case 404: "NOT_FOUND"
        case 429: "RESOURCE_EXHAUSTED"
        case 501: "NOT_IMPLEMENTED"
        case 503: "UNAVAILABLE"
        default: "INTERNAL"
        }
    }
}

extension FlintError {
    /// An outside service (SMS gateway, mail server, Apple, Facebook) failed: the client learns which kind
    /// of service, the log learns why.
    static func unavailable(_ service: String, cause: any Error) -> FlintError {
        FlintError(sentence: "\(service) is unavailable; please try again later.", status: .serviceUnavailable,
                   reason: "backendError").withCause("\(cause)")
    }

    /// This error with `cause` for the log (what the outside service answered, say); the client sees none of it.
    func withCause(_ cause: String) -> FlintError {
        var error = self
        error.cause = cause
        return error
    }

    static let missingAPIKey = FlintError(
        sentence: "The request is missing a valid API key.", status: .forbidden, reason: "forbidden")
    static let invalidAPIKey = FlintError(
        sentence: "API key not valid. Please pass a valid API key.", status: .badRequest, reason: "keyInvalid")
    static let notFound = FlintError(sentence: "Not Found", status: .notFound, reason: "notFound")
    static let internalError = FlintError(sentence: "Internal error", status: .internalServerError, reason: "backendError")
    static let adminRequired = FlintError(
        .insufficientPermission, "Only authenticated requests can use this operation.", status: .forbidden)

    static func invalidJSON(_ detail: String) -> FlintError {
        FlintError(sentence: "Invalid JSON payload received. \(detail)", status: .badRequest, reason: "invalid")
    }
}
