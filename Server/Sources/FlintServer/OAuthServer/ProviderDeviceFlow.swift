import FlintWire
import Foundation
import HTTPTypes
import Hummingbird

/// RFC 8628's device authorization grant, for CLIs and TVs: the device asks `<issuer>/device_authorization` for a
/// device code and a user code, shows the user code and `<issuer>/device`, and polls the token endpoint; on that page
/// the user types the code, signs in and consents through the same flow as any authorization (Flint's page or the
/// team's), whose decision goes to the device instead of a redirect URI. Both codes are stored hashed; a user code is
/// 8 letters from an alphabet without vowels or look-alikes, lives 10 minutes, and its guesses are budgeted.
enum ProviderDeviceFlow {
    static let grantType = "urn:ietf:params:oauth:grant-type:device_code"
    static let lifetime: Int64 = 600
    static let interval: Int64 = 5
    /// RFC 8628 §6.1's example: 20 consonants, 8 of them (34 bits), shown as `BDFH-JKLM`.
    static let alphabet: StaticString = "BCDFGHJKLMNPQRSTVWXZ"
    static let userCodeLength = 8

    /// What the device asked for.
    struct Request: Codable, Sendable {
        var scopes: [String]
        var resources: [String]?
    }

    /// What the user granted: the device's tokens are made from it.
    struct Grant: Codable, Sendable {
        var localID: String
        var grant: ProviderGrant
    }

    /// RFC 8628 §3.2's answer.
    struct AuthorizationResponse: Codable, Sendable {
        var device_code: String
        var user_code: String
        var verification_uri: String
        var verification_uri_complete: String
        var expires_in: Int64
        var interval: Int64
    }

    /// A user code as typed (any case, dashes and spaces ignored), or nil if it cannot be one.
    static func normalized(_ typed: String) -> String? {
        let code = typed.uppercased().filter { $0 != "-" && !$0.isWhitespace }
        let letters = Set(alphabet.description)
        guard code.count == userCodeLength, code.allSatisfy(letters.contains) else { return nil }
        return code
    }

    /// Records the user's decision for the device (`grant`, or nil for a refusal); where the browser goes next: the
    /// device page, saying so.
    static func decide(_ userCodeHash: String, grant: Grant?, request: PendingAuthorization, store: OAuthStore, now: Int64)
        async throws -> String {
        let payload = try grant.map { String(decoding: try JSONBody.encoder.encode($0), as: UTF8.self) }
        let decided = try await store.decideDeviceCode(userCodeHash: userCodeHash, grant: payload, now: now)
        let outcome = !decided ? "expired" : grant == nil ? "denied" : "approved"
        return RedirectURI.adding([("done", outcome)], to: request.redirectURI)
    }
}

// MARK: The device's calls

extension ProviderGrants {
    /// `POST <issuer>/device_authorization`: a device code and a user code for the client's `scope` and `resource`s.
    func deviceAuthorization(_ request: Request, realm: String) async throws -> ProviderDeviceFlow.AuthorizationResponse {
        let client = try await authenticate(request, realm: realm)
        guard client.allows(grantType: ProviderDeviceFlow.grantType) else {
            throw OAuthError(.unauthorizedClient, "The client may not use the device authorization grant.")
        }
        let resources = try await registered(Scopes.parse(request.fields["resource"]) ?? [], for: client)
        guard let scopes = Scopes.parse(request.fields["scope"]), !scopes.isEmpty else {
            throw OAuthError(.invalidScope, "scope must name at least one scope.")
        }
        if let unknown = ProviderAuthorization.scopeNotAllowed(scopes, client: client, resources: resources) {
            throw OAuthError(.invalidScope, "The client may not ask for \(unknown).")
        }
        let deviceCode = random.token(byteCount: 32)
        let userCode = random.string(length: ProviderDeviceFlow.userCodeLength, alphabet: ProviderDeviceFlow.alphabet)
        let now = clock.seconds
        let asked = ProviderDeviceFlow.Request(scopes: scopes, resources: resources.isEmpty ? nil : resources.map(\.resource))
        try await store.insertDeviceCode(OAuthDeviceCodeRow(
            deviceCodeHash: Hex.sha256(deviceCode), userCodeHash: Hex.sha256(userCode), realm: realm, clientID: client.clientID,
            request: String(decoding: try JSONBody.encoder.encode(asked), as: UTF8.self),
            expiresAt: now + ProviderDeviceFlow.lifetime, pollInterval: ProviderDeviceFlow.interval))
        let page = tokens.issuer(realm: realm) + ProviderEndpoints.device
        return ProviderDeviceFlow.AuthorizationResponse(
            device_code: deviceCode, user_code: String(userCode.prefix(4)) + "-" + String(userCode.suffix(4)), verification_uri: page,
            verification_uri_complete: RedirectURI.adding([("user_code", userCode)], to: page),
            expires_in: ProviderDeviceFlow.lifetime, interval: ProviderDeviceFlow.interval)
    }

    /// The token endpoint's device code grant (RFC 8628 §3.4): `authorization_pending` until the user decides,
    /// `slow_down` to a device polling faster than its interval, then the tokens once, or `access_denied` or
    /// `expired_token`.
    func deviceToken(_ fields: [String: String], client: RegisteredClient) async throws -> TokenResponse {
        guard let deviceCode = fields["device_code"], (1...128).contains(deviceCode.utf8.count) else {
            throw OAuthError(.invalidRequest, "device_code is missing.")
        }
        let familyID = random.timeOrderedID(milliseconds: clock.milliseconds)
        let refreshToken = client.allows(grantType: "refresh_token") ? random.token(byteCount: 32) : nil
        let now = clock.seconds
        let poll = try await store.pollDeviceCode(hash: Hex.sha256(deviceCode), clientID: client.clientID, now: now) { payload, tx in
            guard let decided = try? JSONBody.decoder.decode(ProviderDeviceFlow.Grant.self, from: Data(payload.utf8)) else {
                throw OAuthError(.serverError)
            }
            try await OAuthStore.insertFamily(OAuthFamilyRow(
                familyID: familyID, realm: client.realm, localID: decided.localID, clientID: client.clientID,
                grant: String(decoding: try JSONBody.encoder.encode(decided.grant), as: UTF8.self), createdAt: now, revokedAt: nil),
                refreshTokenHash: refreshToken.map(Hex.sha256), tx)
        }
        switch poll {
        case .pending(let slowDown):
            throw slowDown ? OAuthError(.slowDown, "Poll less often: wait the interval, now five seconds longer.")
                : OAuthError(.authorizationPending, "The user has not finished yet.")
        case .denied: throw OAuthError(.accessDenied, "The user did not allow the device.")
        case .expired: throw OAuthError(.expiredToken, "The device code has expired; ask for a new one.")
        case .unknown: throw OAuthError(.invalidGrant, "The device code is not valid: unknown, another client's, or used.")
        case .approved(let payload):
            guard let decided = try? JSONBody.decoder.decode(ProviderDeviceFlow.Grant.self, from: Data(payload.utf8)) else {
                throw OAuthError(.serverError)
            }
            let family = OAuthFamilyRow(familyID: familyID, realm: client.realm, localID: decided.localID, clientID: client.clientID,
                                        grant: payload, createdAt: now, revokedAt: nil)
            let user = try await liveUser(of: family)
            return try await issue(for: user, client: client, grant: decided.grant, scopes: decided.grant.scopes,
                                   resources: decided.grant.resources, familyID: familyID, refreshToken: refreshToken,
                                   includeNonce: false)
        }
    }
}

// MARK: The user's page

extension ProviderRoutes {
    var deviceEndpoints: [Endpoint] {
        let routes = self
        return [
            Endpoint(method: .post, paths: ProviderEndpoints.paths(ProviderEndpoints.deviceAuthorization),
                     contract: EndpointContract(
                        credentials: .none,
                        request: [.form(["client_id", "scope", "resource", "client_secret", "client_assertion_type", "client_assertion"])],
                        response: .json(ProviderDeviceFlow.AuthorizationResponse.self), failure: EndpointContract.Failure.oauth),
                     budgets: [.oauthTokenRequestsPerAddress, .oauthClientAuthenticationFailures]) { request, context, _ in
                try await routes.backChannel(request, context) { grantRequest, realm in
                    JSONBody.noStore(try JSONBody.response(try await routes.grants.deviceAuthorization(grantRequest, realm: realm)))
                }
            },
            Endpoint(method: .get, paths: ProviderEndpoints.paths(ProviderEndpoints.device),
                     contract: .page(query: ["user_code", "done", "error", "error_description", "iss"])) { request, context, _ in
                let realm = try await routes.realm(context)
                let query = request.uri.queryParameters
                return ProviderPages.device(userCode: query.get("user_code") ?? "", done: query.get("done") ?? query.get("error"),
                                            notice: nil, brand: ProviderPages.Brand(realm))
            },
            Endpoint(method: .post, paths: ProviderEndpoints.paths(ProviderEndpoints.device), contract: .page(form: ["user_code"]),
                     budgets: [.oauthDeviceCodeAttempts]) { request, context, _ in
                try await routes.enterUserCode(request, context, try await FormBody.fields(of: request, upTo: 4 * 1024))
            },
        ]
    }

    /// The code the user typed: a live, undecided device authorization of this realm begins the browser's part, as an
    /// authorization request would (sign-in, consent); anything else shows the page again, saying so. Guesses are
    /// budgeted per address.
    private func enterUserCode(_ request: Request, _ context: FlintRequestContext, _ form: [String: String]) async throws -> Response {
        let realm = try await realm(context)
        let brand = ProviderPages.Brand(realm)
        let client = RequestClient.current
        do {
            try await budgets.spend(.oauthDeviceCodeAttempts, in: realm.id, for: client.ipAddress.map(ClientAddress.limitKey) ?? "unknown")
        } catch let error as FlintError where error.status == .tooManyRequests || error.is(.tooManyAttempts) {
            return ProviderPages.device(userCode: "", done: nil, notice: .tooManyAttempts, brand: brand, status: .tooManyRequests)
        }
        let now = clock.seconds
        guard let code = ProviderDeviceFlow.normalized(form["user_code"] ?? ""),
              let row = try await authorization.store.pendingDeviceCode(userCodeHash: Hex.sha256(code), realm: realm.id, now: now),
              let registered = try await authorization.clients.client(row.clientID, realm: realm.id),
              let asked = try? JSONBody.decoder.decode(ProviderDeviceFlow.Request.self, from: Data(row.request.utf8))
        else {
            return ProviderPages.device(userCode: form["user_code"] ?? "", done: nil, notice: .unknownCode, brand: brand,
                                        status: .badRequest)
        }
        let (browser, newBrowser) = browserID(request)
        let pending = PendingAuthorization(
            realm: realm.id, clientID: registered.clientID, redirectURI: "/" + realm.id + ProviderEndpoints.device, state: nil,
            scopes: asked.scopes, nonce: nil, codeChallenge: "", prompts: [], maxAge: nil, loginHint: nil,
            uiLocales: client.locale.map { [$0] } ?? [], requiresMultiFactor: false, browserHash: Hex.sha256(browser),
            startedAt: now, resources: asked.resources, deviceUserCodeHash: row.userCodeHash)
        var response = try await proceed(with: pending, client: registered, request: request, realm: realm)
        if newBrowser { response.setCookie(browserCookie(browser)) }
        return response
    }
}
