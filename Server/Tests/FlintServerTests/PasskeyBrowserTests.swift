import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
import Testing

/// Debian's headless Chromium with a DevTools virtual authenticator enrols a passkey against production mode and signs
/// in with it (Tests/python/passkey_browser.py): Chromium makes every byte the relying party checks.
@Suite struct PasskeyBrowserTests {
    @Test(arguments: TestDatabase.allCases)
    func chromiumEnrolsAndSignsInWithAPasskey(database: TestDatabase) async throws {
        let chromium = try #require(
            Chromium.executable(),
            "chromium is not installed: scripts/test.sh installs Debian's chromium package (apt-get install -y chromium)")
        try await withServer(emulator: false, database: database) { server, client in
            // http://localhost is a secure context, and `localhost` a valid RP ID for it.
            let origin = "http://localhost:\(server.port)"
            _ = try await server.server.configurePasskeys(
                server.projectID, PasskeyConfig(rpId: "localhost", expectedOrigins: [origin]))
            let signedUp = try await client.signUp(email: "chromium-passkey@example.com", password: "password123")
            let idToken = try #require(signedUp.string("idToken"), "\(signedUp.body)")
            let localID = try #require(signedUp.string("localId"))

            let run = try await BrowserDriver.run("passkey_browser.py", chromium: chromium, environment: [
                "FLINT_BASE": origin, "FLINT_API_KEY": server.apiKey, "FLINT_ID_TOKEN": idToken,
            ])
            let log = run["log"]?.arrayValue?.compactMap(\.stringValue) ?? []
            #expect(run["error"] == nil, "\(run["error"] ?? .null); log: \(log)")
            let steps = try #require(run["steps"]?.objectValue, "no steps: \(run)")
            func step(_ name: String) -> (status: Int?, body: JSONValue?) {
                let reply = steps[name]?.objectValue
                return (reply?["status"]?.numberValue.map { Int($0) }, reply?["body"])
            }

            // Enrolment: options for this RP and account, then the attested credential is kept.
            let creation = step("enrollStart").body?["credentialCreationOptions"]
            #expect(creation?["rp"]?["id"]?.stringValue == "localhost", "\(steps)")
            #expect(creation?["user"]?["id"]?.stringValue == Data(localID.utf8).base64EncodedString())
            #expect(step("enrollFinalize").status == 200, "\(step("enrollFinalize")); log: \(log)")
            #expect(step("enrollFinalize").body?["idToken"]?.stringValue != nil)

            // The authenticator holds one discoverable credential for `localhost`, its user handle the uid.
            let credential = try #require(run["credentials"]?.arrayValue?.first?.objectValue, "\(run)")
            #expect(run["credentials"]?.arrayValue?.count == 1)
            #expect(credential["rpId"]?.stringValue == "localhost" && credential["isResidentCredential"] == .bool(true))
            #expect(credential["userHandle"]?.stringValue.flatMap { Data(base64Encoded: $0) } == Data(localID.utf8))

            // Sign-in without a user name signs in to that account; the same answer again is refused.
            #expect(step("signInFinalize").status == 200, "\(step("signInFinalize")); log: \(log)")
            #expect(step("signInFinalize").body?["localId"]?.stringValue == localID)
            let signedIn = try #require(step("signInFinalize").body?["idToken"]?.stringValue)
            #expect(claims(of: signedIn)["firebase"]?["sign_in_provider"]?.stringValue == "passkey")
            #expect(step("replay").status == 400, "\(step("replay"))")
            #expect(step("replay").body?["error"]?["message"]?.stringValue?.hasPrefix("INVALID_AUTHENTICATOR_RESPONSE") == true)

            // The account lists the passkey by its name, with the counter and time of its last use.
            let passkeys = try await client.lookup(idToken: signedIn).firstUser?["passkeyInfo"]?.arrayValue ?? []
            #expect(passkeys.count == 1)
            #expect(passkeys.first?["name"]?.stringValue == "Chromium passkey")
            #expect(passkeys.first?["credentialId"]?.stringValue == credential["credentialId"]?.stringValue
                .flatMap { Data(base64Encoded: $0) }.map { Base64URL.encode($0) })
        }
    }
}
