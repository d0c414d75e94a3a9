import Hummingbird

/// One operation of the server under every address clients use for it.
struct Endpoint: Sendable {
    typealias Handler = @Sendable (Request, FlintRequestContext) async throws -> Response

    let method: HTTPRequest.Method
    let paths: [String]
    let handle: Handler
}

extension Endpoint {
    /// The addresses of an Identity Toolkit call: host-prefixed (emulator style, what the JS and Admin SDKs
    /// send), bare (for clients given a base URL), and the legacy v3 `relyingparty` name the iOS SDK sends.
    static func identityToolkitPaths(version: String = "v1", _ name: String, legacy: String? = nil) -> [String] {
        var paths = ["/identitytoolkit.googleapis.com/\(version)/\(name)", "/\(version)/\(name)"]
        if let legacy {
            paths += ["/www.googleapis.com/identitytoolkit/v3/relyingparty/\(legacy)", "/identitytoolkit/v3/relyingparty/\(legacy)"]
        }
        return paths
    }

    /// An `accounts:<name>` operation: the user-facing addresses (with the v3 `legacy` name) and the admin
    /// `projects/{p}/accounts:<name>` ones.
    static func accountPaths(_ name: String, legacy: String? = nil) -> [String] {
        identityToolkitPaths("accounts:\(name)", legacy: legacy) + identityToolkitPaths("projects/:projectId/accounts:\(name)")
    }

    /// A JSON operation: decode the body, resolve the caller, run `operation`, encode its result.
    /// Paths may contain `:projectId`, which then names the project (admin calls).
    static func json<Body: Decodable & SendableMetatype, Result: Encodable & SendableMetatype>(
        method: HTTPRequest.Method = .post, _ paths: [String], access: Access = .apiKey, callers: CallerResolver,
        _ operation: @escaping @Sendable (Body, Caller) async throws -> Result
    ) -> Endpoint {
        Endpoint(method: method, paths: paths) { request, context in
            let caller = try await callers.resolve(request, context: context, access: access)
            let body = try await JSONBody.decode(Body.self, from: request)
            return try JSONBody.response(try await operation(body, caller))
        }
    }

    /// A GET operation that needs the caller but no body.
    static func get<Result: Encodable & SendableMetatype>(
        _ paths: [String], access: Access = .apiKey, callers: CallerResolver,
        _ operation: @escaping @Sendable (Request, Caller) async throws -> Result
    ) -> Endpoint {
        Endpoint(method: .get, paths: paths) { request, context in
            let caller = try await callers.resolve(request, context: context, access: access)
            return try JSONBody.response(try await operation(request, caller))
        }
    }
}
