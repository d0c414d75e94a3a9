import FlintWire
import Foundation
import Hummingbird

/// One kind of identity-provider configuration the admin API manages, all kept in the project's
/// `identityProviders` under the provider's id: the built-in providers (`defaultSupportedIdpConfigs`), OpenID Connect
/// providers (`oauthIdpConfigs`) and SAML providers (`inboundSamlConfigs`).
protocol ProviderConfigKind: Sendable {
    associatedtype Config: Codable & Sendable & SendableMetatype
    associatedtype Page: Codable & Sendable & SendableMetatype
    /// The collection's name in `v2/projects/{p}/…`.
    static var collection: String { get }
    /// The query parameter that names a new provider's id.
    static var idParameter: String { get }
    /// The id, if it is one of this kind; else `INVALID_PROVIDER_ID`.
    static func providerID(_ raw: String?) throws -> String
    static func isOfThisKind(_ id: String) -> Bool
    /// The stored provider as the wire shows it (secrets redacted).
    static func config(_ provider: ProjectSettings.IdentityProvider, id: String, projectID: String) -> Config
    static func page(_ configs: [Config], nextPageToken: String?) -> Page
    /// Where the configurations are kept.
    var projects: ProjectDirectory { get }
    /// Creates or changes a provider: every field present in `body`, or those `mask` names.
    func save(_ id: String, _ body: Config, mask: UpdateMask?, caller: Caller) async throws -> Config
}

extension ProviderConfigKind {
    /// `prefix` and a name of letters, digits, `-`, `_` and `.` (at most 100 characters in all), the rule Identity
    /// Platform applies to the ids of OpenID Connect and SAML providers; else `INVALID_PROVIDER_ID`, `problem`.
    static func namedProviderID(_ raw: String?, prefix: String, problem: String) throws -> String {
        guard let raw, raw.hasPrefix(prefix), raw.count > prefix.count, raw.count <= 100,
              raw.unicodeScalars.allSatisfy({ CharacterSet.alphanumerics.contains($0) || "-_.".unicodeScalars.contains($0) })
        else { throw FlintError(.invalidProviderID, problem) }
        return raw
    }

    /// A page of the realm's providers of this kind in id order: `pageSize` (1…100, 100 without one) after `pageToken`.
    func list(pageSize: Int?, pageToken: String?, caller: Caller) -> Page {
        let size = min(100, max(1, pageSize ?? 100))
        let ids = caller.project.settings.identityProviders.keys.filter { Self.isOfThisKind($0) && $0 > (pageToken ?? "") }.sorted()
        let shown = ids.prefix(size)
        return Self.page(shown.compactMap { id in
            caller.project.settings.identityProviders[id].map { Self.config($0, id: id, projectID: caller.projectID) }
        }, nextPageToken: ids.count > size ? shown.last : nil)
    }

    /// The provider `id` names; `CONFIGURATION_NOT_FOUND` when the realm has none.
    func existing(_ id: String, caller: Caller) throws -> Config {
        guard let provider = caller.project.settings.identityProviders[id] else {
            throw FlintError(.configurationNotFound, status: .notFound)
        }
        return Self.config(provider, id: id, projectID: caller.projectID)
    }

    /// A new provider; `DUPLICATE_IDP_CONFIG` when the id is taken.
    func create(_ id: String, _ body: Config, caller: Caller) async throws -> Config {
        if caller.project.settings.identityProviders[id] != nil {
            throw FlintError(sentence: "DUPLICATE_IDP_CONFIG", status: .conflict, reason: "alreadyExists")
        }
        return try await save(id, body, mask: nil, caller: caller)
    }

    /// Removes the provider `id` names; `CONFIGURATION_NOT_FOUND` when the realm has none.
    func delete(_ id: String, caller: Caller) async throws {
        _ = try existing(id, caller: caller)
        try await projects.updateSettings(caller.projectID) { $0.identityProviders[id] = nil }
    }

    /// Lists (a page of `pageSize`, at most 100, after `pageToken`), creates, reads, changes and deletes.
    var endpoints: [Endpoint] {
        let collection = Endpoint.projectPaths(version: "v2", Self.collection)
        let item = Endpoint.projectPaths(version: "v2", "\(Self.collection)/:providerId")
        func contract(query: [String] = [], body: Bool = true) -> EndpointContract {
            EndpointContract(credentials: .admin, query: query, request: body ? [.json(Config.self)] : [], response: .json(Config.self))
        }
        /// The caller and the provider id the path names.
        @Sendable func named(_ request: Request, _ context: FlintRequestContext, _ callers: CallerResolver) async throws -> (Caller, String) {
            (try await callers.resolve(request, context: context, access: .admin), try Self.providerID(context.parameters.get("providerId")))
        }
        return [
            .get(collection, access: .admin, query: ["pageSize", "pageToken"]) { request, caller in
                list(pageSize: request.uri.queryParameters.get("pageSize").flatMap { Int($0) },
                     pageToken: request.uri.queryParameters.get("pageToken").flatMap { $0.isEmpty ? nil : $0 }, caller: caller)
            },
            Endpoint(method: .post, paths: collection, contract: contract(query: [Self.idParameter])) { request, context, callers in
                let caller = try await callers.resolve(request, context: context, access: .admin)
                let id = try Self.providerID(request.uri.queryParameters.get(Self.idParameter))
                return try JSONBody.response(try await create(id, try await JSONBody.decode(Config.self, from: request), caller: caller))
            },
            Endpoint(method: .get, paths: item, contract: contract(body: false)) { request, context, callers in
                let (caller, id) = try await named(request, context, callers)
                return try JSONBody.response(try existing(id, caller: caller))
            },
            Endpoint(method: .patch, paths: item, contract: contract(query: ["updateMask"])) { request, context, callers in
                let (caller, id) = try await named(request, context, callers)
                _ = try existing(id, caller: caller)
                let body = try await JSONBody.decode(Config.self, from: request)
                let mask = request.uri.queryParameters.get("updateMask").map(UpdateMask.init(_:))
                return try JSONBody.response(try await save(id, body, mask: mask, caller: caller))
            },
            Endpoint(method: .delete, paths: item, contract: EndpointContract(credentials: .admin, response: .anyJSONObject)) { request, context, callers in
                let (caller, id) = try await named(request, context, callers)
                try await delete(id, caller: caller)
                return JSONBody.response(data: Data("{}".utf8))
            },
        ]
    }
}
