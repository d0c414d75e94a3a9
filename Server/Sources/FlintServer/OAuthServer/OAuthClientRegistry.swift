import FlintWire
import Foundation

/// A client of the provider as it is kept: its settings (JSON in the store) beside its ID, realm and secret's hash.
struct RegisteredClient: Sendable {
    /// What the admin sets; the store keeps it as JSON.
    struct Settings: Codable, Sendable, Equatable {
        var displayName: String
        var confidential: Bool
        var redirectURIs: [String]
        var postLogoutRedirectURIs: [String] = []
        var allowedScopes: [String]
        var grantTypes: [String]
        var firstParty = false
        var logoURI: String?
        var ownerName: String?
        var jwksURI: String?
        /// Registered by the client itself (RFC 7591).
        var registeredDynamically: Bool?
    }

    let clientID: String
    /// The key of the realm (project or tenant) whose users the client signs in.
    let realm: String
    var settings: Settings
    let secretHash: String?
    let createdAt: Int64

    /// How the client proves itself at the token endpoint: a public client does not; a confidential one with its
    /// secret (in the `Authorization` header or the form) or with a JWT signed by a key at its JWKS URI.
    var authenticationMethod: String {
        if !settings.confidential { return "none" }
        return settings.jwksURI == nil ? "client_secret_basic" : "private_key_jwt"
    }

    func allows(grantType: String) -> Bool { settings.grantTypes.contains(grantType) }
}

/// The provider's clients: created, read, changed and deleted by the admin API (`OAuthClientRoutes`), the CLI and the
/// console; looked up by the protocol endpoints. A client belongs to one realm; its secret is random, shown once and
/// kept as its SHA-256 (a 256-bit random secret needs no slow hash), compared in constant time.
struct OAuthClientRegistry: Sendable {
    let store: OAuthStore
    let clock: any FlintClock
    let random: any RandomSource
    /// The clients named by the URL of their metadata document instead.
    let documents: ClientMetadataDocuments

    init(core: ServerCore, fetch: UntrustedFetch) {
        store = core.store.oauth
        clock = core.clock
        random = core.random
        documents = ClientMetadataDocuments(fetch: fetch, projects: core.projects, store: core.store.oauth, clock: core.clock)
    }

    /// The scopes a client may ask for when its admin names none.
    static let defaultScopes = ["openid", "email", "profile", "phone", "offline_access"]
    /// The grants of this provider (RFC 6749's names).
    static let supportedGrantTypes = ["authorization_code", "refresh_token", "client_credentials", ProviderDeviceFlow.grantType]
    /// A client's grants when its admin names none.
    static let defaultGrantTypes = ["authorization_code", "refresh_token"]
    /// A page holds at most this many clients.
    static let maximumPageSize = 100

    /// A new client in `realm` with a fresh ID (and, for a confidential client without a JWKS URI, a fresh secret,
    /// which the answer carries this once).
    ///
    /// A client that registers itself (`unusedLifetime`, RFC 7591) is marked so, and deleted by the janitor if it has
    /// no token by then.
    func create(_ config: OAuthClient, realm: String, unusedLifetime: Int64? = nil) async throws -> OAuthClient {
        var settings = try Self.settings(from: config, over: nil)
        if unusedLifetime != nil { settings.registeredDynamically = true }
        let clientID = random.string(length: 24, alphabet: Self.idAlphabet)
        let secret = settings.confidential && settings.jwksURI == nil ? random.token(byteCount: 32) : nil
        let client = RegisteredClient(clientID: clientID, realm: realm, settings: settings, secretHash: secret.map(Self.hash),
                                      createdAt: clock.seconds)
        try await store.insertClient(OAuthClientRow(
            clientID: clientID, realm: realm, settings: try Self.encode(settings), secretHash: client.secretHash,
            createdAt: client.createdAt, unusedExpiry: unusedLifetime.map { client.createdAt + $0 }))
        var shown = Self.shown(client)
        shown.clientSecret = secret
        return shown
    }

    /// A client of `realm`, or nil. An https URL names a Client ID Metadata Document (where the realm takes them): a
    /// document that cannot be used throws `OAuthError(.invalidClient)` saying why.
    func client(_ clientID: String, realm: String) async throws -> RegisteredClient? {
        if ClientMetadataDocuments.isDocumentURL(clientID) { return try await documents.client(clientID, realm: realm) }
        guard (1...128).contains(clientID.utf8.count), let row = try await store.client(clientID), row.realm == realm,
              let settings = try? JSONBody.decoder.decode(Settings.self, from: Data(row.settings.utf8))
        else { return nil }
        return RegisteredClient(clientID: row.clientID, realm: row.realm, settings: settings, secretHash: row.secretHash,
                                createdAt: row.createdAt)
    }

    typealias Settings = RegisteredClient.Settings

    /// A registered client of `realm`, for its admin (never one named by a metadata document).
    func existing(_ clientID: String, realm: String) async throws -> RegisteredClient {
        guard !ClientMetadataDocuments.isDocumentURL(clientID), let client = try await client(clientID, realm: realm)
        else { throw Self.notFound }
        return client
    }

    func list(realm: String, pageSize: String?, pageToken: String?) async throws -> ListOAuthClientsResponse {
        let size = pageSize.flatMap { Int($0) }.map { min(Self.maximumPageSize, max(1, $0)) } ?? Self.maximumPageSize
        let rows = try await store.clients(realm: realm, after: pageToken.flatMap { $0.isEmpty ? nil : $0 }, limit: size)
        let clients = rows.compactMap { row in
            (try? JSONBody.decoder.decode(Settings.self, from: Data(row.settings.utf8))).map {
                Self.shown(RegisteredClient(clientID: row.clientID, realm: row.realm, settings: $0, secretHash: row.secretHash,
                                            createdAt: row.createdAt))
            }
        }
        return ListOAuthClientsResponse(oauthClients: clients, nextPageToken: rows.count == size ? rows.last?.clientID : nil)
    }

    /// Applies the fields `mask` names (all the body has, without one). The type is fixed at creation.
    func update(_ clientID: String, realm: String, with change: OAuthClient, mask: UpdateMask?) async throws -> OAuthClient {
        var client = try await existing(clientID, realm: realm)
        if change.type != nil, mask.covers("type", present: true), change.type != Self.shownType(client.settings) {
            throw FlintError(.invalidOAuthClient, "A client's type cannot change; create a new client.")
        }
        var merged = Self.shown(client)
        if mask.covers("displayName", present: change.displayName != nil) { merged.displayName = change.displayName }
        if mask.covers("redirectUris", present: change.redirectUris != nil) { merged.redirectUris = change.redirectUris }
        if mask.covers("postLogoutRedirectUris", present: change.postLogoutRedirectUris != nil) {
            merged.postLogoutRedirectUris = change.postLogoutRedirectUris
        }
        if mask.covers("allowedScopes", present: change.allowedScopes != nil) { merged.allowedScopes = change.allowedScopes }
        if mask.covers("grantTypes", present: change.grantTypes != nil) { merged.grantTypes = change.grantTypes }
        if mask.covers("firstParty", present: change.firstParty != nil) { merged.firstParty = change.firstParty }
        if mask.covers("logoUri", present: change.logoUri != nil) { merged.logoUri = change.logoUri }
        if mask.covers("ownerName", present: change.ownerName != nil) { merged.ownerName = change.ownerName }
        if mask.covers("jwksUri", present: change.jwksUri != nil) { merged.jwksUri = change.jwksUri }
        let registeredDynamically = client.settings.registeredDynamically
        client.settings = try Self.settings(from: merged, over: client.settings)
        client.settings.registeredDynamically = registeredDynamically
        // A client that moves to private_key_jwt gives up its secret; one that leaves it needs a rotation for one.
        let secretHash: String?? = client.settings.jwksURI != nil && client.secretHash != nil ? .some(nil) : nil
        guard try await store.updateClient(clientID, settings: try Self.encode(client.settings), secretHash: secretHash) else {
            throw Self.notFound
        }
        return Self.shown(client)
    }

    /// A new secret for a confidential client; the old one stops working at once.
    func rotateSecret(_ clientID: String, realm: String) async throws -> OAuthClient {
        let client = try await existing(clientID, realm: realm)
        guard client.settings.confidential, client.settings.jwksURI == nil else {
            throw FlintError(.invalidOAuthClient, "Only a confidential client without a JWKS URI has a secret.")
        }
        let secret = random.token(byteCount: 32)
        guard try await store.updateClient(clientID, settings: try Self.encode(client.settings), secretHash: .some(Self.hash(secret)))
        else { throw Self.notFound }
        var shown = Self.shown(client)
        shown.clientSecret = secret
        return shown
    }

    func delete(_ clientID: String, realm: String) async throws {
        _ = try await existing(clientID, realm: realm)
        guard try await store.deleteClient(clientID) else { throw Self.notFound }
    }

    /// Whether `secret` is the client's.
    static func secretMatches(_ secret: String, of client: RegisteredClient) -> Bool {
        guard let stored = client.secretHash, secret.utf8.count <= 256 else { return false }
        return constantTimeEquals(Data(hash(secret).utf8), Data(stored.utf8))
    }

    // MARK: Shapes

    /// The client as the admin API shows it (without its secret).
    static func shown(_ client: RegisteredClient) -> OAuthClient {
        let settings = client.settings
        return OAuthClient(
            name: Realm(key: client.realm).resourceName + "/oauthClients/" + client.clientID, clientId: client.clientID,
            displayName: settings.displayName, type: shownType(settings), redirectUris: settings.redirectURIs,
            postLogoutRedirectUris: settings.postLogoutRedirectURIs, allowedScopes: settings.allowedScopes,
            grantTypes: settings.grantTypes, firstParty: settings.firstParty, logoUri: settings.logoURI,
            ownerName: settings.ownerName, jwksUri: settings.jwksURI, tokenEndpointAuthMethod: client.authenticationMethod,
            createTime: Date(timeIntervalSince1970: TimeInterval(client.createdAt)).formatted(.iso8601),
            registeredDynamically: settings.registeredDynamically ?? false)
    }

    private static func shownType(_ settings: Settings) -> String {
        settings.confidential ? OAuthClient.confidential : OAuthClient.public
    }

    /// Checks what an admin sent: `previous` is the client being changed (nil on creation).
    static func settings(from config: OAuthClient, over previous: Settings?) throws -> Settings {
        let confidential: Bool
        switch config.type ?? previous.map(shownType) ?? OAuthClient.confidential {
        case OAuthClient.confidential: confidential = true
        case OAuthClient.public: confidential = false
        default: throw FlintError(.invalidOAuthClient, "type must be CONFIDENTIAL or PUBLIC.")
        }
        guard let displayName = config.displayName?.trimmingCharacters(in: .whitespaces), (1...200).contains(displayName.count)
        else { throw FlintError(.invalidOAuthClient, "displayName must have 1 to 200 characters.") }
        let grantTypes = config.grantTypes ?? previous?.grantTypes ?? defaultGrantTypes
        guard !grantTypes.isEmpty, grantTypes.allSatisfy(supportedGrantTypes.contains),
              !grantTypes.contains("refresh_token") || grantTypes.contains("authorization_code")
                || grantTypes.contains(ProviderDeviceFlow.grantType)
        else {
            throw FlintError(.invalidOAuthClient, "grantTypes must name authorization_code, client_credentials or the device "
                             + "code grant (refresh_token beside one with a user).")
        }
        if grantTypes.contains("client_credentials"), !confidential {
            throw FlintError(.invalidOAuthClient, "Only a confidential client may use client_credentials.")
        }
        // A client that only acts as itself sends no one anywhere.
        let redirectURIs = config.redirectUris ?? []
        let redirects = grantTypes.contains("authorization_code") ? 1...50 : 0...50
        guard redirects.contains(redirectURIs.count) else {
            throw FlintError(.invalidOAuthClient, "redirectUris must name 1 to 50 URIs.")
        }
        for uri in redirectURIs { try RedirectURI.checkRegistrable(uri, publicClient: !confidential, field: "redirectUris") }
        let logoutURIs = config.postLogoutRedirectUris ?? []
        guard logoutURIs.count <= 50 else { throw FlintError(.invalidOAuthClient, "postLogoutRedirectUris names over 50 URIs.") }
        for uri in logoutURIs { try RedirectURI.checkRegistrable(uri, publicClient: !confidential, field: "postLogoutRedirectUris") }
        let scopes = config.allowedScopes ?? defaultScopes
        guard (1...100).contains(scopes.count), scopes.allSatisfy(Scopes.isScopeToken) else {
            throw FlintError(.invalidOAuthClient, "allowedScopes must name 1 to 100 scopes of RFC 6749's characters.")
        }
        let jwksURI = config.jwksUri.flatMap { $0.isEmpty ? nil : $0 }
        if let jwksURI {
            guard confidential else { throw FlintError(.invalidOAuthClient, "Only a confidential client has a jwksUri.") }
            try RedirectURI.checkWebURL(jwksURI, field: "jwksUri")
        }
        let logoURI = config.logoUri.flatMap { $0.isEmpty ? nil : $0 }
        if let logoURI { try RedirectURI.checkWebURL(logoURI, field: "logoUri") }
        let ownerName = config.ownerName.flatMap { $0.isEmpty ? nil : $0 }
        if let ownerName, ownerName.count > 200 { throw FlintError(.invalidOAuthClient, "ownerName has over 200 characters.") }
        return Settings(
            displayName: displayName, confidential: confidential, redirectURIs: redirectURIs, postLogoutRedirectURIs: logoutURIs,
            allowedScopes: Array(NSOrderedSet(array: scopes)) as? [String] ?? scopes, grantTypes: grantTypes,
            firstParty: config.firstParty ?? false, logoURI: logoURI, ownerName: ownerName, jwksURI: jwksURI)
    }

    static func encode(_ settings: Settings) throws -> String {
        String(decoding: try JSONBody.encoder.encode(settings), as: UTF8.self)
    }

    static func hash(_ secret: String) -> String { Hex.sha256(secret) }

    private static let idAlphabet: StaticString = "abcdefghijklmnopqrstuvwxyz0123456789"
    static let notFound = FlintError(.oauthClientNotFound, status: .notFound)
}
