import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// An error of the OpenID provider's protocol endpoints, in OAuth's own shape (RFC 6749 §5.2:
/// `{"error": "invalid_grant", "error_description": "…"}`), which relying parties read; the admin API keeps Firebase's
/// envelope (`FlintError`). At the authorization endpoint the same codes go back to the client's redirect URI
/// (§4.1.2.1) once the client and its redirect URI are known to be good.
struct OAuthError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The error codes of RFC 6749, OpenID Connect Core §3.1.2.6, RFC 7009, RFC 6750 and RFC 8707.
    enum Code: String, Sendable {
        case invalidRequest = "invalid_request"
        case invalidClient = "invalid_client"
        case invalidGrant = "invalid_grant"
        case unauthorizedClient = "unauthorized_client"
        case unsupportedGrantType = "unsupported_grant_type"
        case unsupportedResponseType = "unsupported_response_type"
        case unsupportedTokenType = "unsupported_token_type"
        case invalidScope = "invalid_scope"
        case accessDenied = "access_denied"
        case serverError = "server_error"
        case temporarilyUnavailable = "temporarily_unavailable"
        case loginRequired = "login_required"
        case consentRequired = "consent_required"
        case interactionRequired = "interaction_required"
        case accountSelectionRequired = "account_selection_required"
        case invalidToken = "invalid_token"
        /// RFC 8707: a `resource` that is not one the client may ask for.
        case invalidTarget = "invalid_target"
        /// RFC 8628 §3.5: the device's user has not decided yet, the device polls too fast, or its code expired.
        case authorizationPending = "authorization_pending"
        case slowDown = "slow_down"
        case expiredToken = "expired_token"
        /// RFC 7591 §3.2.2: a registration's redirect URIs or other metadata that the project does not take.
        case invalidRedirectURI = "invalid_redirect_uri"
        case invalidClientMetadata = "invalid_client_metadata"
        /// OpenID Connect's `acr_values` could not be met (the account has no second factor).
        case unmetAuthenticationRequirements = "unmet_authentication_requirements"
    }

    let code: Code
    let detail: String?

    init(_ code: Code, _ detail: String? = nil) {
        self.code = code
        self.detail = detail
    }

    var description: String { detail.map { "\(code.rawValue): \($0)" } ?? code.rawValue }

    /// The HTTP status of a direct answer: 401 for a client or token that did not authenticate, 429 for a spent budget,
    /// 400 else.
    var status: HTTPResponse.Status {
        switch code {
        case .invalidClient, .invalidToken: .unauthorized
        case .temporarilyUnavailable: .tooManyRequests
        case .serverError: .internalServerError
        default: .badRequest
        }
    }

    /// The JSON answer of the token, revocation, introspection and userinfo endpoints; no caching (RFC 6749 §5.1).
    var response: Response {
        var body: [String: String] = ["error": code.rawValue]
        if let detail { body["error_description"] = detail }
        var headers: HTTPFields = [.contentType: "application/json", .cacheControl: "no-store", .pragma: "no-cache"]
        if code == .invalidClient { headers[.wwwAuthenticate] = #"Basic realm="flint""# }
        if code == .invalidToken {
            headers[.wwwAuthenticate] = #"Bearer error="invalid_token""#
                + (detail.map { ", error_description=\"\(Self.quotable($0))\"" } ?? "")
        }
        let data = (try? JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])) ?? Data()
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// A description that fits a quoted-string: no quotes or backslashes.
    private static func quotable(_ text: String) -> String { text.filter { $0 != "\"" && $0 != "\\" } }

    /// A budget spent at a protocol endpoint.
    static func budgetSpent(_ error: FlintError) -> OAuthError { OAuthError(.temporarilyUnavailable, error.message) }
}

extension BudgetLedger {
    /// `spend`, refusing in OAuth's shape (`temporarily_unavailable`, 429) once the budget is spent: what the protocol
    /// endpoints answer.
    func spendAtProtocolEndpoint(_ budget: Budget, in realm: String, for subject: String) async throws {
        do {
            try await spend(budget, in: realm, for: subject)
        } catch let error as FlintError {
            throw OAuthError.budgetSpent(error)
        }
    }
}

extension HTTPField.Name {
    static let pragma = Self("Pragma")!
}
