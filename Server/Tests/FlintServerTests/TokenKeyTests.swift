import _CryptoExtras
import Crypto
import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
import Testing

/// ID tokens verify against the published keys, by the standard rules, across rotations.
@Suite struct TokenKeyTests {
    /// Verifies an RS256 JWT against a JWKS document, the way any JWT library does.
    private func verify(_ token: String, jwks: JSONValue) throws -> Bool {
        let parts = token.split(separator: ".").map(String.init)
        let header = try JSONDecoder().decode(JSONValue.self, from: try #require(Base64URL.decode(parts[0])))
        #expect(header.objectValue?["alg"] == .string("RS256"))
        let kid = try #require(header.objectValue?["kid"]?.stringValue)
        let key = try #require(jwks.objectValue?["keys"]?.arrayValue?.first { $0.objectValue?["kid"]?.stringValue == kid }?.objectValue)
        let modulus = try #require(key["n"]?.stringValue.flatMap { Base64URL.decode($0) })
        let exponent = try #require(key["e"]?.stringValue.flatMap { Base64URL.decode($0) })
        let publicKey = try _RSA.Signing.PublicKey(n: modulus, e: exponent)
        let signature = _RSA.Signing.RSASignature(rawRepresentation: try #require(Base64URL.decode(parts[2])))
        return publicKey.isValidSignature(signature, for: Data((parts[0] + "." + parts[1]).utf8), padding: .insecurePKCS1v1_5)
    }

    @Test func productionTokensCarryFirebaseClaimsAndVerifyWithJWKS() async throws {
        try await withServer(emulator: false) { server, client in
            let signUp = try await client.signUp(email: "j@example.com", password: "secret123")
            let token = try #require(signUp.string("idToken"))
            let tokenClaims = claims(of: token)
            let issuer = server.server.publicURL + "/" + server.projectID
            #expect(tokenClaims["iss"] == .string(issuer))
            #expect(tokenClaims["aud"] == .string(server.projectID))
            #expect(tokenClaims["sub"] == signUp["localId"] && tokenClaims["user_id"] == signUp["localId"])
            #expect(tokenClaims["email"] == "j@example.com" && tokenClaims["email_verified"] == false)
            #expect(tokenClaims["firebase"]?.objectValue?["identities"] == .object(["email": ["j@example.com"]]))
            let iat = try #require(tokenClaims["iat"]?.numberValue)
            #expect(tokenClaims["exp"]?.numberValue == iat + 3600)

            let jwks = try await client.send("GET", "/.well-known/jwks.json")
            #expect(jwks.headers["cache-control"]?.contains("max-age") == true)
            #expect(try verify(token, jwks: jwks.body))
            let googlePath = try await client.send("GET", "/www.googleapis.com/service_accounts/v1/jwk/securetoken@system.gserviceaccount.com")
            #expect(googlePath.body == jwks.body)
            let discovery = try await client.send("GET", "/\(server.projectID)/.well-known/openid-configuration")
            #expect(discovery.string("issuer") == issuer)
            #expect(discovery.string("jwks_uri") == server.server.publicURL + "/.well-known/jwks.json")

            let x509 = try await client.send("GET", "/www.googleapis.com/robot/v1/metadata/x509/securetoken@system.gserviceaccount.com")
            let kid = try #require(jwks["keys"]?.arrayValue?.first?.objectValue?["kid"]?.stringValue)
            #expect(x509[kid]?.stringValue?.hasPrefix("-----BEGIN CERTIFICATE-----") == true)
        }
    }

    @Test func emulatorTokensUseGooglesIssuer() async throws {
        try await withServer { server, client in
            let signUp = try await client.signUp()
            #expect(claims(of: signUp.string("idToken"))["iss"] == .string("https://securetoken.google.com/\(server.projectID)"))
            let jwks = try await client.send("GET", "/.well-known/jwks.json")
            let token = try #require(signUp.string("idToken"))
            #expect(try verify(token, jwks: jwks.body))
        }
    }

    @Test func rotationKeepsOldTokensValid() async throws {
        try await withServer(emulator: false) { server, client in
            let before = try await client.signUp()
            let oldKid = server.server.keyring.keyIDs
            let newKid = try await server.server.keyring.rotate()
            #expect(!oldKid.contains(newKid))
            let after = try await client.signUp()
            let afterToken = try #require(after.string("idToken"))
            let header = try JSONDecoder().decode(
                JSONValue.self, from: try #require(Base64URL.decode(afterToken.split(separator: ".")[0])))
            #expect(header.objectValue?["kid"] == .string(newKid))
            #expect(try await client.lookup(idToken: before.string("idToken")).status == 200)
            #expect(try await client.lookup(idToken: after.string("idToken")).status == 200)
            let jwks = try await client.send("GET", "/.well-known/jwks.json")
            #expect(jwks["keys"]?.arrayValue?.count == 2)
            #expect(try verify(try #require(before.string("idToken")), jwks: jwks.body))
            #expect(try verify(afterToken, jwks: jwks.body))
        }
    }

    @Test func privateKeysAreSealedAtRest() async throws {
        try await withServer { server, _ in
            let records = try await server.server.store.signingKeys.signingKeys()
            let record = try #require(records.first)
            #expect(!record.sealedPrivateKey.contains("PRIVATE KEY"))
            let sealed = try #require(Data(base64Encoded: record.sealedPrivateKey))
            // AES-GCM: 12-byte nonce + ciphertext + 16-byte tag, not a parseable DER key.
            #expect((try? _RSA.Signing.PrivateKey(derRepresentation: sealed)) == nil)
        }
    }
}
