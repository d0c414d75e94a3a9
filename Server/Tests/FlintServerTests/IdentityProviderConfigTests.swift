import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
import Testing

/// Admin CRUD of `defaultSupportedIdpConfigs` (Apple, Facebook), with secrets sealed at rest.
@Suite struct IdentityProviderConfigTests {
    @Test(arguments: TestDatabase.allCases)
    func createReadPatchDelete(database: TestDatabase) async throws {
        try await withServer(database: database) { server, client in
            let base = "/v2/projects/\(server.projectID)/defaultSupportedIdpConfigs"
            let owner = ["Authorization": "Bearer owner"]
            func call(_ method: String, _ path: String, _ body: JSONValue? = nil) async throws -> TestClient.Reply {
                try await client.send(method, path, body: try body.map { try JSONEncoder().encode($0) }, headers: owner,
                                      includeKey: false)
            }
            let apple: JSONValue = [
                "enabled": true, "clientId": "com.example.web",
                "appleSignInConfig": [
                    "bundleIds": ["com.example.app"],
                    "codeFlowConfig": ["teamId": "TEAM123456", "keyId": "KEY1234567", "privateKey": "-----BEGIN PRIVATE KEY-----x"],
                ],
            ]
            let created = try await call("POST", base + "?idpId=apple.com", apple)
            #expect(created.status == 200, "\(created.body)")
            #expect(created["name"] == .string("projects/\(server.projectID)/defaultSupportedIdpConfigs/apple.com"))
            #expect(created["appleSignInConfig"]?["bundleIds"] == ["com.example.app"])
            #expect(created["appleSignInConfig"]?["codeFlowConfig"]?["privateKey"] == nil)
            #expect(try await call("POST", base + "?idpId=apple.com", apple).status == 409)
            #expect(try await call("POST", base + "?idpId=twitter.com", apple).errorCode == "INVALID_PROVIDER_ID")
            #expect(try await call("POST", base + "?idpId=google.com", ["enabled": true]).errorCode == "INVALID_CONFIG")
            let google = try await call("POST", base + "?idpId=google.com", ["enabled": true, "clientId": "1-web.apps.googleusercontent.com"])
            #expect(google["clientId"] == "1-web.apps.googleusercontent.com" && google["appleSignInConfig"] == nil)

            let facebook = try await call("POST", base + "?idpId=facebook.com", [
                "enabled": true, "clientId": "1234", "clientSecret": "app-secret",
            ])
            #expect(facebook["clientSecret"] == .string("REDACTED"))
            let list = try await call("GET", base)
            #expect(list["defaultSupportedIdpConfigs"]?.arrayValue?.count == 3)

            let patched = try await call("PATCH", base + "/apple.com?updateMask=appleSignInConfig.bundleIds", [
                "appleSignInConfig": ["bundleIds": ["com.example.app", "com.example.other"]], "clientId": "ignored",
            ])
            #expect(patched["appleSignInConfig"]?["bundleIds"] == ["com.example.app", "com.example.other"])
            #expect(patched["clientId"] == .string("com.example.web"))

            // Secrets are sealed in the stored settings, never kept in clear.
            let stored = try #require(try await server.server.store.settings.projectSettings(projectID: server.projectID)?.settings)
            #expect(!stored.contains("app-secret") && !stored.contains("BEGIN PRIVATE KEY"))

            #expect(try await call("DELETE", base + "/facebook.com").status == 200)
            #expect(try await call("GET", base + "/facebook.com").errorCode == "CONFIGURATION_NOT_FOUND")
            // Admin only.
            #expect(try await client.send("GET", base).status == 403)
        }
    }
}
