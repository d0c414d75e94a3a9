import FlintWire
import Foundation
import Hummingbird

/// Secure Token refresh and the published verification keys.
struct TokenRoutes: Sendable {
    let tokens: TokenService
    let keyring: SigningKeyring
    let callers: CallerResolver
    /// The server's public URL (known once the port is bound).
    let address: PublicAddress

    var endpoints: [Endpoint] {
        var endpoints = [
            Endpoint(
                method: .post, paths: ["/securetoken.googleapis.com/v1/token", "/v1/token"],
                contract: EndpointContract(
                    credentials: .apiKey, request: [.form(["grant_type", "refresh_token"]), .json(SecureTokenRequest.self)],
                    response: .json(SecureTokenResponse.self)),
                handle: refresh),
            Endpoint(
                method: .get,
                paths: [
                    "/.well-known/jwks.json",
                    "/www.googleapis.com/service_accounts/v1/jwk/securetoken@system.gserviceaccount.com",
                    "/service_accounts/v1/jwk/securetoken@system.gserviceaccount.com",
                ],
                contract: Self.publicDocument
            ) { _, _ in Self.cacheable(try await keyring.documents.jwks) },
            Endpoint(
                method: .get,
                paths: [
                    "/www.googleapis.com/robot/v1/metadata/x509/securetoken@system.gserviceaccount.com",
                    "/robot/v1/metadata/x509/securetoken@system.gserviceaccount.com",
                ],
                contract: Self.publicDocument
            ) { _, _ in Self.cacheable(try await keyring.documents.x509) },
        ]
        // Production's discovery document is the OpenID provider's (`OAuthServer/`); the emulator's names Google's issuer.
        guard callers.policy.usesGoogleIssuers else { return endpoints }
        endpoints.append(
            Endpoint(method: .get, paths: ["/:projectId/.well-known/openid-configuration"], contract: Self.publicDocument) { _, context in
                let projectID = context.parameters.get("projectId") ?? ""
                let base = address.url
                let document: [String: JSONValue] = [
                    "issuer": .string(tokens.issuer(projectID: projectID)),
                    "jwks_uri": .string(base + "/.well-known/jwks.json"),
                    "response_types_supported": .array([.string("id_token")]),
                    "subject_types_supported": .array([.string("public")]),
                    "id_token_signing_alg_values_supported": .array([.string("RS256")]),
                ]
                return Self.cacheable(try JSONBody.encoder.encode(document))
            })
        return endpoints
    }

    /// A JSON document anyone may read: keys and discovery.
    private static let publicDocument = EndpointContract(credentials: .none, response: .anyJSONObject)

    /// `grant_type=refresh_token`, from a form or JSON body, in snake_case or camelCase.
    private func refresh(_ request: Request, _ context: FlintRequestContext) async throws -> Response {
        let fields = try await Self.fields(of: request)
        // A session refreshes in its own tenant; a body that names one must name that one.
        let caller = try await callers.scoped(
            try await callers.resolve(request, context: context, access: .apiKey),
            toTenant: (fields["tenant_id"] ?? fields["tenantId"]).flatMap { $0.isEmpty ? nil : $0 }, context: context)
        guard let grantType = fields["grant_type"] ?? fields["grantType"], !grantType.isEmpty else {
            throw FlintError(.missingGrantType)
        }
        guard grantType == "refresh_token" else { throw FlintError(.invalidGrantType) }
        guard let refreshToken = fields["refresh_token"] ?? fields["refreshToken"], !refreshToken.isEmpty else {
            throw FlintError(.missingRefreshToken)
        }
        let (idToken, user) = try await tokens.refresh(refreshToken, projectID: caller.projectID)
        return try JSONBody.response(SecureTokenResponse(
            idToken: idToken, refreshToken: refreshToken, expiresIn: String(TokenService.idTokenLifetime),
            userId: user.localID,
            projectId: callers.policy.reportsPlaceholderProjectNumber ? Self.placeholderProjectNumber : caller.project.realm.projectID))
    }

    /// The official emulator's stand-in for a project number, which Firebase's refresh answer carries.
    static let placeholderProjectNumber = "12345"

    /// Both spellings clients use, decoded as a struct (cheaper than a generic JSON tree on this hot path).
    private struct TokenRequestBody: Decodable {
        var grant_type: String?
        var grantType: String?
        var refresh_token: String?
        var refreshToken: String?
        var tenant_id: String?
        var tenantId: String?
    }

    private static func fields(of request: Request) async throws -> [String: String] {
        var fields: [String: String] = [:]
        if request.headers[.contentType]?.contains("application/x-www-form-urlencoded") == true {
            let body = String(buffer: try await JSONBody.collect(request))
            for (name, value) in FormURLEncoding.decode(body) { fields[name] = value }
        } else {
            let body = try await JSONBody.decode(TokenRequestBody.self, from: request)
            fields["grant_type"] = body.grant_type ?? body.grantType
            fields["refresh_token"] = body.refresh_token ?? body.refreshToken
            fields["tenant_id"] = body.tenant_id ?? body.tenantId
        }
        for (key, value) in request.uri.queryParameters where fields[String(key)] == nil && key != "key" {
            fields[String(key)] = String(value)
        }
        return fields
    }

    private static func cacheable(_ data: Data) -> Response {
        var response = JSONBody.response(data: data)
        // Short enough that a rotation reaches verifiers quickly.
        response.headers[.cacheControl] = "public, max-age=300"
        return response
    }
}
