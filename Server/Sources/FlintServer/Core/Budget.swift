import FlintWire

/// One limit: how many of something a subject (a client, an address, a number, a project) may have in a fixed
/// window, and the answer once it is spent. Counted in the store (`CounterStore`), so it holds across nodes;
/// every spend is one atomic increment-and-compare, taken before the work it guards.
///
/// Each budget is declared once (`Budget+Declared.swift`) and named in the route table beside every endpoint it
/// guards (`Endpoint.budgets`), where a reader finds it; the OpenAPI document and the abuse table of
/// `docs/abuse-protection.md` list the same declarations (a test compares them).
struct Budget: Sendable, Hashable, CustomStringConvertible {
    /// How many a window allows.
    enum Limit: Sendable {
        /// From the server's configuration (a `FLINT_*` variable).
        case configured(@Sendable (ServerConfiguration) -> Int64)
        /// A fixed number, Firebase's own.
        case fixed(Int64)
        /// Set per project (the spender passes it), and unlimited where the project sets none.
        case projectSetting
    }

    /// The counters' name, and how routes, the OpenAPI document and docs/abuse-protection.md name the budget.
    let name: String
    /// What one count belongs to, in words.
    let per: String
    /// The fixed window's length in seconds.
    let windowSeconds: Int64
    let limit: Limit
    /// The answer once the window's budget is spent.
    let refusal: FlintError
    /// Whether the mode keeps this limit (the emulator keeps few).
    let enforced: @Sendable (ModePolicy) -> Bool

    var description: String { name }

    /// The refusal to throw, noted in the request's audit scope, so that the trail names the budget.
    func refused() -> FlintError {
        AuditScope.current?.refusedBudget = name
        return refusal
    }

    /// The limit of a `.fixed` budget (nil for the others).
    var fixedLimit: Int64? { if case .fixed(let limit) = limit { limit } else { nil } }

    static func == (lhs: Budget, rhs: Budget) -> Bool { lhs.name == rhs.name }
    func hash(into hasher: inout Hasher) { hasher.combine(name) }
}

/// Spends budgets in the store.
struct BudgetLedger: Sendable {
    let counters: CounterStore
    let clock: any FlintClock
    let configuration: ServerConfiguration

    /// Spends one of each of `budgets` for `subject` in `realm`, all counted before any is compared (a request
    /// refused by one still took the others), and throws the first one spent. `projectLimit` is the limit of a
    /// `.projectSetting` budget; none means unlimited, and nothing is counted.
    func spend(_ budgets: Budget..., in realm: String, for subject: String? = nil, projectLimit: Int64? = nil) async throws {
        var spent: Budget?
        for budget in budgets where budget.enforced(configuration.policy) {
            Self.checkDeclared(budget)
            guard let limit = limit(of: budget, projectLimit: projectLimit) else { continue }
            let count = try await counters.incrementCounter(key(budget, realm, subject), windowStart: windowStart(of: budget))
            if count > limit, spent == nil { spent = budget }
        }
        if let spent { throw spent.refused() }
    }

    /// One spend of `budget` to be made inside the transaction of the work it guards, instead of in a transaction of
    /// its own before it: nil when the mode does not keep the budget or it has no limit.
    func transactionalSpend(_ budget: Budget, in realm: String, for subject: String? = nil) -> TransactionalSpend? {
        guard budget.enforced(configuration.policy) else { return nil }
        Self.checkDeclared(budget)
        guard let limit = limit(of: budget) else { return nil }
        return TransactionalSpend(
            budget: budget, bucket: key(budget, realm, subject), windowStart: windowStart(of: budget), limit: limit, counters: counters)
    }

    /// Gives `subject` its budget back (the right password, the right TOTP code).
    func refund(_ budget: Budget, in realm: String, for subject: String? = nil) async throws {
        guard budget.enforced(configuration.policy) else { return }
        try await counters.resetCounter(key(budget, realm, subject))
    }

    /// The configured or fixed limit of `budget` (nil for a project's setting it has not set).
    func limit(of budget: Budget, projectLimit: Int64? = nil) -> Int64? {
        switch budget.limit {
        case .configured(let read): read(configuration)
        case .fixed(let limit): limit
        case .projectSetting: projectLimit
        }
    }

    private func windowStart(of budget: Budget) -> Int64 {
        let now = clock.seconds
        return now - now % budget.windowSeconds
    }

    private func key(_ budget: Budget, _ realm: String, _ subject: String?) -> String {
        [budget.name, realm, subject].compactMap { $0 }.joined(separator: ":")
    }

    /// The budgets the endpoint being served declares (debug builds only: the router sets it, see `Endpoint`).
    @TaskLocal static var declaredByRoute: Set<String>?

    /// A spend the route table does not show is a mistake in the table: debug builds (the tests) stop on it.
    private static func checkDeclared(_ budget: Budget) {
        assert(declaredByRoute.map { $0.contains(budget.name) } ?? true,
               "budget \(budget.name) is spent by a route that does not declare it")
    }
}

/// A budget spent in the same transaction as the write it guards (a new account): one commit instead of two, on the
/// busiest write path. A refused request's count rolls back with its work, so it does not count; the budget stays
/// spent all the same, since the counts that spent it committed.
struct TransactionalSpend: Sendable {
    let budget: Budget
    let bucket: String
    let windowStart: Int64
    let limit: Int64
    let counters: CounterStore

    /// Refuses at once, counting nothing, when the budget is already spent: for work too costly to do first and
    /// refuse after (hashing a new password).
    func check() async throws {
        if try await counters.counter(bucket, windowStart: windowStart) >= limit { throw budget.refused() }
    }

    /// Counts one in `transaction`, and once the budget is spent throws its refusal (which rolls the transaction back).
    func spend(in transaction: any SQLExecutor) async throws {
        let count = try await CounterStore.incrementCounter(bucket, windowStart: windowStart, in: transaction)
        if count > limit { throw budget.refused() }
    }

    /// `spend(in:)`, for a store method that runs it in its transaction.
    var spending: @Sendable (any SQLExecutor) async throws -> Void {
        { transaction in try await spend(in: transaction) }
    }
}
