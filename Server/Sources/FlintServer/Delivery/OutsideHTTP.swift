import AsyncHTTPClient
import Foundation
import Instrumentation
import NIOHTTP1

/// How Flint calls outside HTTP services: one client, the bounds of every call (`OutsideCallLimits`) and the
/// server's telemetry, passed as one value to every client of an outside service.
public struct OutsideHTTP: Sendable {
    public let client: HTTPClient
    public let limits: OutsideCallLimits
    public let telemetry: Telemetry

    public init(client: HTTPClient, limits: OutsideCallLimits = OutsideCallLimits(), telemetry: Telemetry = Telemetry()) {
        self.client = client
        self.limits = limits
        self.telemetry = telemetry
    }

    /// Sends `request` to `service` and reads the answer, within `limits.requestTimeout` from start to the last
    /// byte and up to `limits.maximumResponseBytes`, in a client span whose context goes along as `traceparent`.
    /// Transport failures, timeouts and oversized answers become `DeliveryError.unavailable` naming the service;
    /// HTTP error statuses are returned for the caller to judge (and counted as rejected).
    func send(_ request: HTTPClientRequest, to service: OutsideService) async throws -> DeliveryHTTP.Answer {
        try await telemetry.outsideCall(service) { span in
            var traced = request
            telemetry.tracer.inject(span.context, into: &traced.headers, using: HTTPHeadersInjector())
            let request = traced
            do {
                // The client's own deadline ends when the answer's head arrives; the body is bounded here.
                return try await withDeadline(limits.requestTimeout) {
                    let response = try await client.execute(request, timeout: limits.requestTimeout)
                    let body = try await response.body.collect(upTo: limits.maximumResponseBytes)
                    return DeliveryHTTP.Answer(status: Int(response.status.code), headers: response.headers,
                                               body: Data(body.readableBytesView))
                }
            } catch {
                throw DeliveryError.unavailable("\(service.displayName): \(error)")
            }
        } outcome: { answer in
            answer.isSuccess ? .success : .rejected
        }
    }
}

/// Writes trace context into an outgoing request's headers.
private struct HTTPHeadersInjector: Injector {
    func inject(_ value: String, forKey key: String, into headers: inout HTTPHeaders) {
        headers.replaceOrAdd(name: key, value: value)
    }
}
