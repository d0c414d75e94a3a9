import FlintTestSupport
import FlintWire
import Foundation
import Testing

/// `passkey.spec.ts`: passkeys in emulator mode, taken on their credential ID as the official emulator takes them;
/// production takes none on its ID alone (its relying party: `PasskeyProductionTests`, `PasskeyBrowserTests`).
extension EmulatorSpec {
    @Suite struct Passkey {
        private static func register(_ client: TestClient, _ email: String, displayName: String? = nil) async throws -> String {
            var body: [String: JSONValue] = ["email": .string(email), "password": "password123", "returnSecureToken": true]
            if let displayName { body["displayName"] = .string(displayName) }
            return try #require(try await client.post("/v1/accounts:signUp", body).string("idToken"))
        }

        private static func enroll(_ client: TestClient, _ idToken: String, _ credentialID: String, name: String? = nil)
            async throws -> TestClient.Reply {
            var body: [String: JSONValue] = ["idToken": .string(idToken), "authenticatorRegistrationResponse": ["id": .string(credentialID)]]
            if let name { body["name"] = .string(name) }
            return try await client.post("/v2/accounts/passkeyEnrollment:finalize", body)
        }

        private static func passkeys(_ client: TestClient, _ idToken: String) async throws -> [JSONValue] {
            try await client.lookup(idToken: idToken).firstUser?["passkeyInfo"]?.arrayValue ?? []
        }

        @Test(arguments: TestDatabase.allCases)
        func enrollSignInAndUnenroll(database: TestDatabase) async throws {
            try await withServer(database: database) { (_: TestServer, client: TestClient) async throws in
                let idToken = try await Self.register(client, "passkey-user@example.com")
                let options = try await client.post("/v2/accounts/passkeyEnrollment:start", ["idToken": .string(idToken)])
                #expect(options["credentialCreationOptions"]?.objectValue?["rp"]?.objectValue?["id"] == "localhost", "\(options.body)")
                #expect(options["credentialCreationOptions"]?.objectValue?["challenge"]?.stringValue?.isEmpty == false)

                let enrolled = try await Self.enroll(client, idToken, "cred_A", name: "Key A")
                #expect(enrolled.status == 200 && enrolled.string("refreshToken") != nil && enrolled.string("localId") != nil, "\(enrolled.body)")
                #expect(try await Self.enroll(client, idToken, "cred_B", name: "Key B").status == 200)
                #expect(try await Self.passkeys(client, idToken) == [
                    ["credentialId": "cred_A", "name": "Key A"], ["credentialId": "cred_B", "name": "Key B"],
                ])

                let request = try await client.post("/v2/accounts/passkeySignIn:start", [:])
                #expect(request["credentialRequestOptions"]?.objectValue?["rpId"] == "localhost", "\(request.body)")
                let signedIn = try await client.post("/v2/accounts/passkeySignIn:finalize", ["authenticatorAuthenticationResponse": ["id": "cred_B"]])
                #expect(signedIn.status == 200 && signedIn.string("refreshToken") != nil, "\(signedIn.body)")
                #expect(claims(of: signedIn.string("idToken"))["firebase"]?["sign_in_provider"] == "passkey")
                #expect(signedIn["localId"] == enrolled["localId"])

                #expect(try await client.post("/v1/accounts:update", ["idToken": .string(idToken), "deletePasskey": ["cred_A"]]).status == 200)
                #expect(try await Self.passkeys(client, idToken) == [["credentialId": "cred_B", "name": "Key B"]])
                let gone = try await client.post("/v2/accounts/passkeySignIn:finalize", ["authenticatorAuthenticationResponse": ["id": "cred_A"]])
                #expect(gone.status == 400 && gone.errorMessage == "PASSKEY_CREDENTIAL_NOT_FOUND")
            }
        }

        @Test func namesFallBackToTheDisplayNameThenUnnamedPasskey() async throws {
            try await withServer { (_: TestServer, client: TestClient) async throws in
                let named = try await Self.register(client, "fallback@example.com", displayName: "My Display Name")
                #expect(try await client.post("/v2/accounts/passkeyEnrollment:finalize", [
                    "idToken": .string(named), "authenticatorRegistrationResponse": ["id": "fallback_1"], "displayName": "My Display Name",
                ]).status == 200)
                let unnamed = try await Self.register(client, "fallback-2@example.com")
                #expect(try await Self.enroll(client, unnamed, "fallback_2").status == 200)
                #expect(try await Self.passkeys(client, named).first?["name"] == "My Display Name")
                #expect(try await Self.passkeys(client, unnamed).first?["name"] == "Unnamed Passkey")
            }
        }

        @Test func missingFieldsAndUnknownCredentials() async throws {
            try await withServer { (_: TestServer, client: TestClient) async throws in
                #expect(try await client.post("/v2/accounts/passkeyEnrollment:start", [:]).errorMessage == "MISSING_ID_TOKEN")
                #expect(try await client.post("/v2/accounts/passkeyEnrollment:finalize", [
                    "authenticatorRegistrationResponse": ["id": "some_cred"],
                ]).errorMessage == "MISSING_ID_TOKEN")
                #expect(try await client.post("/v2/accounts/passkeyEnrollment:finalize", ["idToken": "some_token"]).errorMessage
                    == "MISSING_AUTHENTICATOR_RESPONSE")
                #expect(try await client.post("/v2/accounts/passkeySignIn:finalize", [:]).errorMessage == "MISSING_AUTHENTICATOR_RESPONSE")
                let unknown = try await client.post("/v2/accounts/passkeySignIn:finalize", ["authenticatorAuthenticationResponse": ["id": "nonexistent"]])
                #expect(unknown.status == 400 && unknown.errorMessage == "PASSKEY_CREDENTIAL_NOT_FOUND")
                // Removing a passkey the account does not have is no error.
                let idToken = try await Self.register(client, "no-keys@example.com")
                #expect(try await client.post("/v1/accounts:update", ["idToken": .string(idToken), "deletePasskey": ["nonexistent"]]).status == 200)
                #expect(try await Self.passkeys(client, idToken).isEmpty)
            }
        }

        /// A credential ID belongs to one account of the realm; the store's key holds that against a race too.
        @Test(arguments: TestDatabase.allCases)
        func aCredentialBelongsToOneAccount(database: TestDatabase) async throws {
            try await withServer(database: database) { (_: TestServer, client: TestClient) async throws in
                let first = try await Self.register(client, "first@example.com")
                let second = try await Self.register(client, "second@example.com")
                #expect(try await Self.enroll(client, first, "shared").status == 200)
                #expect(try await Self.enroll(client, second, "shared").errorMessage == "CREDENTIAL_ALREADY_IN_USE")
                async let one = Self.enroll(client, first, "raced")
                async let two = Self.enroll(client, second, "raced")
                let statuses = [try await one.status, try await two.status].sorted()
                #expect(statuses == [200, 400])
            }
        }

        /// Production mode takes no passkey on its ID alone, and has none before its relying party is set up.
        @Test func productionTakesNoUnverifiedPasskey() async throws {
            try await withServer(emulator: false) { (_: TestServer, client: TestClient) async throws in
                let idToken = try #require(try await client.signUp(email: "prod@example.com", password: "password123").string("idToken"))
                for reply in [
                    try await client.post("/v2/accounts/passkeyEnrollment:start", ["idToken": .string(idToken)]),
                    try await client.post("/v2/accounts/passkeySignIn:start", [:]),
                ] {
                    #expect(reply.status == 400 && reply.errorCode == "OPERATION_NOT_ALLOWED", "\(reply.body)")
                }
                for reply in [
                    try await Self.enroll(client, idToken, "cred"),
                    try await client.post("/v2/accounts/passkeySignIn:finalize", ["authenticatorAuthenticationResponse": ["id": "cred"]]),
                ] {
                    #expect(reply.status == 400 && reply.errorCode == "INVALID_AUTHENTICATOR_RESPONSE", "\(reply.body)")
                }
                #expect(try await client.lookup(idToken: idToken).firstUser?["passkeyInfo"] == nil)
            }
        }
    }
}
