import FlintWire

/// One email: an action link (sign-in, password reset, verification, recovery), already rendered.
public struct EmailMessage: Sendable, Equatable, Codable {
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
    /// What the link does, and the link itself (for the log sender and tests).
    public var action: OobRequestType
    public var link: String

    public init(projectID: String, to: String, senderName: String? = nil, subject: String, text: String,
                html: String? = nil, locale: String, action: OobRequestType, link: String) {
        self.projectID = projectID
        self.to = to
        self.senderName = senderName
        self.subject = subject
        self.text = text
        self.html = html
        self.locale = locale
        self.action = action
        self.link = link
    }
}

/// Sends email.
public protocol EmailSender: Sendable {
    /// A short fixed name for metrics labels (`smtp`).
    var metricsName: String { get }
    func send(_ message: EmailMessage) async throws
}
