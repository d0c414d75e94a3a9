import FlintWire
import Foundation

/// Google's OAuth 2 endpoints for an access token: token info (`GET /tokeninfo?access_token=…`: the client it was
/// issued to, its subject and the seconds it has left) and user info (`GET /userinfo` with the token as bearer:
/// the OpenID profile). The token must be live and issued to one of the project's client IDs (`aud` or `azp`), and the
/// profile must be the token's subject, so a token an app obtained for another client cannot sign in here.
struct GoogleOAuthClient: Sendable {
    /// `https://oauth2.googleapis.com/tokeninfo` unless configured otherwise.
    let tokenInfoURL: String
    /// `https://openidconnect.googleapis.com/v1/userinfo` unless configured otherwise.
    let userInfoURL: String
    let http: OutsideHTTP

    /// The profile behind `accessToken` (`sub`, `email`, `email_verified`, `name`, `picture`, …).
    func verify(accessToken: String, clientIDs: Set<String>) async throws -> [String: JSONValue] {
        guard !accessToken.isEmpty, accessToken.utf8.count <= 4096 else { throw FlintError(.invalidIDPResponse) }
        let info = try await http.providerGET(tokenInfoURL + "?" + FormURLEncoding.encode([("access_token", accessToken)]), from: .google)
        guard info.isSuccess, case .object(let token)? = try? JSONDecoder().decode(JSONValue.self, from: info.body) else {
            throw FlintError(.invalidIDPResponse, "Google did not vouch for the access token")
                .withCause("Google tokeninfo: HTTP \(info.status): \(info.bodyText)")
        }
        guard [token["aud"], token["azp"]].contains(where: { $0?.stringValue.map(clientIDs.contains) == true }) else {
            throw FlintError(.invalidIDPResponse, "The Google access token was issued to another client")
        }
        guard let left = token["expires_in"].flatMap(Self.seconds), left > 0 else {
            throw FlintError(.invalidIDPResponse, "The Google access token has expired")
        }
        guard let subject = token["sub"]?.stringValue, !subject.isEmpty else { throw FlintError(.invalidIDPResponse) }

        let user = try await http.providerGET(userInfoURL, from: .google, bearer: accessToken)
        guard user.isSuccess, case .object(let profile)? = try? JSONDecoder().decode(JSONValue.self, from: user.body),
              profile["sub"]?.stringValue == subject
        else {
            throw FlintError(.invalidIDPResponse, "Google did not return the token's profile")
                .withCause("Google userinfo: HTTP \(user.status): \(user.bodyText)")
        }
        return profile
    }

    /// Google writes `expires_in` as a string; accept a number too.
    private static func seconds(_ value: JSONValue) -> Int? {
        switch value {
        case .string(let text): Int(text)
        case .number(let number): Int(exactly: number.rounded(.down))
        default: nil
        }
    }
}
