@testable import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
import Testing

extension EmulatorSpec {
    /// `config.spec.ts`: the v2 project configuration (`GET/PATCH /v2/projects/{p}/config`) in emulator mode.
    ///
    /// Deliberate difference: the official emulator's config is only `{signIn: {allowDuplicateEmails},
    /// blockingFunctions, emailPrivacyConfig}`, and two of its cases deep-compare `signIn` with
    /// `{allowDuplicateEmails}`. Flint shows its whole configuration (sign-in methods, test numbers,
    /// `hashConfig`) in both modes, as the CLI with `--server` and Admin SDKs read it from there.
    @Suite struct Config {
        /// Admin calls of the v2 config: as the emulator's owner, or in production with a service account's
        /// self-signed token.
        struct Admin {
            let server: TestServer
            let client: TestClient
            let authorization: String

            init(_ server: TestServer, _ client: TestClient) async throws {
                self.server = server
                self.client = client
                if server.server.configuration.policy.ownerTokenIsAdmin {
                    authorization = "Bearer owner"
                } else {
                    let key = try await server.server.serviceAccounts.create(projectID: server.projectID)
                    let token = try key.signedJWT(audience: "https://identitytoolkit.googleapis.com/",
                                                  now: Int64(server.clock.now().timeIntervalSince1970))
                    authorization = "Bearer " + token
                }
            }

            /// A PATCH of the config, with `updateMask` when one is given.
            func patch(mask: String? = nil, _ body: JSONValue) async throws -> TestClient.Reply {
                let query = mask.map { "?updateMask=" + $0 } ?? ""
                return try await client.send("PATCH", "/v2/projects/\(server.projectID)/config" + query,
                                             body: JSONEncoder().encode(body), headers: ["Authorization": authorization])
            }

            func get() async throws -> TestClient.Reply {
                try await client.send("GET", "/v2/projects/\(server.projectID)/config", headers: ["Authorization": authorization])
            }
        }

        static let forwardIDToken: JSONValue = ["forwardInboundCredentials": ["idToken": true]]

        /// "updates the project level config": masked leaves, including one deep in `blockingFunctions`.
        @Test(arguments: [true, false])
        func maskedPatchUpdatesBlockingFunctions(emulator: Bool) async throws {
            try await withServer(emulator: emulator) { (server: TestServer, client: TestClient) async throws in
                let admin = try await Admin(server, client)
                let reply = try await admin.patch(
                    mask: "signIn.allowDuplicateEmails,blockingFunctions.forwardInboundCredentials.idToken",
                    ["signIn": ["allowDuplicateEmails": true], "blockingFunctions": Self.forwardIDToken])
                #expect(reply.status == 200, "\(reply.body)")
                #expect(reply["signIn"]?["allowDuplicateEmails"] == true)
                #expect(reply["blockingFunctions"] == Self.forwardIDToken)
                #expect(try await admin.get()["blockingFunctions"] == Self.forwardIDToken)
            }
        }

        /// "performs a full update (with production defaults) if the update mask is empty", which the spec's
        /// harness uses as its reset between cases: the emulator's three settings go back to their defaults,
        /// Flint's other settings stay.
        @Test func patchWithoutMaskReplacesTheEmulatorSettingsOnly() async throws {
            try await withServer { (server: TestServer, client: TestClient) async throws in
                let admin = try await Admin(server, client)
                let before = try await admin.patch(mask: "emailPrivacyConfig,signIn.anonymous.enabled,authorizedDomains", [
                    "emailPrivacyConfig": ["enableImprovedEmailPrivacy": true], "signIn": ["anonymous": ["enabled": false]],
                    "authorizedDomains": ["example.com"],
                ])
                #expect(before.status == 200, "\(before.body)")

                let full = try await admin.patch(
                    ["signIn": ["allowDuplicateEmails": true], "blockingFunctions": Self.forwardIDToken])
                #expect(full.status == 200, "\(full.body)")
                #expect(full["signIn"]?["allowDuplicateEmails"] == true)
                #expect(full["blockingFunctions"] == Self.forwardIDToken)
                #expect(full["emailPrivacyConfig"] == ["enableImprovedEmailPrivacy": false])

                for mask in [nil, ""] {
                    _ = try await admin.patch(mask: "signIn.allowDuplicateEmails", ["signIn": ["allowDuplicateEmails": true]])
                    let reset = try await admin.patch(mask: mask, [:])
                    #expect(reset.status == 200, "\(reset.body)")
                    #expect(reset["signIn"]?["allowDuplicateEmails"] == false)
                    #expect(reset["blockingFunctions"] == [:])
                    #expect(reset["signIn"]?["anonymous"]?["enabled"] == false)
                    #expect(reset["signIn"]?["email"]?["enabled"] == true)
                    #expect(reset["authorizedDomains"] == ["example.com"])
                }
            }
        }

        /// Production: a PATCH without a mask changes exactly the fields present.
        @Test func productionPatchWithoutMaskChangesOnlyWhatItSets() async throws {
            try await withServer(emulator: false) { (server: TestServer, client: TestClient) async throws in
                let admin = try await Admin(server, client)
                _ = try await admin.patch(mask: "signIn.allowDuplicateEmails,blockingFunctions", [
                    "signIn": ["allowDuplicateEmails": true],
                    "blockingFunctions": ["triggers": ["beforeCreate": ["functionUri": "https://example.com/before-create"]]],
                ])
                let untouched = try await admin.patch([:])
                #expect(untouched["signIn"]?["allowDuplicateEmails"] == true)
                let forwarding = try await admin.patch(["blockingFunctions": Self.forwardIDToken])
                #expect(forwarding["blockingFunctions"] == [
                    "triggers": ["beforeCreate": ["functionUri": "https://example.com/before-create"]],
                    "forwardInboundCredentials": ["idToken": true],
                ])
                #expect(forwarding["signIn"]?["allowDuplicateEmails"] == true)
            }
        }

        /// "should error when updating an invalid blocking function event" / "if functionUri is invalid";
        /// production checks the same.
        @Test(arguments: [true, false])
        func blockingFunctionTriggersAreChecked(emulator: Bool) async throws {
            try await withServer(emulator: emulator) { (server: TestServer, client: TestClient) async throws in
                let admin = try await Admin(server, client)
                func triggers(_ triggers: JSONValue) async throws -> TestClient.Reply {
                    try await admin.patch(["blockingFunctions": ["triggers": triggers]])
                }
                let event = try await triggers(["invalidEventTrigger": ["functionUri": "http://localhost"]])
                #expect(event.status == 400)
                #expect(event.errorMessage == "INVALID_BLOCKING_FUNCTION : ((Event type is invalid.))")
                for uri: JSONValue in ["invalidUri", "mailto:someone@example.com", "/relative", .null] {
                    let reply = try await triggers(["beforeCreate": ["functionUri": uri]])
                    #expect(reply.status == 400, "\(uri)")
                    #expect(reply.errorMessage == "INVALID_BLOCKING_FUNCTION : ((Expected an absolute URI with valid scheme and host.))")
                }
                #expect(try await admin.get()["blockingFunctions"] == [:])

                let valid: JSONValue = [
                    "beforeCreate": ["functionUri": "http://127.0.0.1:5001/demo/us-central1/beforeCreate"],
                    "beforeSignIn": ["functionUri": "https://example.com/before-sign-in"],
                ]
                #expect(try await triggers(valid)["blockingFunctions"] == ["triggers": valid])
            }
        }

        /// `blockingFunctions.triggers` replaces the triggers alone; `blockingFunctions` covers everything,
        /// so what the body lacks is cleared.
        @Test func blockingFunctionMasks() async throws {
            try await withServer { (server: TestServer, client: TestClient) async throws in
                let admin = try await Admin(server, client)
                let trigger: JSONValue = ["beforeSignIn": ["functionUri": "https://example.com/before-sign-in"]]
                _ = try await admin.patch(mask: "blockingFunctions", ["blockingFunctions": [
                    "triggers": ["beforeCreate": ["functionUri": "https://example.com/before-create"]],
                    "forwardInboundCredentials": ["accessToken": true, "refreshToken": true],
                ]])
                let triggersOnly = try await admin.patch(mask: "blockingFunctions.triggers",
                                                        ["blockingFunctions": ["triggers": trigger]])
                #expect(triggersOnly["blockingFunctions"] == [
                    "triggers": trigger, "forwardInboundCredentials": ["accessToken": true, "refreshToken": true],
                ])
                let whole = try await admin.patch(mask: "blockingFunctions", ["blockingFunctions": Self.forwardIDToken])
                #expect(whole["blockingFunctions"] == Self.forwardIDToken)
            }
        }

        /// "getConfig should return the project level config / updated config fields".
        @Test func getShowsTheEmulatorSettings() async throws {
            try await withServer { (server: TestServer, client: TestClient) async throws in
                let admin = try await Admin(server, client)
                let initial = try await admin.get()
                #expect(initial["signIn"]?["allowDuplicateEmails"] == false)
                #expect(initial["blockingFunctions"] == [:])
                _ = try await admin.patch(["signIn": ["allowDuplicateEmails": true], "blockingFunctions": Self.forwardIDToken])
                let updated = try await admin.get()
                #expect(updated["signIn"]?["allowDuplicateEmails"] == true)
                #expect(updated["blockingFunctions"] == Self.forwardIDToken)
            }
        }

        /// Settings stored before blocking functions existed still load.
        @Test func storedSettingsWithoutBlockingFunctionsDecode() throws {
            var settings = ProjectSettings(
                authorizedDomains: ["localhost"], improvedEmailPrivacy: false,
                passwordHash: .init(sealedSignerKey: "key", saltSeparator: "Bw==", rounds: 8, memoryCost: 14))
            settings.blockingFunctions.forwardsIDToken = true
            var stored = try JSONDecoder().decode([String: JSONValue].self, from: JSONEncoder().encode(settings))
            #expect(stored.removeValue(forKey: "blockingFunctions") != nil)
            let loaded = try JSONDecoder().decode(ProjectSettings.self, from: JSONEncoder().encode(stored))
            #expect(loaded.blockingFunctions == ProjectSettings.BlockingFunctions())
        }

        /// `flint projects config --server` against an emulator names the fields it sets, so it resets nothing.
        @Test func cliChangesAnEmulatorsConfigWithoutResettingIt() async throws {
            let flint = try FlintCLI()
            defer { flint.removeDataDirectory() }
            try await withServer { (server: TestServer, client: TestClient) async throws in
                let admin = try await Admin(server, client)
                _ = try await admin.patch(mask: "signIn.allowDuplicateEmails", ["signIn": ["allowDuplicateEmails": true]])
                try await flint.succeed(arguments: [
                    "projects", "config", server.projectID, "--set", "signIn.anonymous.enabled=false",
                    "--server", server.baseURL.absoluteString,
                ])
                let config = try await admin.get()
                #expect(config["signIn"]?["anonymous"]?["enabled"] == false)
                #expect(config["signIn"]?["allowDuplicateEmails"] == true)
            }
        }
    }

    /// `misc.spec.ts`: the emulator's own `GET/PATCH /emulator/v1/projects/{p}/config`.
    @Suite struct EmulatorConfig {
        static func patch(_ client: TestClient, _ server: TestServer, _ body: JSONValue) async throws -> TestClient.Reply {
            try await client.send("PATCH", "/emulator/v1/projects/\(server.projectID)/config", body: JSONEncoder().encode(body),
                                  includeKey: false)
        }

        static func settings(_ allowDuplicateEmails: Bool, _ improvedEmailPrivacy: Bool) -> JSONValue {
            ["signIn": ["allowDuplicateEmails": .bool(allowDuplicateEmails)],
             "emailPrivacyConfig": ["enableImprovedEmailPrivacy": .bool(improvedEmailPrivacy)]]
        }

        /// "should return config" (the two settings, nothing else).
        @Test func getShowsTheTwoSettings() async throws {
            try await withServer { (server: TestServer, client: TestClient) async throws in
                let reply = try await client.send("GET", "/emulator/v1/projects/\(server.projectID)/config", includeKey: false)
                #expect(reply.status == 200)
                #expect(reply.body == Self.settings(false, false))
            }
        }

        /// "should only update allowDuplicateEmails" / "… enableImprovedEmailPrivacy": a body that sets one
        /// setting leaves the other as it is.
        @Test func patchChangesOnlyTheSettingItSets() async throws {
            try await withServer { (server: TestServer, client: TestClient) async throws in
                #expect(try await Self.patch(client, server, ["signIn": ["allowDuplicateEmails": true]]).body == Self.settings(true, false))
                #expect(try await Self.patch(client, server, ["emailPrivacyConfig": ["enableImprovedEmailPrivacy": true]]).body
                    == Self.settings(true, true))
                #expect(try await Self.patch(client, server, ["signIn": ["allowDuplicateEmails": false]]).body == Self.settings(false, true))
                #expect(try await Self.patch(client, server, ["emailPrivacyConfig": ["enableImprovedEmailPrivacy": false]]).body
                    == Self.settings(false, false))
            }
        }

        /// A body that sets neither is an empty mask, the official emulator's full update: both settings and
        /// the blocking functions go back to their defaults; sign-in methods stay.
        @Test func emptyPatchResetsTheEmulatorSettings() async throws {
            try await withServer { (server: TestServer, client: TestClient) async throws in
                let admin = try await Config.Admin(server, client)
                _ = try await admin.patch(mask: "signIn.allowDuplicateEmails,emailPrivacyConfig,blockingFunctions,signIn.phoneNumber.enabled", [
                    "signIn": ["allowDuplicateEmails": true, "phoneNumber": ["enabled": false]],
                    "emailPrivacyConfig": ["enableImprovedEmailPrivacy": true],
                    "blockingFunctions": Config.forwardIDToken,
                ])
                #expect(try await Self.patch(client, server, [:]).body == Self.settings(false, false))
                let config = try await admin.get()
                #expect(config["blockingFunctions"] == [:])
                #expect(config["signIn"]?["phoneNumber"]?["enabled"] == false)
            }
        }
    }
}
