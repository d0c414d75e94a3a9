import _CryptoExtras
import Crypto
import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
import Testing

/// Malformed and hostile requests get Firebase's errors and change nothing stored.
@Suite struct BadInputTests {
    /// The admin view of every user, to compare before and after bad requests.
    private func snapshot(_ client: TestClient, _ server: TestServer) async throws -> JSONValue {
        try await client.send(
            "GET", "/v1/projects/\(server.projectID)/accounts:batchGet?maxResults=100",
            headers: ["Authorization": "Bearer owner"]
        ).body
    }

    @Test func malformedBodiesAndForgedTokens() async throws {
        try await withServer { server, client in
            let signUp = try await client.signUp(email: "victim@example.com", password: "secret123")
            let idToken = try #require(signUp.string("idToken"))
            let before = try await snapshot(client, server)

            let malformed = try await client.send("POST", "/v1/accounts:signUp", body: Data("{\"email\":".utf8))
            #expect(malformed.status == 400)
            #expect(malformed.errorMessage?.hasPrefix("Invalid JSON payload received.") == true)
            #expect(malformed.body.objectValue?["error"]?.objectValue?["status"] == .string("INVALID_ARGUMENT"))
            let wrongType = try await client.post("/v1/accounts:update", ["idToken": .string(idToken), "displayName": .number(42)])
            #expect(wrongType.errorMessage == "Invalid JSON payload received. /displayName must be string")
            let notAnObject = try await client.send("POST", "/v1/accounts:lookup", body: Data("[1,2]".utf8))
            #expect(notAnObject.status == 400)

            let parts = idToken.split(separator: ".").map(String.init)
            var payload = claims(of: idToken)
            payload["sub"] = "someone-else"
            payload["user_id"] = "someone-else"
            let tamperedPayload = Base64URL.encode(try JSONEncoder().encode(JSONValue.object(payload)))
            let noneHeader = Base64URL.encode(Data(#"{"alg":"none","typ":"JWT"}"#.utf8))
            let jwks = try await client.send("GET", "/.well-known/jwks.json")
            let modulus = jwks["keys"]?.arrayValue?.first?.objectValue?["n"]?.stringValue ?? ""
            let hsHeader = Base64URL.encode(Data(#"{"alg":"HS256","typ":"JWT"}"#.utf8))
            let hsInput = hsHeader + "." + tamperedPayload
            let hsSignature = HMAC<SHA256>.authenticationCode(for: Data(hsInput.utf8), using: SymmetricKey(data: Data(modulus.utf8)))
            let forgeries = [
                parts[0] + "." + tamperedPayload + "." + parts[2],                 // payload changed, signature kept
                noneHeader + "." + tamperedPayload + ".",                           // alg: none
                hsInput + "." + Base64URL.encode(Data(hsSignature)),               // HS256 keyed with public material
                parts[0] + "." + parts[1] + "." + Base64URL.encode(Data(repeating: 1, count: 256)), // random signature
                "not.a.jwt", "", String(repeating: "a", count: 20_000),
            ]
            for forged in forgeries {
                let reply = try await client.lookup(idToken: forged)
                #expect(reply.status == 400)
                #expect([forged.isEmpty ? "MISSING_ID_TOKEN" : "INVALID_ID_TOKEN"].contains(reply.errorMessage ?? ""), "\(forged.prefix(40))")
                let update = try await client.post("/v1/accounts:update", ["idToken": .string(forged), "displayName": "pwned"])
                #expect(update.status == 400)
                let delete = try await client.post("/v1/accounts:delete", ["idToken": .string(forged)])
                #expect(delete.status == 400)
            }
            // A token of another project is not accepted here.
            let otherProject = try await TestClient(baseURL: server.baseURL, apiKey: "k").send(
                "POST", "/v1/projects/other-project/accounts:lookup",
                body: try JSONEncoder().encode(JSONValue.object(["idToken": .string(idToken)])),
                headers: ["Authorization": "Bearer owner"])
            #expect(otherProject.errorMessage == "INVALID_ID_TOKEN")

            let wrongPassword = try await client.post(
                "/v1/accounts:signInWithPassword", ["email": "victim@example.com", "password": "guess-1"])
            #expect(wrongPassword.errorMessage == "INVALID_PASSWORD")

            #expect(try await snapshot(client, server) == before)
        }
    }

    @Test func expiredIDTokensAreRefused() async throws {
        try await withServer { server, client in
            let signUp = try await client.signUp(email: "e@example.com", password: "secret123")
            server.clock.advance(seconds: 3601)
            #expect(try await client.lookup(idToken: signUp.string("idToken")).errorMessage == "TOKEN_EXPIRED")
            let refreshed = try await client.refresh(signUp.string("refreshToken"))
            #expect(try await client.lookup(idToken: refreshed.string("id_token")).status == 200)
        }
    }

    @Test func apiKeysAreRequiredAndChecked() async throws {
        try await withServer(emulator: false) { server, client in
            let noKey = try await client.send("POST", "/v1/accounts:signUp", body: Data("{}".utf8), includeKey: false)
            #expect(noKey.status == 403)
            #expect(noKey.errorMessage == "The request is missing a valid API key.")
            let unknown = try await TestClient(baseURL: server.baseURL, apiKey: "AIzaUnknown").post("/v1/accounts:signUp", [:])
            #expect(unknown.status == 400)
            #expect(unknown.body.objectValue?["error"]?.objectValue?["errors"]?.arrayValue?.first?.objectValue?["reason"] == .string("keyInvalid"))
            let headerKey = try await client.send(
                "POST", "/v1/accounts:signUp", body: Data("{}".utf8), headers: ["x-goog-api-key": server.apiKey], includeKey: false)
            #expect(headerKey.status == 200)
            // The emulator's owner token is not an admin credential in production.
            let owner = try await client.post("/v1/accounts:lookup", ["localId": ["x"]], headers: ["Authorization": "Bearer owner"])
            #expect(owner.status == 401)
            let unknownPath = try await client.send("GET", "/v1/nothing-here")
            #expect(unknownPath.status == 404 && unknownPath.errorMessage == "Not Found")
        }
    }

    @Test func customClaimsAreValidated() async throws {
        try await withServer { server, client in
            _ = try await client.admin("/v1/projects/\(server.projectID)/accounts", ["localId": "c"])
            let tooLarge = #"{"k":""# + String(repeating: "x", count: 1000) + #""}"#
            #expect(try await client.admin("/v1/accounts:update", ["localId": "c", "customAttributes": .string(tooLarge)]).errorMessage == "CLAIMS_TOO_LARGE")
            #expect(try await client.admin("/v1/accounts:update", ["localId": "c", "customAttributes": "[1]"]).errorMessage == "INVALID_CLAIMS")
            #expect(try await client.admin("/v1/accounts:update", ["localId": "c", "customAttributes": #"{"firebase":1}"#]).errorMessage == "FORBIDDEN_CLAIM : firebase")
        }
    }
}
