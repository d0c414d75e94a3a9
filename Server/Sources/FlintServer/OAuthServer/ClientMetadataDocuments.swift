import FlintWire
import Foundation
import NIOConcurrencyHelpers

/// OAuth Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document), on where a project turns them on
/// (`oauthServer.clientIdMetadataDocuments`): a client that no admin registered names itself by an https URL, and the
/// JSON document there describes it. MCP's authorization spec prefers this to dynamic registration: nothing is stored,
/// and the consent page can name the host that vouches for the client.
///
/// - The URL is https, with a path, without a fragment, query, credentials or dot segments.
/// - It is fetched with `UntrustedFetch` (public addresses only, at every redirect; bounded in time and size).
/// - The document's `client_id` is the URL exactly; it names redirect URIs; it is a public client
///   (`token_endpoint_auth_method` `none`) with no secret; its grants are the authorization code's and refresh.
/// - It is kept for its `Cache-Control: max-age` (at most a day; five minutes when it says nothing; not at all for
///   `no-store`), on each node.
final class ClientMetadataDocuments: Sendable {
    let fetch: UntrustedFetch
    let projects: ProjectDirectory
    let store: OAuthStore
    let clock: any FlintClock
    private let cache = NIOLockedValueBox<[String: Entry]>([:])

    static let defaultLifetime: Int64 = 300
    static let maximumLifetime: Int64 = 86_400
    /// Documents kept at once; past it, the expired ones and then the oldest go.
    static let maximumEntries = 1000
    static let maximumURLLength = 1024
    /// A client's record (what its users' grants and tokens refer to) is removed after this long without a fetch or
    /// a token; a fetch comes at least daily while it is used.
    static let recordLifetime: Int64 = 30 * 86_400

    private struct Entry {
        let settings: RegisteredClient.Settings
        let expiry: Int64
    }

    init(fetch: UntrustedFetch, projects: ProjectDirectory, store: OAuthStore, clock: any FlintClock) {
        self.fetch = fetch
        self.projects = projects
        self.store = store
        self.clock = clock
    }

    /// Whether `clientID` names a metadata document rather than a registered client.
    static func isDocumentURL(_ clientID: String) -> Bool { clientID.hasPrefix("https://") }

    /// The client the document at `url` describes, in `realm`; nil where the realm does not take metadata documents.
    /// Throws `OAuthError(.invalidClient)` saying what is wrong with the URL, the fetch or the document.
    func client(_ url: String, realm: String) async throws -> RegisteredClient? {
        guard let project = try await projects.project(realm), project.settings.oauthServer?.clientMetadataDocuments == true
        else { return nil }
        let now = clock.seconds
        if let entry = cache.withLockedValue({ $0[url] }), entry.expiry > now {
            return RegisteredClient(clientID: url, realm: realm, settings: entry.settings, secretHash: nil, createdAt: now)
        }
        guard let host = Self.checkedHost(url) else {
            throw OAuthError(.invalidClient, "A client ID URL must be https, with a path, and no query, fragment or credentials.")
        }
        let answer: UntrustedFetch.Answer
        do {
            answer = try await fetch.get(url, accept: "application/json")
        } catch {
            throw OAuthError(.invalidClient, "The client's metadata document at \(host) cannot be used: \(error).")
        }
        guard answer.status == 200 else {
            throw OAuthError(.invalidClient, "The client's metadata document at \(host) answered HTTP \(answer.status).")
        }
        let settings = try Self.settings(of: answer.body, url: url, host: host)
        try await store.keepDocumentClient(OAuthClientRow(
            clientID: url, realm: realm, settings: try OAuthClientRegistry.encode(settings),
            secretHash: nil, createdAt: now, unusedExpiry: now + Self.recordLifetime))
        let lifetime = CacheControl.maxAge(answer.headers.first(name: "cache-control"))
            .map { min(Int64($0), Self.maximumLifetime) } ?? Self.defaultLifetime
        if lifetime > 0 { keep(Entry(settings: settings, expiry: now + lifetime), for: url, now: now) }
        return RegisteredClient(clientID: url, realm: realm, settings: settings, secretHash: nil, createdAt: now)
    }

    private func keep(_ entry: Entry, for url: String, now: Int64) {
        cache.withLockedValue { cache in
            if cache.count >= Self.maximumEntries {
                cache = cache.filter { $0.value.expiry > now }
                if cache.count >= Self.maximumEntries, let oldest = cache.min(by: { $0.value.expiry < $1.value.expiry }) {
                    cache[oldest.key] = nil
                }
            }
            cache[url] = entry
        }
    }

    /// The URL's host if it may name a client: the draft's rules for a client ID URL.
    static func checkedHost(_ url: String) -> String? {
        guard url.utf8.count <= maximumURLLength, let components = URLComponents(string: url), components.scheme == "https",
              let host = components.host, !host.isEmpty, components.user == nil, components.password == nil,
              components.query == nil, components.fragment == nil, components.path.count > 1,
              !components.path.split(separator: "/", omittingEmptySubsequences: false).contains(where: { $0 == "." || $0 == ".." })
        else { return nil }
        return host
    }

    /// The document's fields Flint reads.
    private struct Document: Decodable {
        var client_id: String?
        var client_name: String?
        var redirect_uris: [String]?
        var grant_types: [String]?
        var response_types: [String]?
        var token_endpoint_auth_method: String?
        var logo_uri: String?
        var client_secret: String?
        var client_secret_expires_at: Int64?
    }

    /// The client a document describes, checked: shown as its name beside the host that serves it.
    private static func settings(of body: Data, url: String, host: String) throws -> RegisteredClient.Settings {
        func refuse(_ reason: String) -> OAuthError {
            OAuthError(.invalidClient, "The client's metadata document at \(host) \(reason).")
        }
        guard let document = try? JSONDecoder().decode(Document.self, from: body) else { throw refuse("is not a JSON object of client metadata") }
        guard document.client_id == url else { throw refuse("names another client_id than its own URL") }
        guard document.client_secret == nil, document.client_secret_expires_at == nil else { throw refuse("holds a client secret") }
        guard (document.token_endpoint_auth_method ?? "none") == "none" else {
            throw refuse("asks for token_endpoint_auth_method \(document.token_endpoint_auth_method ?? ""); only none is served")
        }
        guard (document.response_types ?? ["code"]) == ["code"] else { throw refuse("must have response_types [\"code\"]") }
        let grants = document.grant_types ?? ["authorization_code"]
        guard grants.contains("authorization_code"), grants.allSatisfy(["authorization_code", "refresh_token"].contains) else {
            throw refuse("may name only the authorization_code and refresh_token grants")
        }
        guard let redirects = document.redirect_uris, !redirects.isEmpty else { throw refuse("names no redirect_uris") }
        let name = document.client_name.flatMap { $0.trimmingCharacters(in: .whitespaces).isEmpty ? nil : String($0.prefix(200)) }
        let config = OAuthClient(
            displayName: name ?? host, type: OAuthClient.public, redirectUris: redirects,
            allowedScopes: OAuthClientRegistry.defaultScopes, grantTypes: grants, firstParty: false,
            logoUri: document.logo_uri.flatMap { $0.hasPrefix("https://") ? $0 : nil })
        do {
            var settings = try OAuthClientRegistry.settings(from: config, over: nil)
            settings.ownerName = host
            return settings
        } catch let error as FlintError {
            throw refuse("is not usable: \(error.message)")
        }
    }
}
