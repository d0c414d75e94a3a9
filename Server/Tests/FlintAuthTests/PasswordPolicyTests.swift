@testable import FlintAuth
import FlintWire
import Foundation
import Testing

/// `Auth.validatePassword(_:)` against a scripted backend: the v2 `passwordPolicy` request, the policy kept per
/// tenant, the check made on the device, and the server's `PASSWORD_DOES_NOT_MEET_REQUIREMENTS`.
@Suite struct PasswordPolicyTests {
    /// Identity Platform's answer for a policy that sets every requirement.
    static var strict: [String: Any] {
        ["customStrengthOptions": ["minPasswordLength": 8, "maxPasswordLength": 30,
                                   "containsLowercaseCharacter": true, "containsUppercaseCharacter": true,
                                   "containsNumericCharacter": true, "containsNonAlphanumericCharacter": true],
         "allowedNonAlphanumericCharacters": ["^", "$", "*", "."],
         "enforcementState": "ENFORCE", "forceUpgradeOnSignin": true, "schemaVersion": 1]
    }

    /// A policy of only a minimum length.
    static func minimum(_ length: Int) -> [String: Any] {
        ["customStrengthOptions": ["minPasswordLength": length], "enforcementState": "ENFORCE", "schemaVersion": 1]
    }

    typealias Reply = FakeHTTPClient.Reply

    /// A server whose `passwordPolicy` answers `policy(tenantId)` (the tenant's ID, `nil` for the project's
    /// policy), whose `signUp` rejects every password, and which knows no other RPC.
    static func server(_ policy: @escaping @Sendable (String?) -> Reply) -> FakeHTTPClient {
        FakeHTTPClient { sent in
            switch sent.rpc {
            case "passwordPolicy": policy(sent.query["tenantId"])
            case "accounts:signUp": .error("PASSWORD_DOES_NOT_MEET_REQUIREMENTS")
            default: .error("UNEXPECTED_RPC : \(sent.rpc)", status: 404)
            }
        }
    }

    /// Whether `auth` finds `password` valid in each tenant of `tenants` in turn (`nil`: the project), leaving
    /// `auth.tenantID` at the last one.
    static func verdicts(on password: String, by auth: Auth, in tenants: [String?]) async throws -> [Bool] {
        var verdicts: [Bool] = []
        for tenantID in tenants {
            auth.tenantID = tenantID
            verdicts.append(try await auth.validatePassword(password).isValid)
        }
        return verdicts
    }

    @Test func thePolicyIsFetchedOnceAndPasswordsAreCheckedOnTheDevice() async throws {
        let client = Self.server { _ in .ok(Self.strict) }
        try await withFakeAuth(client: client) { auth in
            let plain = try await auth.validatePassword("password")
            #expect(!plain.isValid)
            #expect(plain.meetsMinPasswordLength && plain.meetsMaxPasswordLength && plain.containsLowercaseLetter)
            #expect(!plain.containsUppercaseLetter && !plain.containsNumericCharacter && !plain.containsNonAlphanumericCharacter)
            let strong = try await auth.validatePassword("Passw0rd.")
            #expect(strong.isValid)
            #expect(strong.meetsMinPasswordLength && strong.meetsMaxPasswordLength && strong.containsLowercaseLetter
                && strong.containsUppercaseLetter && strong.containsNumericCharacter && strong.containsNonAlphanumericCharacter)
            let short = try await auth.validatePassword("Pw0.")
            #expect(!short.isValid && !short.meetsMinPasswordLength && short.containsNonAlphanumericCharacter)
            let long = try await auth.validatePassword("Passw0rd." + String(repeating: "x", count: 22))
            #expect(!long.isValid && !long.meetsMaxPasswordLength && long.meetsMinPasswordLength)

            let requests = client.requests("passwordPolicy")
            #expect(requests.count == 1, "the policy is kept")
            let request = try #require(requests.first)
            #expect(request.method == "GET")
            #expect(request.url.absoluteString
                == "http://flint.test/identitytoolkit.googleapis.com/v2/passwordPolicy?key=fake-api-key")
            #expect(request.headers["X-Client-Version"] == AuthBackend.clientVersion)
            #expect(client.requests.count == 1, "the password is sent nowhere")
        }
    }

    @Test func thePolicyIsTheServersAsItSaysIt() async throws {
        try await withFakeAuth(client: Self.server { _ in .ok(Self.strict) }) { auth in
            let policy = try await auth.validatePassword("").passwordPolicy
            #expect(policy.minPasswordLength == 8)
            #expect(policy.maxPasswordLength == 30)
            #expect(policy.containsLowercaseLetter && policy.containsUppercaseLetter)
            #expect(policy.containsNumericCharacter && policy.containsNonAlphanumericCharacter)
            #expect(policy.allowedNonAlphanumericCharacters == "^$*.")
            #expect(policy.enforcementState == "ENFORCE")
            #expect(policy.forceUpgradeOnSignin)
        }
    }

    @Test func aPolicyThatSetsNothingAsksForSixCharactersOnly() async throws {
        try await withFakeAuth(client: Self.server { _ in .ok([:]) }) { auth in
            let short = try await auth.validatePassword("12345")
            #expect(!short.isValid && !short.meetsMinPasswordLength)
            // Requirements the policy does not set count as met.
            #expect(short.meetsMaxPasswordLength && short.containsLowercaseLetter && short.containsUppercaseLetter
                && short.containsNumericCharacter && short.containsNonAlphanumericCharacter)
            let six = try await auth.validatePassword("123456")
            #expect(six.isValid)

            let policy = short.passwordPolicy
            #expect(policy.minPasswordLength == 6 && policy.maxPasswordLength == nil)
            #expect(!policy.containsLowercaseLetter && !policy.containsUppercaseLetter)
            #expect(!policy.containsNumericCharacter && !policy.containsNonAlphanumericCharacter)
            #expect(policy.allowedNonAlphanumericCharacters == "")
            #expect(policy.enforcementState == "OFF")
            #expect(!policy.forceUpgradeOnSignin)
        }
    }

    @Test func anUnspecifiedEnforcementStateIsOff() throws {
        let unspecified = try PasswordPolicy(PasswordPolicyResponse(enforcementState: "ENFORCEMENT_STATE_UNSPECIFIED"))
        #expect(unspecified.enforcementState == "OFF")
        #expect(try PasswordPolicy(PasswordPolicyResponse(enforcementState: "ENFORCE")).enforcementState == "ENFORCE")
    }

    @Test func eachTenantHasItsOwnPolicy() async throws {
        let client = Self.server { tenantID in .ok(Self.minimum(tenantID == "tenant-a" ? 10 : 6)) }
        try await withFakeAuth(client: client) { auth in
            let verdicts = try await Self.verdicts(on: "12345678", by: auth, in: [nil, "tenant-a", nil, "tenant-a"])
            #expect(verdicts == [true, false, true, false])
            let long = try await auth.validatePassword("1234567890")
            #expect(long.isValid, "tenant-a asks for 10 characters")

            let fetches = client.requests("passwordPolicy")
            #expect(fetches.map { $0.query["tenantId"] } == [nil, "tenant-a"], "one fetch per tenant")
            #expect(fetches.allSatisfy { $0.query["key"] == "fake-api-key" })
        }
    }

    @Test func aPolicyOfAnotherSchemaVersionIsAnInternalErrorAndIsNotKept() async throws {
        let client = Self.server { _ in .ok(["customStrengthOptions": ["minPasswordLength": 8], "schemaVersion": 2]) }
        try await withFakeAuth(client: client) { auth in
            await expectAuthError(.internalError) { try await auth.validatePassword("password") }
            await expectAuthError(.internalError) { try await auth.validatePassword("password") }
            #expect(client.requests("passwordPolicy").count == 2)
        }
    }

    @Test func aFailedFetchIsReportedAndTriedAgainNextTime() async throws {
        let attempts = Counter()
        let client = Self.server { _ in attempts.next() == 1 ? .error("TOO_MANY_ATTEMPTS_TRY_LATER", status: 429) : .ok(Self.strict) }
        try await withFakeAuth(client: client) { auth in
            await expectAuthError(.tooManyRequests) { try await auth.validatePassword("Passw0rd.") }
            let retried = try await auth.validatePassword("Passw0rd.")
            #expect(retried.isValid)
            #expect(client.requests("passwordPolicy").count == 2)
        }
        let offline = FakeHTTPClient { _ in throw URLError(.notConnectedToInternet) }
        try await withFakeAuth(client: offline) { auth in
            await expectAuthError(.networkError) { try await auth.validatePassword("Passw0rd.") }
        }
    }

    @Test func theServersRejectionIsItsOwnCodeAndCarriesItsDetail() async throws {
        let detail = "Missing password requirements: [Password must contain a numeric character]"
        let client = FakeHTTPClient { sent in
            sent.rpc == "accounts:signUp"
                ? .error("PASSWORD_DOES_NOT_MEET_REQUIREMENTS : \(detail)")
                : .error("UNEXPECTED_RPC : \(sent.rpc)", status: 404)
        }
        try await withFakeAuth(client: client) { auth in
            let error = await expectAuthError(.passwordDoesNotMeetRequirements) {
                try await auth.createUser(withEmail: "ada@example.com", password: "password")
            }
            #expect(error?.localizedDescription == detail)
            #expect(error?.userInfo[AuthErrorUserInfoNameKey] as? String == "ERROR_PASSWORD_DOES_NOT_MEET_REQUIREMENTS")
            #expect(error?.code == 17211)
        }
        try await withFakeAuth(client: Self.server { _ in .ok(Self.strict) }) { auth in
            let error = await expectAuthError(.passwordDoesNotMeetRequirements) {
                try await auth.createUser(withEmail: "ada@example.com", password: "password")
            }
            #expect(error?.localizedDescription == "The password does not meet the project's password policy.")
        }
    }

    @Test func aRejectedPasswordMakesTheNextCheckFetchThatTenantsPolicyAgain() async throws {
        let projectMinimum = Locked(6)
        let client = Self.server { tenantID in .ok(Self.minimum(tenantID == nil ? projectMinimum.withLock { $0 } : 8)) }
        try await withFakeAuth(client: client) { auth in
            let before = try await Self.verdicts(on: "12345678", by: auth, in: ["tenant-a", nil])
            #expect(before == [true, true])

            // The administrator raises the project's minimum; the server rejects a password the old policy allows.
            projectMinimum.withLock { $0 = 10 }
            let kept = try await auth.validatePassword("12345678")
            #expect(kept.isValid, "the policy kept is the old one")
            await expectAuthError(.passwordDoesNotMeetRequirements) {
                try await auth.createUser(withEmail: "ada@example.com", password: "12345678")
            }
            let after = try await Self.verdicts(on: "12345678", by: auth, in: [nil, "tenant-a"])
            #expect(after == [false, true])

            #expect(client.requests("passwordPolicy").map { $0.query["tenantId"] } == ["tenant-a", nil, nil],
                    "only the project's policy is fetched again")
        }
    }

    @Test func theCompletionFormAnswersOnTheMainQueue() async throws {
        try await withFakeAuth(client: Self.server { _ in .ok(Self.strict) }) { auth in
            let (isValid, onMain) = await withCheckedContinuation { continuation in
                auth.validatePassword("Passw0rd.") { status, _ in
                    continuation.resume(returning: (status?.isValid, isOnMainQueue()))
                }
            }
            #expect(isValid == true)
            #expect(onMain)
        }
        try await withFakeAuth(client: FakeHTTPClient { _ in throw URLError(.timedOut) }) { auth in
            let (status, error) = await withCheckedContinuation { continuation in
                auth.validatePassword("Passw0rd.") { status, error in continuation.resume(returning: (status, error)) }
            }
            #expect(status == nil)
            #expect(error.flatMap { AuthErrorCode($0) } == .networkError)
        }
    }
}
