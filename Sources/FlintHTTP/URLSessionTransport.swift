import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// The HTTP transport FlintAuth and FlintAdmin share: Foundation's URLSession, so neither needs a package.

/// Sends one HTTP request. `URLSessionTransport` in production; tests substitute recording clients.
public protocol HTTPTransport: Sendable {
    func data(for request: URLRequest) async throws -> (Data, URLResponse)
}

/// The production transport: an ephemeral `URLSession` (no cookies, no cache) shared by every client.
public struct URLSessionTransport: HTTPTransport {
    public static let shared = URLSessionTransport()

    private let session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        return URLSession(configuration: configuration)
    }()

    /// Through a completion-handler task: `URLSession.data(for:)` needs macOS 12, and FlintAuth's floor is macOS 11.
    /// Cancelling the calling task cancels the request.
    public func data(for request: URLRequest) async throws -> (Data, URLResponse) {
        let running = RunningTask()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let task = session.dataTask(with: request) { data, response, error in
                    if let data, let response {
                        continuation.resume(returning: (data, response))
                    } else {
                        continuation.resume(throwing: error ?? URLError(.badServerResponse))
                    }
                }
                running.start(task)
            }
        } onCancel: {
            running.cancel()
        }
    }
}

/// The request's task, for a cancellation that may come before or after it starts.
private final class RunningTask: @unchecked Sendable {
    // @unchecked Sendable: both properties are only touched under `lock`.
    private let lock = NSLock()
    private var task: URLSessionDataTask?
    private var cancelled = false

    func start(_ task: URLSessionDataTask) {
        lock.lock()
        self.task = task
        let cancelled = self.cancelled
        lock.unlock()
        task.resume()
        if cancelled { task.cancel() }
    }

    func cancel() {
        lock.lock()
        cancelled = true
        let task = self.task
        lock.unlock()
        task?.cancel()
    }
}
