/// A client of a project's (or tenant's) OpenID provider, as the admin API shows and takes it
/// (`v2/projects/{p}[/tenants/{t}]/oauthClients/{clientId}`): a Flint extension in the v2 style. Every field is optional
/// on the way in; on the way out all are present, `clientSecret` only in the answer that made or rotated it.
public struct OAuthClient: Codable, Sendable, Equatable {
    /// `projects/{p}/oauthClients/{clientId}` (a tenant's: `projects/{p}/tenants/{t}/oauthClients/{clientId}`). Output only.
    public var name: String?
    /// Output only.
    public var clientId: String?
    /// Shown on the consent page.
    public var displayName: String?
    /// `CONFIDENTIAL` (has a secret or a JWKS URI and authenticates at the token endpoint) or `PUBLIC` (a native or
    /// browser app, which cannot keep a secret). Fixed at creation.
    public var type: String?
    /// Where codes may be sent, compared exactly; a loopback `http://127.0.0.1/…` or `http://[::1]/…` matches any port
    /// (RFC 8252 §7.3).
    public var redirectUris: [String]?
    /// Where RP-initiated logout may send the browser afterwards, compared exactly.
    public var postLogoutRedirectUris: [String]?
    /// The scopes the client may ask for (default: `openid`, `email`, `profile`, `phone`, `offline_access`).
    public var allowedScopes: [String]?
    /// RFC 6749 grant names: `authorization_code`, `refresh_token` (the default: both).
    public var grantTypes: [String]?
    /// A first-party client skips the consent page.
    public var firstParty: Bool?
    public var logoUri: String?
    /// Who runs the client, named on the consent page.
    public var ownerName: String?
    /// A confidential client that authenticates with `private_key_jwt` (RFC 7523) publishes its keys here instead of
    /// holding a secret.
    public var jwksUri: String?
    /// `client_secret_basic`, `client_secret_post`, `private_key_jwt` or `none` (output only: follows from the type and
    /// the JWKS URI).
    public var tokenEndpointAuthMethod: String?
    /// The secret, shown once: in the answer of the create or rotation that made it. Only its hash is kept.
    public var clientSecret: String?
    /// RFC 3339 (output only).
    public var createTime: String?
    /// Registered by the client itself (RFC 7591), not by an admin (output only).
    public var registeredDynamically: Bool?

    public init(name: String? = nil, clientId: String? = nil, displayName: String? = nil, type: String? = nil,
                redirectUris: [String]? = nil, postLogoutRedirectUris: [String]? = nil, allowedScopes: [String]? = nil,
                grantTypes: [String]? = nil, firstParty: Bool? = nil, logoUri: String? = nil, ownerName: String? = nil,
                jwksUri: String? = nil, tokenEndpointAuthMethod: String? = nil, clientSecret: String? = nil,
                createTime: String? = nil, registeredDynamically: Bool? = nil) {
        self.name = name
        self.clientId = clientId
        self.displayName = displayName
        self.type = type
        self.redirectUris = redirectUris
        self.postLogoutRedirectUris = postLogoutRedirectUris
        self.allowedScopes = allowedScopes
        self.grantTypes = grantTypes
        self.firstParty = firstParty
        self.logoUri = logoUri
        self.ownerName = ownerName
        self.jwksUri = jwksUri
        self.tokenEndpointAuthMethod = tokenEndpointAuthMethod
        self.clientSecret = clientSecret
        self.createTime = createTime
        self.registeredDynamically = registeredDynamically
    }

    /// The two kinds of client.
    public static let confidential = "CONFIDENTIAL"
    public static let `public` = "PUBLIC"
}

/// A page of `GET v2/projects/{p}/oauthClients`.
public struct ListOAuthClientsResponse: Codable, Sendable, Equatable {
    public var oauthClients: [OAuthClient]
    public var nextPageToken: String?

    public init(oauthClients: [OAuthClient], nextPageToken: String? = nil) {
        self.oauthClients = oauthClients
        self.nextPageToken = nextPageToken
    }
}

/// `POST v2/projects/{p}/oauthClients/{clientId}:rotateSecret`'s body (empty) .
public struct RotateOAuthClientSecretRequest: Codable, Sendable, Equatable {
    public init() {}
}

/// The team's own sign-in page ends an authorization (`v2/oauth/authorizations:approve` or `:deny`): it names the
/// authorization Flint sent the browser with (`authorization_id`) and presents the ID token of the user it signed in.
public struct OAuthAuthorizationDecisionRequest: Codable, Sendable, Equatable, IDTokenCarryingRequest, TenantScopedRequest {
    public var authorizationId: String?
    public var idToken: String?
    public var tenantId: String?

    public init(authorizationId: String? = nil, idToken: String? = nil, tenantId: String? = nil) {
        self.authorizationId = authorizationId
        self.idToken = idToken
        self.tenantId = tenantId
    }
}

/// Where the app sends the browser next: the client's redirect URI with the code (or the error), `state` and `iss`.
public struct OAuthAuthorizationDecisionResponse: Codable, Sendable, Equatable {
    public var redirectUri: String

    public init(redirectUri: String) { self.redirectUri = redirectUri }
}

/// What an authorization in progress asks (`v2/oauth/authorizations:get`), so the team's page can show it: the
/// client, its owner and the scopes.
public struct OAuthAuthorizationDetails: Codable, Sendable, Equatable {
    public var authorizationId: String
    public var clientId: String
    public var clientName: String
    public var ownerName: String?
    public var logoUri: String?
    public var scopes: [String]
    /// The account the client hints at (`login_hint`), if any.
    public var loginHint: String?

    public init(authorizationId: String, clientId: String, clientName: String, ownerName: String? = nil,
                logoUri: String? = nil, scopes: [String], loginHint: String? = nil) {
        self.authorizationId = authorizationId
        self.clientId = clientId
        self.clientName = clientName
        self.ownerName = ownerName
        self.logoUri = logoUri
        self.scopes = scopes
        self.loginHint = loginHint
    }
}

/// `v2/oauth/authorizations:get`'s body.
public struct OAuthAuthorizationLookupRequest: Codable, Sendable, Equatable, TenantScopedRequest {
    public var authorizationId: String?
    public var tenantId: String?

    public init(authorizationId: String? = nil, tenantId: String? = nil) {
        self.authorizationId = authorizationId
        self.tenantId = tenantId
    }
}

/// A user's remembered consent to a client (`v2/accounts/oauthGrants:list` and admin's
/// `v2/projects/{p}/accounts/{uid}/oauthGrants`).
public struct OAuthGrant: Codable, Sendable, Equatable {
    public var clientId: String
    public var clientName: String?
    public var scopes: [String]
    /// RFC 3339.
    public var grantTime: String

    public init(clientId: String, clientName: String? = nil, scopes: [String], grantTime: String) {
        self.clientId = clientId
        self.clientName = clientName
        self.scopes = scopes
        self.grantTime = grantTime
    }
}

/// A user's grants.
public struct ListOAuthGrantsResponse: Codable, Sendable, Equatable {
    public var grants: [OAuthGrant]

    public init(grants: [OAuthGrant]) { self.grants = grants }
}

/// `v2/accounts/oauthGrants:list` (`{idToken}`) and `:revoke` (`{idToken, clientId}`): the signed-in user's own grants.
public struct OAuthGrantsRequest: Codable, Sendable, Equatable, IDTokenCarryingRequest, TenantScopedRequest {
    public var idToken: String?
    public var clientId: String?
    public var tenantId: String?

    public init(idToken: String? = nil, clientId: String? = nil, tenantId: String? = nil) {
        self.idToken = idToken
        self.clientId = clientId
        self.tenantId = tenantId
    }
}
