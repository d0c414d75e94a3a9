import Crypto
import FlintWire
import Foundation

/// Facebook Login (classic): an access token is checked with the Graph API's `debug_token` using the app
/// token (`APPID|APPSECRET`) — it must be valid and issued to this app — and the profile is read from
/// `/me` with `appsecret_proof` (HMAC-SHA256 of the token under the app secret), as Facebook recommends
/// for server calls. The base URL is Facebook's unless `FLINT_FACEBOOK_GRAPH_URL` names another.
struct FacebookGraphClient: Sendable {
    let baseURL: String
    let http: OutsideHTTP

    /// What Facebook says about a user access token, and the profile behind it.
    struct VerifiedUser: Sendable {
        var userID: String
        var profile: [String: JSONValue]
    }

    func verify(accessToken: String, appID: String, appSecret: String) async throws -> VerifiedUser {
        guard !accessToken.isEmpty, accessToken.utf8.count <= 4096 else { throw FlintError(.invalidIDPResponse) }
        let debug = try await get("/debug_token", [("input_token", accessToken), ("access_token", "\(appID)|\(appSecret)")])
        guard debug.isSuccess, case .object(let root)? = try? JSONDecoder().decode(JSONValue.self, from: debug.body),
              case .object(let data)? = root["data"]
        else { throw Self.unexpected(debug, from: "/debug_token", "Facebook did not vouch for the access token") }
        guard data["is_valid"] == .bool(true) else { throw FlintError(.invalidIDPResponse, "The Facebook access token is not valid") }
        guard data["app_id"]?.stringValue == appID else {
            throw FlintError(.invalidIDPResponse, "The Facebook access token was issued to another app")
        }
        guard let userID = data["user_id"]?.stringValue, !userID.isEmpty else { throw FlintError(.invalidIDPResponse) }

        let proof = Hex.encode(HMAC<SHA256>.authenticationCode(for: Data(accessToken.utf8), using: SymmetricKey(data: Data(appSecret.utf8))))
        let me = try await get("/me", [
            ("fields", "id,name,email,first_name,last_name,picture"), ("access_token", accessToken), ("appsecret_proof", proof),
        ])
        guard me.isSuccess, case .object(let profile)? = try? JSONDecoder().decode(JSONValue.self, from: me.body),
              profile["id"]?.stringValue == userID
        else { throw Self.unexpected(me, from: "/me", "Facebook did not return the token's profile") }
        return VerifiedUser(userID: userID, profile: profile)
    }

    /// `INVALID_IDP_RESPONSE` with `message` for the client, and what Facebook answered at `path` for the log.
    private static func unexpected(_ answer: DeliveryHTTP.Answer, from path: String, _ message: String) -> FlintError {
        FlintError(.invalidIDPResponse, message).withCause("Facebook \(path): HTTP \(answer.status): \(answer.bodyText)")
    }

    /// The answer to a GET (Facebook's answers never reach the client).
    private func get(_ path: String, _ query: [(String, String)]) async throws -> DeliveryHTTP.Answer {
        try await http.providerGET(baseURL + path + "?" + FormURLEncoding.encode(query), from: .facebook)
    }
}
