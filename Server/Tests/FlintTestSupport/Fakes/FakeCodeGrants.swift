import Crypto
import FlintServer
import FlintWire
import Foundation
import HTTPTypes
import Hummingbird
import NIOConcurrencyHelpers

/// The authorization-code half of a fake provider, as RFC 6749 and RFC 7636 have it: its sign-in page binds a code to
/// the request's client, redirect URI, PKCE challenge (S256 only) and nonce; its token endpoint gives the code's grant
/// once, for the same redirect URI and a verifier whose S256 is the challenge. How the client authenticates is the
/// fake provider's own check.
public final class FakeCodeGrants: Sendable {
    public struct Grant: Sendable {
        public var redirectURI: String
        public var challenge: String
        public var nonce: String?
        public var scope: String?
        public var subject: String
        public var email: String?
    }

    let clientID: String
    private let codes = NIOLockedValueBox<[String: Grant]>([:])
    /// The user who signs in when a browser opens the sign-in page (approved at once); nil refuses.
    public let browserUser = NIOLockedValueBox<(subject: String, email: String?)?>(nil)
    /// What the page answers instead of a code (`access_denied`: the user said no), if set.
    public let browserError = NIOLockedValueBox<String?>(nil)

    init(clientID: String) {
        self.clientID = clientID
    }

    /// A code for the authorization request with `query`, if it is a valid one for this client.
    public func issueCode(query: [String: String], subject: String, email: String? = nil) -> String? {
        guard query["client_id"] == clientID, query["response_type"] == "code", query["code_challenge_method"] == "S256",
              let redirectURI = query["redirect_uri"], let challenge = query["code_challenge"]
        else { return nil }
        let code = FakeHTTP.randomHex(bytes: 16)
        codes.withLockedValue {
            $0[code] = Grant(redirectURI: redirectURI, challenge: challenge, nonce: query["nonce"], scope: query["scope"],
                             subject: subject, email: email)
        }
        return code
    }

    /// The query of `url` as a dictionary (first value wins).
    public static func query(_ url: String) -> [String: String] {
        Dictionary((URLComponents(string: url)?.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { first, _ in first })
    }

    /// The sign-in page: back to the redirect URI with a code (or `browserError`) and the state, as a 302.
    func authorize(_ request: Request) -> Response {
        let query = FakeHTTP.form(Data((request.uri.query ?? "").utf8))
        guard let redirect = query["redirect_uri"], var location = URLComponents(string: redirect) else {
            return FakeHTTP.json(400, ["error": "invalid_request"])
        }
        var answer: [URLQueryItem]
        if let error = browserError.withLockedValue({ $0 }) {
            answer = [URLQueryItem(name: "error", value: error)]
        } else if let user = browserUser.withLockedValue({ $0 }),
                  let code = issueCode(query: query, subject: user.subject, email: user.email) {
            answer = [URLQueryItem(name: "code", value: code)]
        } else {
            return FakeHTTP.json(400, ["error": "invalid_request"])
        }
        answer.append(URLQueryItem(name: "state", value: query["state"] ?? ""))
        location.queryItems = (location.queryItems ?? []) + answer
        return FakeHTTP.empty(302, headers: ["location": location.string ?? redirect])
    }

    /// The grant of the code in the token request's `form`, spent; nil when the code, redirect URI or verifier is wrong.
    func redeem(_ form: [String: String]) -> Grant? {
        guard form["grant_type"] == "authorization_code" || form["grant_type"] == nil, let code = form["code"],
              let grant = codes.withLockedValue({ $0.removeValue(forKey: code) }),
              form["redirect_uri"] == grant.redirectURI, let verifier = form["code_verifier"],
              Base64URL.encode(Data(SHA256.hash(data: Data(verifier.utf8)))) == grant.challenge
        else { return nil }
        return grant
    }
}
