import Tracing

/// What the server measures with: its metrics registry and its tracer, handed as one value to the parts that
/// measure (the request middleware, the store, the outside-call clients).
public struct Telemetry: Sendable {
    public let metrics: ServerMetrics
    public let tracer: any Tracer

    /// The defaults measure into a registry of their own and trace nothing: for parts used without a server
    /// (the CLI's store, a client in a test).
    public init(metrics: ServerMetrics = ServerMetrics(), tracer: any Tracer = NoOpTracer()) {
        self.metrics = metrics
        self.tracer = tracer
    }
}

/// The outside services Flint calls, as the outside-call metrics' `service` label: a fixed set, never a URL.
public enum OutsideService: String, Sendable {
    case apple, facebook, google, github, microsoft, jwks, apns, captcha, twilio
    /// An OpenID Connect provider's discovery document.
    case oidc
    case smsWebhook = "sms_webhook"
    /// The user-deletion webhook.
    case webhook
    /// A project's audit-trail webhook (`AuditStreamer`).
    case auditWebhook = "audit_webhook"
    /// A project's blocking function (`beforeCreate`, `beforeSignIn`).
    case blockingFunction = "blocking_function"
    case smtp

    /// The name errors give the service.
    var displayName: String {
        switch self {
        case .apple: "Apple"
        case .facebook: "Facebook"
        case .google: "Google"
        case .github: "GitHub"
        case .blockingFunction: "blocking function"
        case .microsoft: "Microsoft"
        case .oidc: "OpenID provider"
        case .jwks: "JWKS"
        case .apns: "APNs"
        case .captcha: "siteverify"
        case .twilio: "Twilio"
        case .smsWebhook: "SMS webhook"
        case .webhook: "user-deletion webhook"
        case .auditWebhook: "audit-trail webhook"
        case .smtp: "SMTP"
        }
    }
}

/// How an outside call ended, as the `outcome` label.
enum OutsideCallOutcome: String, Sendable {
    /// An answer the protocol calls a success (HTTP 2xx, the relay took the message).
    case success
    /// An answer refusing the call (another HTTP status, an SMTP reply the client did not expect).
    case rejected
    /// No usable answer: the service could not be reached, timed out, or answered too much or nonsense.
    case unavailable
}

extension Telemetry {
    /// Runs one outside call in a client span, counting it in `flint_outside_calls_total{service,outcome}` and
    /// timing it in `flint_outside_call_duration_seconds{service}`. `call` gets the span (to propagate its
    /// context); `outcome` judges what it returned; a thrown `DeliveryError.rejected` counts as rejected, any
    /// other error as unavailable.
    func outsideCall<Result>(
        _ service: OutsideService, _ call: (any Span) async throws -> Result, outcome: (Result) -> OutsideCallOutcome
    ) async throws -> Result {
        let start = ContinuousClock.now
        let span = tracer.startSpan(service.rawValue, ofKind: .client)
        var ended = OutsideCallOutcome.unavailable
        defer {
            metrics.recordOutsideCall(service, outcome: ended, duration: ContinuousClock.now - start)
            if span.isRecording {
                span.attributes["flint.outside.service"] = service.rawValue
                span.attributes["flint.outside.outcome"] = ended.rawValue
                if ended != .success { span.setStatus(SpanStatus(code: .error)) }
            }
            span.end()
        }
        do {
            let result = try await call(span)
            ended = outcome(result)
            return result
        } catch {
            if case DeliveryError.rejected = error { ended = .rejected }
            span.recordError(error)
            throw error
        }
    }
}
