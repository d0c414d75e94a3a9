import Foundation
import NIOConcurrencyHelpers

/// Who acts, in the audit trail's words (`AuditEvent.principal`).
public enum AuditPrincipal: Sendable, Equatable, CustomStringConvertible {
    /// The user themself, or a caller not signed in (a sign-in, a sign-up).
    case user
    /// An Admin SDK or API caller with a service account's credential (its key ID).
    case serviceAccount(keyID: String)
    /// An operator in the web console, signed in with a service-account key (nil: the emulator's owner).
    case console(keyID: String?)
    /// Emulator mode's `Authorization: Bearer owner`.
    case emulatorOwner
    /// The `flint` CLI working on the database directly.
    case cli
    /// Flint itself: the janitor, a policy that ended a session.
    case server

    public var description: String {
        switch self {
        case .user: "user"
        case .serviceAccount(let keyID): "serviceAccount:\(keyID)"
        case .console(let keyID): "console:\(keyID ?? "owner")"
        case .emulatorOwner: "owner"
        case .cli: "flint"
        case .server: "server"
        }
    }
}

/// What the audit trail needs to know about the work being done that the store cannot see: who does it, from where,
/// through which endpoint, at what time (the server's clock). Bound for each request (`AuditMiddleware`), for each CLI
/// command, and nowhere else; the store reads it when it writes an event (`AuditEntry`), so the features that change
/// things need not carry it through every call.
///
/// Like `CacheGeneration.scope` and `RequestClient.current`, a task-local: the request's own, never shared with another.
public final class AuditScope: Sendable {
    /// Epoch milliseconds, by the server's clock, when the work began.
    public let time: Int64
    public let ipAddress: String?
    public let userAgent: String?
    /// The endpoint being served (its route), if a request is.
    public let operation: String?
    private let state: NIOLockedValueBox<State>

    private struct State {
        var principal: AuditPrincipal
        var subject: String?
        var refusedBudget: String?
    }

    public init(time: Int64, principal: AuditPrincipal, ipAddress: String? = nil, userAgent: String? = nil, operation: String? = nil) {
        self.time = time
        self.ipAddress = ipAddress
        self.userAgent = userAgent
        self.operation = operation
        state = NIOLockedValueBox(State(principal: principal))
    }

    /// The current work's scope; nil outside a request or command (events then name `server`, and `clock`'s time).
    @TaskLocal public static var current: AuditScope?

    /// The clock of events written outside a request or command: the server's, bound while it opens and runs
    /// (`AuthServer`), so that the trail, which pages in time order, has one clock.
    @TaskLocal public static var clock: any FlintClock = SystemClock()

    /// Who acts: the caller's credentials decide it once they are checked (`CallerResolver`, the console's session).
    public internal(set) var principal: AuditPrincipal {
        get { state.withLockedValue { $0.principal } }
        set { state.withLockedValue { $0.principal = newValue } }
    }

    /// The user a failed request was about, once the service found it (a wrong password's account).
    var subject: String? {
        get { state.withLockedValue { $0.subject } }
        set { state.withLockedValue { $0.subject = newValue } }
    }

    /// The budget that refused the request, if one did (`BudgetLedger`).
    var refusedBudget: String? {
        get { state.withLockedValue { $0.refusedBudget } }
        set { state.withLockedValue { $0.refusedBudget = newValue } }
    }
}
