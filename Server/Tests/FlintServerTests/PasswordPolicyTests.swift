import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
import Testing

/// Identity Platform's password policy: set through the v2 config as the Admin SDKs set it, read by the SDKs from
/// `GET v2/passwordPolicy`, and enforced on every password an end user sets and, with `forceUpgradeOnSignin`, on
/// sign-in.
@Suite struct PasswordPolicyTests {
    /// 10 to 40 characters, all four kinds, enforced.
    static let strict: [String: JSONValue] = [
        "passwordPolicyEnforcementState": "ENFORCE", "forceUpgradeOnSignin": false,
        "passwordPolicyVersions": [["customStrengthOptions": [
            "minPasswordLength": .number(10), "maxPasswordLength": .number(40), "containsLowercaseCharacter": true,
            "containsUppercaseCharacter": true, "containsNumericCharacter": true, "containsNonAlphanumericCharacter": true,
        ]]],
    ]

    private func setPolicy(_ client: TestClient, _ server: TestServer, _ policy: [String: JSONValue], mask: String = "passwordPolicyConfig")
        async throws -> TestClient.Reply {
        try await client.send("PATCH", "/v2/projects/\(server.projectID)/config?updateMask=\(mask)",
                              body: JSONEncoder().encode(JSONValue.object(["passwordPolicyConfig": .object(policy)])),
                              headers: ["Authorization": "Bearer owner"], includeKey: false)
    }

    @Test(arguments: TestDatabase.allCases)
    func anEnforcedPolicyRefusesWeakPasswordsAndSaysWhy(database: TestDatabase) async throws {
        try await withServer(database: database) { server, client in
            // Before any policy: Firebase's default, not enforced.
            let initial = try await client.send("GET", "/v2/passwordPolicy")
            #expect(initial.status == 200 && initial["enforcementState"] == "OFF", "\(initial.body)")
            #expect(initial["customStrengthOptions"]?["minPasswordLength"] == .number(6) && initial["schemaVersion"] == .number(1))

            let set = try await setPolicy(client, server, Self.strict)
            #expect(set.status == 200, "\(set.body)")
            #expect(set["passwordPolicyConfig"]?["passwordPolicyEnforcementState"] == "ENFORCE")
            #expect(set["passwordPolicyConfig"]?["passwordPolicyVersions"]?.arrayValue?.first?["customStrengthOptions"]?["minPasswordLength"]
                    == .number(10))
            let policy = try await client.send("GET", "/v2/passwordPolicy")
            #expect(policy["enforcementState"] == "ENFORCE" && policy["forceUpgradeOnSignin"] == false)
            #expect(policy["customStrengthOptions"]?["maxPasswordLength"] == .number(40)
                    && policy["customStrengthOptions"]?["containsNonAlphanumericCharacter"] == true)
            #expect(policy["allowedNonAlphanumericCharacters"]?.arrayValue?.contains("!") == true)

            // Sign-up: every missing requirement named.
            func signUp(_ email: String, _ password: String) async throws -> TestClient.Reply {
                try await client.post("/v1/accounts:signUp", ["email": .string(email), "password": .string(password), "returnSecureToken": true])
            }
            let weak = try await signUp("weak@example.com", "short")
            #expect(weak.errorCode == "PASSWORD_DOES_NOT_MEET_REQUIREMENTS")
            #expect(weak.errorMessage == "PASSWORD_DOES_NOT_MEET_REQUIREMENTS : Missing password requirements: [Password must contain at "
                    + "least 10 characters, Password must contain an upper case character, Password must contain a numeric character, "
                    + "Password must contain a non-alphanumeric character]")
            let long = try await signUp("long@example.com", String(repeating: "aA1!", count: 11))
            #expect(long.errorMessage?.contains("Password may contain at most 40 characters") == true)
            let good = "Tr0ub4dor&3xyz"
            let user = try await client.signUp(email: "strong@example.com", password: good)
            #expect(user.status == 200, "\(user.body)")

            // A change of password and a reset are held to it too; an admin is not.
            let idToken = try #require(user.string("idToken"))
            #expect(try await client.post("/v1/accounts:update", ["idToken": .string(idToken), "password": "alllowercase-long"])
                .errorMessage?.contains("upper case") == true)
            #expect(try await client.post("/v1/accounts:sendOobCode", ["requestType": "PASSWORD_RESET", "email": "strong@example.com"])
                .status == 200)
            let code = try #require(try await client.oobCodes(server).last?["oobCode"]?.stringValue)
            #expect(try await client.post("/v1/accounts:resetPassword", ["oobCode": .string(code), "newPassword": "weakweakweak"])
                .errorCode == "PASSWORD_DOES_NOT_MEET_REQUIREMENTS")
            #expect(try await client.post("/v1/accounts:resetPassword", ["oobCode": .string(code), "newPassword": "N3w-Passw0rd!"])
                .status == 200)
            #expect(try await client.admin("/v1/projects/\(server.projectID)/accounts", [
                "email": "admin-made@example.com", "password": "simple-one",
            ]).status == 200)

            // Not enforced: only Firebase's own rule.
            #expect(try await setPolicy(client, server, ["passwordPolicyEnforcementState": "OFF"],
                                        mask: "passwordPolicyConfig.passwordPolicyEnforcementState").status == 200)
            #expect(try await client.signUp(email: "off@example.com", password: "simple").status == 200)
        }
    }

    @Test func forceUpgradeOnSigninRefusesAnOldWeakPassword() async throws {
        try await withServer { server, client in
            #expect(try await client.signUp(email: "old@example.com", password: "old-weak").status == 200)
            var policy = Self.strict
            policy["forceUpgradeOnSignin"] = true
            #expect(try await setPolicy(client, server, policy).status == 200)
            func signIn(_ password: String) async throws -> TestClient.Reply {
                try await client.post("/v1/accounts:signInWithPassword", [
                    "email": "old@example.com", "password": .string(password), "returnSecureToken": true])
            }
            // The right password, now too weak: refused (the user must reset it). A wrong one stays wrong.
            #expect(try await signIn("old-weak").errorCode == "PASSWORD_DOES_NOT_MEET_REQUIREMENTS")
            let wrong = try await signIn("not-it")
            #expect(["INVALID_LOGIN_CREDENTIALS", "INVALID_PASSWORD"].contains(wrong.errorCode ?? ""), "\(wrong.body)")
            // Without the upgrade rule, the old password still signs in.
            policy["forceUpgradeOnSignin"] = false
            #expect(try await setPolicy(client, server, policy).status == 200)
            #expect(try await signIn("old-weak").status == 200)
        }
    }

    private static func options(_ options: [String: JSONValue]) -> [String: JSONValue] {
        ["passwordPolicyEnforcementState": "ENFORCE", "passwordPolicyVersions": [["customStrengthOptions": .object(options)]]]
    }

    @Test func badPoliciesAreRefused() async throws {
        try await withServer { server, client in
            let refused: [[String: JSONValue]] = [
                Self.options(["minPasswordLength": .number(5)]), Self.options(["minPasswordLength": .number(31)]),
                Self.options(["minPasswordLength": .number(12), "maxPasswordLength": .number(10)]),
                        Self.options(["maxPasswordLength": .number(5000)]),
                        ["passwordPolicyEnforcementState": "MAYBE"],
                        ["passwordPolicyVersions": [["customStrengthOptions": [:]], ["customStrengthOptions": [:]]]]]
            for bad in refused {
                let reply = try await setPolicy(client, server, bad)
                #expect(reply.errorCode == "INVALID_ARGUMENT", "\(bad)")
            }
            #expect(try await client.send("GET", "/v2/passwordPolicy")["enforcementState"] == "OFF")
        }
    }
}
