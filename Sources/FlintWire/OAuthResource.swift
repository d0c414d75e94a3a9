/// A protected resource of a project's OpenID provider (RFC 8707): an API, such as an MCP server, that clients ask
/// tokens for by its URI, as the admin API shows and takes it (`v2/projects/{p}/oauthResources/{resourceId}`, a Flint
/// extension in the v2 style). Access tokens asked for it name it as their audience. Every field is optional on the way
/// in; on the way out all are present.
public struct OAuthResource: Codable, Sendable, Equatable {
    /// `projects/{p}/oauthResources/{resourceId}`. Output only.
    public var name: String?
    /// Output only.
    public var resourceId: String?
    /// The absolute URI clients name in `resource` (https, or http on a loopback host), without a fragment. Fixed at
    /// creation.
    public var resource: String?
    /// Shown on the consent page.
    public var displayName: String?
    /// The scopes of this resource that clients may ask for beside OpenID's.
    public var scopes: [String]?
    /// The only clients that may ask tokens for it; empty or absent: every client of the project, self-registered ones
    /// included.
    public var allowedClientIds: [String]?
    /// RFC 3339 (output only).
    public var createTime: String?

    public init(name: String? = nil, resourceId: String? = nil, resource: String? = nil, displayName: String? = nil,
                scopes: [String]? = nil, allowedClientIds: [String]? = nil, createTime: String? = nil) {
        self.name = name
        self.resourceId = resourceId
        self.resource = resource
        self.displayName = displayName
        self.scopes = scopes
        self.allowedClientIds = allowedClientIds
        self.createTime = createTime
    }
}

/// A page of a project's protected resources.
public struct ListOAuthResourcesResponse: Codable, Sendable, Equatable {
    public var oauthResources: [OAuthResource]
    public var nextPageToken: String?

    public init(oauthResources: [OAuthResource], nextPageToken: String? = nil) {
        self.oauthResources = oauthResources
        self.nextPageToken = nextPageToken
    }
}
