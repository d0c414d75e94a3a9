import Metrics
import NIOConcurrencyHelpers
import Prometheus

/// What a server measures, in Prometheus's text format at the management listener's `/metrics`.
///
/// Each server has a registry of its own, written to through swift-metrics with an explicit factory rather than
/// the process-wide `MetricsSystem.bootstrap`: several servers in one process (the tests) keep their figures
/// apart, and nothing global is set. Labels are low-cardinality by construction: route templates, provider
/// ids, outcomes — never a user id, an email or a number.
public final class ServerMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()
    private let factory: PrometheusMetricsFactory
    /// The counter and timer of each (route, method, status class): found once, not looked up per request.
    private let requestInstruments = NIOLockedValueBox<[RequestKey: (count: Metrics.Counter, duration: Metrics.Timer)]>([:])

    private let counters = NIOLockedValueBox<[InstrumentKey: Metrics.Counter]>([:])
    private let gauges = NIOLockedValueBox<[InstrumentKey: Metrics.Gauge]>([:])
    private let timers = NIOLockedValueBox<[InstrumentKey: Metrics.Timer]>([:])

    private struct InstrumentKey: Hashable {
        let name: String
        let dimensions: [String]
    }

    private struct RequestKey: Hashable {
        let route: String
        let method: String
        let statusClass: String
    }

    public init() {
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = [
            .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50),
            .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2), .seconds(5), .seconds(10),
        ]
        // Store statements take microseconds to a few milliseconds: finer buckets at the low end.
        factory.durationHistogramBuckets[Self.storeQueryDuration] = [
            .microseconds(50), .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1),
            .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50),
            .milliseconds(100), .milliseconds(250), .seconds(1),
        ]
        self.factory = factory
    }

    /// One answered HTTP request, by route template (`/v1/accounts:signUp`, `{projectId}` for parameters),
    /// method and status class (`2xx`), with its latency.
    func recordRequest(route: String, method: String, status: Int, nanoseconds: Int64) {
        let key = RequestKey(route: route, method: method, statusClass: "\(status / 100)xx")
        let instruments = requestInstruments.withLockedValue { instruments in
            if let existing = instruments[key] { return existing }
            let dimensions = [("route", key.route), ("method", key.method), ("status", key.statusClass)]
            let made = (
                count: Metrics.Counter(label: "flint_http_requests_total", dimensions: dimensions, factory: factory),
                duration: Metrics.Timer(label: "flint_http_request_duration_seconds", dimensions: dimensions, factory: factory))
            instruments[key] = made
            return made
        }
        instruments.count.increment()
        instruments.duration.recordNanoseconds(nanoseconds)
    }

    /// Adds one to the counter `name` with `dimensions` (low-cardinality values only).
    func increment(_ name: String, dimensions: [(String, String)] = []) {
        counter(name, dimensions: dimensions).increment()
    }

    /// The counter `name` with `dimensions`, for a caller that keeps it rather than finding it per event.
    func counter(_ name: String, dimensions: [(String, String)] = []) -> Metrics.Counter {
        Self.instrument(in: counters, name: name, dimensions: dimensions) {
            Metrics.Counter(label: name, dimensions: dimensions, factory: factory)
        }
    }

    /// The gauge `name` with `dimensions`.
    func gauge(_ name: String, dimensions: [(String, String)] = []) -> Metrics.Gauge {
        Self.instrument(in: gauges, name: name, dimensions: dimensions) {
            Metrics.Gauge(label: name, dimensions: dimensions, factory: factory)
        }
    }

    /// The instrument of `name` and `dimensions` in `cache`, made by `make` the first time.
    private static func instrument<Instrument>(
        in cache: NIOLockedValueBox<[InstrumentKey: Instrument]>, name: String, dimensions: [(String, String)],
        make: () -> Instrument
    ) -> Instrument {
        let key = InstrumentKey(name: name, dimensions: dimensions.map { "\($0.0)=\($0.1)" })
        return cache.withLockedValue { cache in
            if let existing = cache[key] { return existing }
            let made = make()
            cache[key] = made
            return made
        }
    }

    /// The timer `name` with `dimensions` (low-cardinality values only), made on first use: callers on hot paths
    /// keep what it returns rather than asking again.
    func timer(_ name: String, dimensions: [(String, String)]) -> Metrics.Timer {
        Self.instrument(in: timers, name: name, dimensions: dimensions) {
            Metrics.Timer(label: name, dimensions: dimensions, factory: factory)
        }
    }

    static let storeQueryDuration = "flint_store_query_duration_seconds"

    /// One outside call (see `Telemetry.outsideCall`).
    func recordOutsideCall(_ service: OutsideService, outcome: OutsideCallOutcome, duration: Duration) {
        increment("flint_outside_calls_total", dimensions: [("service", service.rawValue), ("outcome", outcome.rawValue)])
        timer("flint_outside_call_duration_seconds", dimensions: [("service", service.rawValue)]).record(duration: duration)
    }

    /// The Prometheus text exposition of every metric.
    func exposition() -> [UInt8] { registry.emitToBuffer() }
}
