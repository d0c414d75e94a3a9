import FlintWire
import Hummingbird

/// One operation of the server under every address clients use for it, with the budgets that guard it.
struct Endpoint: Sendable {
    /// A handler gets the router's one caller resolver, so routes need not carry it.
    typealias Handler = @Sendable (Request, FlintRequestContext, CallerResolver) async throws -> Response

    let method: HTTPRequest.Method
    let paths: [String]
    /// What it takes and answers, for the OpenAPI document.
    let contract: EndpointContract
    /// The limits this endpoint spends (see `Budget`), named here so a reader of the route table sees them.
    var budgets: [Budget] = []
    let handle: Handler

    init(method: HTTPRequest.Method, paths: [String], contract: EndpointContract, budgets: [Budget] = [],
         handle: @escaping Handler) {
        self.method = method
        self.paths = paths
        self.contract = contract
        self.budgets = budgets
        self.handle = handle
    }

    /// An endpoint whose handler resolves no caller (pages, public documents).
    init(method: HTTPRequest.Method, paths: [String], contract: EndpointContract,
         handle: @escaping @Sendable (Request, FlintRequestContext) async throws -> Response) {
        self.init(method: method, paths: paths, contract: contract) { request, context, _ in try await handle(request, context) }
    }
}

extension Endpoint {
    /// The addresses of an Identity Toolkit call: host-prefixed (emulator style, what the JS and Admin SDKs
    /// send), bare (for clients given a base URL), and the legacy v3 `relyingparty` name the iOS SDK sends.
    static func identityToolkitPaths(version: String = "v1", _ name: String, legacy: String? = nil) -> [String] {
        ["/identitytoolkit.googleapis.com/\(version)/\(name)", "/\(version)/\(name)"] + (legacy.map(legacyPaths) ?? [])
    }

    /// The addresses of a legacy v3 `relyingparty` call, host-prefixed and bare.
    static func legacyPaths(_ name: String) -> [String] {
        ["/www.googleapis.com/identitytoolkit/v3/relyingparty/\(name)", "/identitytoolkit/v3/relyingparty/\(name)"]
    }

    /// An `accounts:<name>` operation: the user-facing addresses (with the v3 `legacy` name) and the admin
    /// `projects/{p}/accounts:<name>` ones (a tenant's too).
    static func accountPaths(_ name: String, legacy: String? = nil) -> [String] {
        identityToolkitPaths("accounts:\(name)", legacy: legacy) + projectPaths("accounts:\(name)")
    }

    /// An admin operation on a project, `projects/{p}/<name>`, and on one of its tenants, `projects/{p}/tenants/{t}/<name>`
    /// (the path's tenant then scopes the call, see `CallerResolver.scoped`).
    static func projectPaths(version: String = "v1", _ name: String) -> [String] {
        identityToolkitPaths(version: version, "projects/:projectId/\(name)")
            + identityToolkitPaths(version: version, "projects/:projectId/tenants/:tenantId/\(name)")
    }

    /// A JSON operation: resolve the caller, decode the body, run `operation`, encode its result.
    /// Paths may contain `:projectId`, which then names the project (admin calls). A body's
    /// `targetProjectId` is for admin callers only, as in Firebase.
    static func json<Body: Decodable & SendableMetatype, Result: Codable & SendableMetatype>(
        method: HTTPRequest.Method = .post, _ paths: [String], access: Access = .apiKey, query: [String] = [],
        budgets: [Budget] = [], _ operation: @escaping @Sendable (Body, Caller) async throws -> Result
    ) -> Endpoint {
        let contract = EndpointContract(
            credentials: .init(access), query: query, request: [.json(Body.self)], response: .json(Result.self))
        return Endpoint(method: method, paths: paths, contract: contract, budgets: budgets) { request, context, callers in
            let resolved = try await callers.resolve(request, context: context, access: access)
            let body = try await JSONBody.decode(Body.self, from: request)
            let caller = try await callers.scoped(resolved, body: body, context: context)
            if !caller.isAdmin, let scoped = body as? TargetProjectScopedRequest, !(scoped.targetProjectId ?? "").isEmpty {
                throw FlintError(.insufficientPermission, "Only authenticated requests can specify target_project_id.")
            }
            return try JSONBody.response(try await operation(body, caller))
        }
    }

    /// A legacy v3 admin operation that names its project in the body (`targetProjectId`). As in Firebase, a
    /// body without one is refused before the credentials are looked at.
    static func targetingProject<
        Body: Decodable & TargetProjectScopedRequest & SendableMetatype, Result: Codable & SendableMetatype
    >(
        legacy name: String, _ operation: @escaping @Sendable (Body, Caller) async throws -> Result
    ) -> Endpoint {
        let contract = EndpointContract(credentials: .admin, request: [.json(Body.self)], response: .json(Result.self))
        return Endpoint(method: .post, paths: legacyPaths(name), contract: contract) { request, context, callers in
            let body = try await JSONBody.decode(Body.self, from: request)
            guard let projectID = body.targetProjectId, !projectID.isEmpty else { throw FlintError(.insufficientPermission) }
            let resolved = try await callers.resolve(request, context: context, access: .admin, projectID: projectID)
            let caller = try await callers.scoped(resolved, body: body, context: context)
            return try JSONBody.response(try await operation(body, caller))
        }
    }

    /// A GET operation that needs the caller but no body; `query` names the query parameters it reads.
    static func get<Result: Codable & SendableMetatype>(
        _ paths: [String], access: Access = .apiKey, query: [String] = [],
        _ operation: @escaping @Sendable (Request, Caller) async throws -> Result
    ) -> Endpoint {
        let contract = EndpointContract(credentials: .init(access), query: query, response: .json(Result.self))
        return Endpoint(method: .get, paths: paths, contract: contract) { request, context, callers in
            // A GET names its tenant in the path or in the `tenantId` query parameter.
            let resolved = try await callers.resolve(request, context: context, access: access)
            let caller = try await callers.scoped(
                resolved, toTenant: request.uri.queryParameters.get("tenantId").flatMap { $0.isEmpty ? nil : $0 }, context: context)
            return try JSONBody.response(try await operation(request, caller))
        }
    }
}
