import FlintWire

/// One email, already rendered: an action link (sign-in, password reset, verification, recovery), or a notice.
public struct EmailMessage: Sendable, Equatable, Codable {
    /// What an email is, as logs and metrics name it.
    public enum Kind: Sendable, Equatable, Codable {
        /// An action code's email: its `link` does the action.
        case action(OobRequestType)
        /// A sign-in from a device the account had not used (`NewDeviceNotices`); it has no link.
        case newDeviceNotice

        /// The request type's name (`EMAIL_SIGNIN`), or `NEW_DEVICE_NOTICE`.
        public var name: String {
            switch self {
            case .action(let type): type.rawValue
            case .newDeviceNotice: Self.newDeviceNoticeName
            }
        }

        private static let newDeviceNoticeName = "NEW_DEVICE_NOTICE"

        /// Coded as its name: what messages kept at a shutdown before notices existed hold too.
        public init(from decoder: any Decoder) throws {
            let name = try decoder.singleValueContainer().decode(String.self)
            if name == Self.newDeviceNoticeName {
                self = .newDeviceNotice
            } else if let type = OobRequestType(rawValue: name) {
                self = .action(type)
            } else {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "unknown email kind \(name)"))
            }
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(name)
        }
    }

    public var projectID: String
    public var to: String
    /// The display name of the sender (the address itself is the server's configured sender).
    public var senderName: String?
    public var subject: String
    /// Plain text body.
    public var text: String
    /// HTML body (sent as multipart/alternative with `text`), if any.
    public var html: String?
    /// The locale the message is in (after falling back from the requested one).
    public var locale: String
    public var kind: Kind
    /// An action email's link (for the log sender and tests).
    public var link: String?

    /// `kind` keeps the key `action` it had when every email was an action's.
    private enum CodingKeys: String, CodingKey {
        case projectID, to, senderName, subject, text, html, locale, link
        case kind = "action"
    }

    public init(projectID: String, to: String, senderName: String? = nil, subject: String, text: String,
                html: String? = nil, locale: String, kind: Kind, link: String? = nil) {
        self.projectID = projectID
        self.to = to
        self.senderName = senderName
        self.subject = subject
        self.text = text
        self.html = html
        self.locale = locale
        self.kind = kind
        self.link = link
    }
}

/// Sends email.
public protocol EmailSender: Sendable {
    /// A short fixed name for metrics labels (`smtp`).
    var metricsName: String { get }
    func send(_ message: EmailMessage) async throws
}
