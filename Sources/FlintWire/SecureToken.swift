/// `POST securetoken.googleapis.com/v1/token`. Clients send snake_case (form or JSON) or camelCase JSON;
/// the server accepts both spellings.
public struct SecureTokenRequest: Codable, Sendable {
    public var grantType: String?
    public var refreshToken: String?

    public init(grantType: String? = "refresh_token", refreshToken: String?) {
        self.grantType = grantType
        self.refreshToken = refreshToken
    }

    enum CodingKeys: String, CodingKey {
        case grantType = "grant_type"
        case refreshToken = "refresh_token"
    }
}

/// The Secure Token answer. Keys are snake_case; `expires_in` is a string of seconds.
public struct SecureTokenResponse: Codable, Sendable {
    public var accessToken: String
    public var expiresIn: String
    public var tokenType: String
    public var refreshToken: String
    public var idToken: String
    public var userId: String
    public var projectId: String

    public init(idToken: String, refreshToken: String, expiresIn: String, userId: String, projectId: String) {
        self.accessToken = idToken
        self.idToken = idToken
        self.expiresIn = expiresIn
        self.tokenType = "Bearer"
        self.refreshToken = refreshToken
        self.userId = userId
        self.projectId = projectId
    }

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token"
        case expiresIn = "expires_in"
        case tokenType = "token_type"
        case refreshToken = "refresh_token"
        case idToken = "id_token"
        case userId = "user_id"
        case projectId = "project_id"
    }
}
