import _CryptoExtras
import FlintServer
import FlintWire
import Foundation

extension ServiceAccounts.KeyFile {
    /// A JWT this key signs, as Google's client libraries make self-signed credentials (and the console its login):
    /// RS256 with the key's id as `kid`, `iss` and `sub` the account, `audience`, issued `now` and good for `lifetime`
    /// seconds, plus `claims`.
    public func signedJWT(audience: String, now: Int64, lifetime: Int64 = 3600, claims: [String: JSONValue] = [:]) throws -> String {
        let key = try _RSA.Signing.PrivateKey(pemRepresentation: private_key)
        let header = JSONValue.object(["alg": .string("RS256"), "typ": .string("JWT"), "kid": .string(private_key_id)])
        var payload = claims
        payload["iss"] = .string(client_email)
        payload["sub"] = .string(client_email)
        payload["aud"] = .string(audience)
        payload["iat"] = .number(Double(now))
        payload["exp"] = .number(Double(now + lifetime))
        let input = Base64URL.encode(try JSONEncoder().encode(header)) + "."
            + Base64URL.encode(try JSONEncoder().encode(JSONValue.object(payload)))
        let signature = try key.signature(for: Data(input.utf8), padding: .insecurePKCS1v1_5)
        return input + "." + Base64URL.encode(signature.rawRepresentation)
    }
}
