import FlintAdminCore
import Foundation
import Hummingbird

extension RouterMethods {
    /// Serves `metadata` (RFC 9728) as `application/json` at `GET` of its well-known path, the resource's path after
    /// `/.well-known/oauth-protected-resource` (`/.well-known/oauth-protected-resource/mcp` for
    /// `https://api.example.com/mcp`), which is where ``AccessTokenMiddleware``'s challenges point and what MCP clients
    /// try first; and at `/.well-known/oauth-protected-resource` itself, which they try next and which belongs to
    /// the host's one resource. Call it on the router, not on a group: the paths are the host's.
    ///
    /// The answer may be cached for an hour and read from any origin (a browser-based client fetches it from its own):
    /// it is public.
    ///
    /// - Parameter metadata: the resource server's metadata; its `resource` gives the path.
    /// - Returns: self, for more routes.
    /// - Throws: `AdminError.Code.invalidArgument` when `metadata.resource` is not an absolute http or
    ///   https URI with a host and no fragment, which has no well-known URL.
    @discardableResult
    public func addProtectedResourceMetadata(_ metadata: ProtectedResourceMetadata) throws(AdminError) -> Self {
        guard let pathAndQuery = ProtectedResourceMetadata.wellKnownPath(for: metadata.resource) else {
            throw AdminError(.invalidArgument, "\(metadata.resource) is no absolute http(s) URI, so it has no metadata URL (RFC 9728 §3.1)")
        }
        // A router matches paths only: a resource's query, which RFC 9728 keeps in the URL, cannot be routed.
        let path = String(pathAndQuery.prefix { $0 != "?" })
        let answer: @Sendable (Request, Context) async throws -> Response = { _, _ in
            Response(status: .ok,
                     headers: [.contentType: "application/json", .cacheControl: "public, max-age=3600",
                               .accessControlAllowOrigin: "*"],
                     body: ResponseBody(byteBuffer: ByteBuffer(bytes: try metadata.jsonData())))
        }
        get(RouterPath(path), use: answer)
        if path != ProtectedResourceMetadata.wellKnownSegment {
            get(RouterPath(ProtectedResourceMetadata.wellKnownSegment), use: answer)
        }
        return self
    }
}
