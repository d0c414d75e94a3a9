@testable import FlintAuth
import Crypto
import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
import Testing

/// Multi-factor authentication through the SDK against a Flint server in emulator mode (codes read from
/// the server's SMS log): the seeds' sample for every first factor, TOTP, and the account lifecycle
/// (recent login, revocation, disabling, deletion).
@Suite struct MultiFactorTests {
    static let password = "correct horse battery"
    static let secondFactorPhone = "+15555550177"

    /// An admin call (`Bearer owner`) to the emulator-mode server.
    static func admin(_ server: TestServer, _ path: String, _ body: [String: JSONValue]) async throws {
        let reply = try await TestClient(server).post(path, body, headers: ["Authorization": "Bearer owner"])
        #expect(reply.status == 200, "\(reply.body)")
    }

    /// A signed-in password user with a verified email (enrollment needs one).
    static func verifiedUser(_ harness: Harness, email: String) async throws -> User {
        // Emulator mode checks no app credential; the SDK is told not to fetch one.
        harness.auth.settings?.isAppVerificationDisabledForTesting = true
        let user = try await harness.auth.createUser(withEmail: email, password: password).user
        try await admin(harness.server, "/v1/accounts:update", ["localId": .string(user.uid), "emailVerified": .bool(true)])
        try await user.reload()
        return user
    }

    /// The SMS code the server last sent to `number`.
    static func lastCode(_ harness: Harness, to number: String) throws -> String {
        try #require(harness.server.log.smsCodes(to: number).last)
    }

    /// Enrolls `secondFactorPhone` as "Work phone", as the seeds' enrollment screen does.
    static func enrollPhone(_ user: User, _ harness: Harness) async throws {
        let session = try await user.multiFactor.session()
        let provider = PhoneAuthProvider.provider(auth: harness.auth)
        let verificationID = try await provider.verifyPhoneNumber(secondFactorPhone, uiDelegate: nil, multiFactorSession: session)
        let credential = provider.credential(withVerificationID: verificationID,
                                             verificationCode: try lastCode(harness, to: secondFactorPhone))
        try await user.multiFactor.enroll(with: PhoneMultiFactorGenerator.assertion(with: credential), displayName: "Work phone")
        #expect(user.multiFactor.enrolledFactors.map(\.displayName) == ["Work phone"])
    }

    /// The seeds' sign-in sample: catch `secondFactorRequired`, list the hints by display name, pick the
    /// phone, verify it, and resolve the sign-in.
    static func resolveWithPhone(_ signIn: () async throws -> AuthDataResult, _ harness: Harness,
                                 sourceLocation: SourceLocation = #_sourceLocation) async throws -> AuthDataResult {
        do {
            _ = try await signIn()
            Issue.record("the first factor alone signed in", sourceLocation: sourceLocation)
            throw CancellationError()
        } catch let error as NSError where error.code == AuthErrorCode.secondFactorRequired.rawValue {
            let resolver = try #require(error.userInfo[AuthErrorUserInfoMultiFactorResolverKey] as? MultiFactorResolver,
                                        sourceLocation: sourceLocation)
            #expect(resolver.hints.map(\.displayName) == ["Work phone"], sourceLocation: sourceLocation)
            let hint = try #require(resolver.hints.first { $0.displayName == "Work phone" } as? PhoneMultiFactorInfo)
            #expect(hint.phoneNumber == "+*******0177", sourceLocation: sourceLocation)
            let provider = PhoneAuthProvider.provider(auth: harness.auth)
            let verificationID = try await provider.verifyPhoneNumber(with: hint, uiDelegate: nil,
                                                                      multiFactorSession: resolver.session)
            let credential = provider.credential(withVerificationID: verificationID,
                                                 verificationCode: try lastCode(harness, to: secondFactorPhone))
            let result = try await resolver.resolveSignIn(with: PhoneMultiFactorGenerator.assertion(with: credential))
            let token = try await result.user.getIDTokenResult()
            #expect(token.signInSecondFactor == "phone", sourceLocation: sourceLocation)
            #expect(harness.auth.currentUser?.uid == result.user.uid, sourceLocation: sourceLocation)
            return result
        }
    }

    @Test func phoneSecondFactorAfterEveryKindOfFirstFactor() async throws {
        try await withHarness { harness in
            let auth = harness.auth
            let email = Harness.email("mfa")
            let user = try await Self.verifiedUser(harness, email: email)
            // Other credentials on the same account: a phone number, Apple and Facebook (emulator tokens).
            let phoneProvider = PhoneAuthProvider.provider(auth: auth)
            let firstPhone = "+15555550178"
            func phoneCredential() async throws -> PhoneAuthCredential {
                let id = try await phoneProvider.verifyPhoneNumber(firstPhone, uiDelegate: nil)
                return phoneProvider.credential(withVerificationID: id, verificationCode: try Self.lastCode(harness, to: firstPhone))
            }
            _ = try await user.link(with: try await phoneCredential())
            let apple = OAuthProvider.appleCredential(withIDToken: #"{"sub":"apple-mfa-1"}"#, rawNonce: "nonce", fullName: nil)
            _ = try await user.link(with: apple)
            let facebook = OAuthProvider.credential(providerID: .facebook, idToken: #"{"sub":"fb-mfa-1"}"#)
            _ = try await user.link(with: facebook)
            try await Self.enrollPhone(user, harness)
            try auth.signOut()

            let byPassword = try await Self.resolveWithPhone({ try await auth.signIn(withEmail: email, password: Self.password) }, harness)
            #expect(try await byPassword.user.getIDTokenResult().signInProvider == "password")
            try auth.signOut()

            let link = try await EmailLinkTests.signInLink(to: email, harness)
            let byLink = try await Self.resolveWithPhone({ try await auth.signIn(withEmail: email, link: link) }, harness)
            #expect(byLink.user.uid == user.uid)
            try auth.signOut()

            // The phone number stays on the account, but is no first factor once it has second factors.
            await #expect { _ = try await phoneCredential() } throws: { error in
                (error as NSError).code == AuthErrorCode.unsupportedFirstFactor.rawValue
            }

            let byApple = try await Self.resolveWithPhone({
                try await auth.signIn(with: OAuthProvider.appleCredential(withIDToken: #"{"sub":"apple-mfa-1"}"#,
                                                                          rawNonce: "nonce", fullName: nil))
            }, harness)
            #expect(try await byApple.user.getIDTokenResult().signInProvider == "apple.com")
            try auth.signOut()

            let byFacebook = try await Self.resolveWithPhone({
                try await auth.signIn(with: OAuthProvider.credential(providerID: .facebook, idToken: #"{"sub":"fb-mfa-1"}"#))
            }, harness)
            #expect(byFacebook.user.uid == user.uid)
            #expect(try await byFacebook.user.getIDTokenResult().signInProvider == "facebook.com")
        }
    }

    /// RFC 6238 as an authenticator app computes it.
    static func totp(_ base32Secret: String, at date: Date, stepOffset: Int64 = 0) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
        var secret = Data()
        var buffer = 0
        var bits = 0
        for character in base32Secret {
            buffer = (buffer << 5) | (alphabet.firstIndex(of: character) ?? 0)
            bits += 5
            if bits >= 8 {
                secret.append(UInt8((buffer >> (bits - 8)) & 0xFF))
                bits -= 8
            }
        }
        var counter = UInt64(Int64(date.timeIntervalSince1970) / 30 + stepOffset).bigEndian
        let mac = Array(HMAC<Insecure.SHA1>.authenticationCode(for: withUnsafeBytes(of: &counter) { Data($0) },
                                                               using: SymmetricKey(data: secret)))
        let offset = Int(mac[19] & 0x0F)
        let value = (UInt32(mac[offset] & 0x7F) << 24) | (UInt32(mac[offset + 1]) << 16) | (UInt32(mac[offset + 2]) << 8)
            | UInt32(mac[offset + 3])
        return String(format: "%06u", value % 1_000_000)
    }

    @Test func totpSecondFactor() async throws {
        try await withHarness { harness in
            let server = harness.server
            _ = try await server.server.updateProjectConfig(server.projectID, ProjectConfig(mfa: .init(
                providerConfigs: [.init(state: "ENABLED", totpProviderConfig: .init(adjacentIntervals: 1))])),
                updateMask: "mfa.providerConfigs")
            let auth = harness.auth
            let email = Harness.email("totp")
            let user = try await Self.verifiedUser(harness, email: email)
            let secret = try await TOTPMultiFactorGenerator.generateSecret(with: try await user.multiFactor.session())
            let qrURL = secret.generateQRCodeURL(withAccountName: email, issuer: "Flint")
            #expect(qrURL.hasPrefix("otpauth://totp/"))
            #expect(qrURL.contains("secret=\(secret.sharedSecretKey())"))
            let enrollmentCode = Self.totp(secret.sharedSecretKey(), at: server.clock.now())
            try await user.multiFactor.enroll(
                with: TOTPMultiFactorGenerator.assertionForEnrollment(with: secret, oneTimePassword: enrollmentCode),
                displayName: "Authenticator")
            #expect(user.multiFactor.enrolledFactors.first?.factorID == TOTPMultiFactorID)
            try auth.signOut()

            var resolver: MultiFactorResolver?
            do {
                _ = try await auth.signIn(withEmail: email, password: Self.password)
            } catch let error as NSError where error.code == AuthErrorCode.secondFactorRequired.rawValue {
                resolver = error.userInfo[AuthErrorUserInfoMultiFactorResolverKey] as? MultiFactorResolver
            }
            let found = try #require(resolver)
            let hint = try #require(found.hints.first as? TOTPMultiFactorInfo)
            #expect(hint.displayName == "Authenticator")
            func assertion(_ code: String) -> MultiFactorAssertion {
                TOTPMultiFactorGenerator.assertionForSignIn(withEnrollmentID: hint.uid, oneTimePassword: code)
            }
            // A reused code (the one that enrolled), an out-of-window code and a wrong code are refused.
            await expectAuthError(.invalidVerificationCode) { try await found.resolveSignIn(with: assertion(enrollmentCode)) }
            let late = Self.totp(secret.sharedSecretKey(), at: server.clock.now(), stepOffset: 3)
            await expectAuthError(.invalidVerificationCode) { try await found.resolveSignIn(with: assertion(late)) }
            let wrong = enrollmentCode == "000000" ? "000001" : "000000"
            await expectAuthError(.invalidVerificationCode) { try await found.resolveSignIn(with: assertion(wrong)) }
            #expect(auth.currentUser == nil)

            server.clock.advance(seconds: 30)
            let result = try await found.resolveSignIn(
                with: assertion(Self.totp(secret.sharedSecretKey(), at: server.clock.now())))
            #expect(result.user.uid == user.uid)
            #expect(try await result.user.getIDTokenResult().signInSecondFactor == "totp")
        }
    }

    @Test(arguments: TestDatabase.allCases)
    func recentLoginRevocationDisablingAndDeletion(database: TestDatabase) async throws {
        try await withHarness(database: database) { harness in
            let auth = harness.auth
            let server = harness.server
            let email = Harness.email("life")
            let user = try await Self.verifiedUser(harness, email: email)
            try await Self.enrollPhone(user, harness)

            // Sensitive changes need a sign-in of the last five minutes; re-authentication (with the
            // second factor, for this user) renews it.
            server.clock.advance(seconds: 301)
            await expectAuthError(.requiresRecentLogin) { try await user.updatePassword(to: "a new password 1") }
            await expectAuthError(.requiresRecentLogin) { try await user.delete() }
            _ = try await Self.resolveWithPhone({
                try await user.reauthenticate(with: EmailAuthProvider.credential(withEmail: email, password: Self.password))
            }, harness)
            try await user.updatePassword(to: "a new password 1")

            // Revocation: the session's refresh token stops working.
            server.clock.advance(seconds: 1)
            try await Self.admin(server, "/v1/accounts:update", [
                "localId": .string(user.uid), "validSince": .string(String(Int64(server.clock.now().timeIntervalSince1970))),
            ])
            server.clock.advance(seconds: 3600)
            await expectAuthError(.userTokenExpired) { try await user.getIDToken(forcingRefresh: true) }

            // Disabled users cannot sign in.
            try await Self.admin(server, "/v1/accounts:update", ["localId": .string(user.uid), "disableUser": .bool(true)])
            await expectAuthError(.userDisabled) { try await auth.signIn(withEmail: email, password: "a new password 1") }
            try await Self.admin(server, "/v1/accounts:update", ["localId": .string(user.uid), "disableUser": .bool(false)])

            // Deletion (after a fresh two-factor sign-in) leaves nothing behind.
            let fresh = try await Self.resolveWithPhone({
                try await auth.signIn(withEmail: email, password: "a new password 1")
            }, harness).user
            try await fresh.delete()
            #expect(auth.currentUser == nil)
            #expect(try await server.server.store.accounts.user(projectID: server.projectID, localID: fresh.uid) == nil)
            for table in ["user_identities", "refresh_tokens"] {
                let rows = try await server.server.store.database.query(
                    "SELECT COUNT(*) AS n FROM \(table) WHERE local_id = ?", [.text(fresh.uid)])
                #expect(rows.first?.int("n") == 0, "\(table)")
            }
        }
    }
}
