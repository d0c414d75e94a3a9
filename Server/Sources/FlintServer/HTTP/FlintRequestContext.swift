import Hummingbird
import NIOConcurrencyHelpers
import NIOCore

/// The per-request context: Hummingbird's core storage, the peer's address (for per-IP limits), and what the
/// request turned out to be about (for the middleware that counts its answer).
public struct FlintRequestContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let remoteAddress: SocketAddress?
    /// Shared by every copy of this request's context: a handler writes, the middleware around it reads.
    let attribution = RequestAttribution()

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }
}

/// What a handler learned about its request that the middleware outside it needs: contexts are values, so
/// a handler's changes to its own copy never reach the middleware; this box does.
final class RequestAttribution: Sendable {
    private let resolvedProjectID = NIOLockedValueBox<String?>(nil)

    /// The project of the request's caller, once resolved (an existing project: the id is not the caller's say-so).
    var projectID: String? {
        get { resolvedProjectID.withLockedValue { $0 } }
        set { resolvedProjectID.withLockedValue { $0 = newValue } }
    }
}
