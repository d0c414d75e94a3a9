import FlintWire
import Foundation
import HTTPTypes
import Hummingbird

/// RFC 7591's dynamic client registration at `<issuer>/register`, off unless the project turns it on
/// (`oauthServer.dynamicClientRegistration`): a client that no admin registered (an MCP client meeting a server for the
/// first time) registers itself within the project's policy (which kinds of redirect URIs; `application_type` `native`
/// for loopback and private-use schemes, `web` for https). It is never first-party, gets OpenID's scopes (a resource's
/// scopes come with the resource), is budgeted per address, and is deleted if it gets no token within the policy's
/// lifetime. Software statements are not required, and their claims are not used.
enum ClientRegistration {
    /// RFC 7591 §2's client metadata, as far as Flint takes it.
    struct Request: Codable, Sendable {
        var redirect_uris: [String]?
        var client_name: String?
        var token_endpoint_auth_method: String?
        var grant_types: [String]?
        var response_types: [String]?
        var application_type: String?
        var logo_uri: String?
        var jwks_uri: String?
        var scope: String?
        var software_statement: String?
    }

    /// RFC 7591 §3.2.1's answer.
    struct Response: Codable, Sendable {
        var client_id: String
        var client_secret: String?
        var client_id_issued_at: Int64
        var client_secret_expires_at: Int64?
        var client_name: String
        var redirect_uris: [String]
        var grant_types: [String]
        var response_types: [String]
        var token_endpoint_auth_method: String
        var application_type: String
        var scope: String
    }

    /// The admin shape of a registration under `policy`, or RFC 7591 §3.2.2's error.
    static func client(from request: Request, policy: OAuthServerSettings.DynamicRegistration) throws(OAuthError) -> OAuthClient {
        let method = request.token_endpoint_auth_method ?? "client_secret_basic"
        let confidential: Bool
        switch method {
        case "none": confidential = false
        case "client_secret_basic", "client_secret_post": confidential = true
        case "private_key_jwt":
            guard request.jwks_uri != nil else { throw OAuthError(.invalidClientMetadata, "private_key_jwt needs a jwks_uri.") }
            confidential = true
        default: throw OAuthError(.invalidClientMetadata, "token_endpoint_auth_method \(method) is not served.")
        }
        let grants = request.grant_types ?? ["authorization_code"]
        let served = ["authorization_code", "refresh_token", ProviderDeviceFlow.grantType]
        guard grants.allSatisfy(served.contains), grants.contains("authorization_code") || grants.contains(ProviderDeviceFlow.grantType)
        else {
            throw OAuthError(.invalidClientMetadata, "grant_types may name authorization_code, refresh_token and the device code grant.")
        }
        guard (request.response_types ?? ["code"]) == ["code"] else {
            throw OAuthError(.invalidClientMetadata, "response_types must be [\"code\"].")
        }
        let applicationType = request.application_type ?? "web"
        guard applicationType == "web" || applicationType == "native" else {
            throw OAuthError(.invalidClientMetadata, "application_type must be web or native.")
        }
        let redirects = request.redirect_uris ?? []
        if grants.contains("authorization_code"), redirects.isEmpty {
            throw OAuthError(.invalidRedirectURI, "redirect_uris must name at least one URI.")
        }
        for uri in redirects {
            guard let kind = redirectKind(uri) else { throw OAuthError(.invalidRedirectURI, "\(uri) is not a redirect URI Flint serves.") }
            guard policy.redirectKinds.contains(kind) else {
                throw OAuthError(.invalidRedirectURI, "This project does not let clients register \(kind.rawValue) redirect URIs.")
            }
            // OpenID Connect Registration §2: a web client redirects to https; a native one to loopback or its scheme.
            guard (kind == .https) == (applicationType == "web") else {
                throw OAuthError(.invalidRedirectURI, "A \(applicationType) client may not redirect to \(uri).")
            }
        }
        let name = request.client_name.flatMap { $0.trimmingCharacters(in: .whitespaces).isEmpty ? nil : String($0.prefix(200)) }
        return OAuthClient(
            displayName: name ?? "Unnamed application", type: confidential ? OAuthClient.confidential : OAuthClient.public,
            redirectUris: redirects, allowedScopes: OAuthClientRegistry.defaultScopes, grantTypes: grants,
            firstParty: false, logoUri: request.logo_uri, jwksUri: request.jwks_uri)
    }

    /// The policy's kind of a redirect URI, or nil for one no client may have.
    static func redirectKind(_ uri: String) -> OAuthServerSettings.DynamicRegistration.RedirectKind? {
        guard let components = URLComponents(string: uri), let scheme = components.scheme?.lowercased(), components.fragment == nil
        else { return nil }
        switch scheme {
        case "https": return .https
        case "http": return components.host.map(RedirectURI.loopbackHosts.contains) == true ? .loopback : nil
        default: return scheme.contains(".") ? .privateUseScheme : nil
        }
    }
}

extension ProviderRoutes {
    var registrationEndpoints: [Endpoint] {
        let routes = self
        return [
            Endpoint(method: .post, paths: ProviderEndpoints.paths(ProviderEndpoints.register),
                     contract: EndpointContract(credentials: .none, request: [.json(ClientRegistration.Request.self)],
                                                response: .json(ClientRegistration.Response.self), failure: EndpointContract.Failure.oauth),
                     budgets: [.oauthRegistrationsPerAddress]) { request, context, _ in
                try await routes.register(request, context)
            },
        ]
    }

    private func register(_ request: Request, _ context: FlintRequestContext) async throws -> Response {
        do {
            let realm = try await realm(context)
            guard let policy = realm.settings.oauthServer?.dynamicRegistration else {
                throw OAuthError(.accessDenied, "This project does not let clients register themselves.")
            }
            let address = RequestClient.current.ipAddress.map(ClientAddress.limitKey) ?? "unknown"
            try await budgets.spendAtProtocolEndpoint(.oauthRegistrationsPerAddress, in: realm.id, for: address)
            let body: ClientRegistration.Request
            do {
                body = try await JSONBody.decode(ClientRegistration.Request.self, from: request)
            } catch {
                throw OAuthError(.invalidClientMetadata, "The body must be a JSON object of client metadata.")
            }
            let config = try ClientRegistration.client(from: body, policy: policy)
            let created: OAuthClient
            do {
                created = try await authorization.clients.create(config, realm: realm.id, unusedLifetime: policy.unusedLifetimeSeconds)
            } catch let error as FlintError {
                throw OAuthError(.invalidClientMetadata, error.message)
            }
            let answer = ClientRegistration.Response(
                client_id: created.clientId ?? "", client_secret: created.clientSecret, client_id_issued_at: clock.seconds,
                client_secret_expires_at: created.clientSecret == nil ? nil : 0, client_name: created.displayName ?? "",
                redirect_uris: created.redirectUris ?? [], grant_types: created.grantTypes ?? [], response_types: ["code"],
                token_endpoint_auth_method: body.token_endpoint_auth_method ?? created.tokenEndpointAuthMethod ?? "none",
                application_type: body.application_type ?? "web", scope: (created.allowedScopes ?? []).joined(separator: " "))
            var response = JSONBody.noStore(try JSONBody.response(answer))
            response.status = .created
            return response
        } catch let error as OAuthError {
            return error.response
        }
    }
}
