/// Firebase's error body: `{"error":{"code":400,"message":"CODE : detail","errors":[…],"status":"…"}}`.
public struct ErrorEnvelope: Codable, Sendable, Equatable {
    public struct Item: Codable, Sendable, Equatable {
        public var message: String
        public var reason: String
        public var domain: String

        public init(message: String, reason: String, domain: String = "global") {
            self.message = message
            self.reason = reason
            self.domain = domain
        }
    }

    public struct Body: Codable, Sendable, Equatable {
        /// The HTTP status, repeated in the body.
        public var code: Int
        /// `CODE` or `CODE : detail`; SDKs split at the first colon.
        public var message: String
        public var errors: [Item]
        public var status: String?

        public init(code: Int, message: String, errors: [Item], status: String?) {
            self.code = code
            self.message = message
            self.errors = errors
            self.status = status
        }
    }

    public var error: Body

    public init(error: Body) { self.error = error }

    /// The leading code of `message`, e.g. `WEAK_PASSWORD` for `WEAK_PASSWORD : Password should be…`.
    public var serverCode: String {
        let message = error.message
        guard let colon = message.firstIndex(of: ":") else { return message.trimmingSpaces() }
        return String(message[..<colon]).trimmingSpaces()
    }

    /// The text after the first colon, if any.
    public var detail: String? {
        let message = error.message
        guard let colon = message.firstIndex(of: ":") else { return nil }
        let rest = String(message[message.index(after: colon)...]).trimmingSpaces()
        return rest.isEmpty ? nil : rest
    }
}

extension String {
    func trimmingSpaces() -> String {
        var slice = Substring(self)
        while slice.first == " " { slice.removeFirst() }
        while slice.last == " " { slice.removeLast() }
        return String(slice)
    }
}
