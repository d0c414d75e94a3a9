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

extension OutsideHTTP {
    /// A GET to an identity provider's API (Facebook's Graph API, Google's OAuth endpoints, OpenID discovery). Not
    /// reaching it, or a server error from it, is an outage (503 naming the service); other answers are returned for
    /// the caller to judge.
    func providerGET(_ url: String, from service: OutsideService, bearer: String? = nil) async throws -> DeliveryHTTP.Answer {
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "user-agent", value: "Flint")
        if let bearer { request.headers.add(name: "authorization", value: "Bearer \(bearer)") }
        return try await providerSend(request, to: service)
    }

    /// `request` to an identity provider's API, with `providerGET`'s rule for outages.
    func providerSend(_ request: HTTPClientRequest, to service: OutsideService) async throws -> DeliveryHTTP.Answer {
        let answer: DeliveryHTTP.Answer
        do {
            answer = try await send(request, to: service)
        } catch {
            throw FlintError.unavailable(service.displayName, cause: error)
        }
        guard answer.status < 500 else {
            throw FlintError.unavailable(service.displayName, cause: DeliveryError.rejected(status: answer.status, detail: answer.bodyText))
        }
        return answer
    }
}

/// Writes trace context into an outgoing request's headers.
private struct HTTPHeadersInjector: Injector {
    func inject(_ value: String, forKey key: String, into headers: inout HTTPHeaders) {
        headers.replaceOrAdd(name: key, value: value)
    }
}
