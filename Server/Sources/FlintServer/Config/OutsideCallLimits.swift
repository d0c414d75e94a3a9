import NIOCore

/// How long Flint waits for the outside services it calls (Apple, Facebook, a captcha service, APNs, an
/// SMS gateway, a webhook, a mail relay) and how much of their answers it reads. Every outside call is
/// bounded by these, whatever the other side does (answers slowly, drips bytes, sends an endless body,
/// never answers); they live in one place so tests can make them short.
public struct OutsideCallLimits: Sendable, Equatable {
    /// Connecting (TCP and TLS) to an HTTP service or a mail relay.
    public var connectTimeout: TimeAmount = .seconds(10)
    /// One HTTP call, from sending the request to the last byte of the answer. Generous (providers can be
    /// slow, and a loaded node can be slow to read), yet bounded.
    public var requestTimeout: TimeAmount = .seconds(30)
    /// HTTP answers longer than this are not read: every service answers with a small JSON object (a
    /// JWKS document is a few kilobytes).
    public var maximumResponseBytes = 64 * 1024
    /// Each reply of a mail relay.
    public var smtpReplyTimeout: TimeAmount = .seconds(15)
    /// One message's whole SMTP conversation, from connecting to the reply to the message.
    public var smtpMessageTimeout: TimeAmount = .seconds(60)
    /// A blocking function's answer; Identity Platform gives its functions seven seconds.
    public var blockingFunctionTimeout: TimeAmount = .seconds(7)
    /// A client's metadata document, redirects included: short, since a stranger names its URL.
    public var clientMetadataTimeout: TimeAmount = .seconds(5)

    public init() {}
}
