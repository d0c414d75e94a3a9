@testable import FlintAuth
import FlintWire
import Foundation
import Testing

/// Multi-factor enrollment and second-factor sign-in against a scripted backend.
@Suite struct MultiFactorUnitTests {
    /// A server with one user, `uid-1` (`ada@example.com`), whose enrolled factors the enrollment RPCs change.
    /// The password `mfa-password` (and any other first factor) asks for a second factor; `password` signs in.
    final class World: Sendable {
        /// The IDs of the enrolled factors, `phone-1` and `totp-1` being the ones there are.
        let enrolled: Locked<[String]>
        let client: FakeHTTPClient

        static func factor(_ id: String) -> [String: Any] {
            id == "phone-1"
                ? ["mfaEnrollmentId": "phone-1", "displayName": "Work phone", "phoneInfo": "+15555550111",
                   "enrolledAt": "2026-11-23T10:00:00.000Z"]
                : ["mfaEnrollmentId": "totp-1", "displayName": "Authenticator", "totpInfo": [String: Any](),
                   "enrolledAt": "2026-11-23T11:00:00.000Z"]
        }

        /// The first-factor answer: the factors, the phone masked, and an entry of an unknown kind.
        static var challenge: [String: Any] {
            ["localId": "uid-1", "email": "ada@example.com", "mfaPendingCredential": "pending-1",
             "mfaInfo": [["mfaEnrollmentId": "phone-1", "displayName": "Work phone", "phoneInfo": "+*******0111",
                          "enrolledAt": "2026-11-23T10:00:00.000Z"],
                         ["mfaEnrollmentId": "totp-1", "displayName": "Authenticator", "totpInfo": [String: Any]()],
                         ["mfaEnrollmentId": "email-1"]]]
        }

        /// The ID tokens after an enrollment and after a withdrawal.
        static let enrolledToken = jwt(uid: "uid-1", exp: 2_000_000_100)
        static let withdrawnToken = jwt(uid: "uid-1", exp: 2_000_000_200)

        init(enrolled: [String] = []) {
            let state = Locked(enrolled)
            self.enrolled = state
            client = FakeHTTPClient { sent in Self.answer(sent, enrolled: state) }
        }

        private static func answer(_ sent: FakeHTTPClient.Sent, enrolled: Locked<[String]>) -> FakeHTTPClient.Reply {
            switch sent.rpc {
            case "accounts:signInWithPassword":
                if sent.string("password") == "password" {
                    return .ok(["localId": "uid-1", "idToken": "id-1", "refreshToken": "refresh-1", "expiresIn": "3600"])
                }
                return .ok(challenge)
            case "accounts:signInWithEmailLink", "accounts:signInWithPhoneNumber", "accounts:signInWithIdp":
                return .ok(challenge)
            case "accounts:lookup":
                return .ok(["users": [["localId": "uid-1", "email": "ada@example.com", "mfaInfo": enrolled.withLock { $0 }.map(factor)]]])
            case "recaptchaConfig":
                return .ok(["recaptchaEnforcementState": [["provider": "PHONE_PROVIDER", "enforcementState": "AUDIT"]]])
            case "accounts:verifyClient":
                return .ok(["receipt": "receipt-1", "suggestedTimeout": "30"])
            case "mfaSignIn:start":
                return .ok(["phoneResponseInfo": ["sessionInfo": "mfa-signin-session"]])
            case "mfaSignIn:finalize":
                return .ok(["idToken": jwt(uid: "uid-1", exp: 2_000_000_000), "refreshToken": "refresh-mfa"])
            case "mfaEnrollment:start":
                if sent.body["totpEnrollmentInfo"] != nil {
                    return .ok(["totpSessionInfo": ["sharedSecretKey": "JBSWY3DPEHPK3PXP", "verificationCodeLength": 6,
                                                    "hashingAlgorithm": "SHA1", "periodSec": 30,
                                                    "sessionInfo": "totp-enrollment-session",
                                                    "finalizeEnrollmentTime": "2026-11-23T12:00:00Z"]])
                }
                return .ok(["phoneSessionInfo": ["sessionInfo": "phone-enrollment-session"]])
            case "mfaEnrollment:finalize":
                enrolled.withLock { $0.append(sent.body["totpVerificationInfo"] != nil ? "totp-1" : "phone-1") }
                return .ok(["idToken": enrolledToken, "refreshToken": "refresh-enrolled"])
            case "mfaEnrollment:withdraw":
                let id = sent.string("mfaEnrollmentId")
                enrolled.withLock { $0.removeAll { $0 == id } }
                return .ok(["idToken": withdrawnToken, "refreshToken": "refresh-withdrawn"])
            default:
                return .error("UNEXPECTED_RPC : \(sent.rpc)", status: 404)
            }
        }
    }

    /// An unsigned JWT with the claims `AuthTokenResult` needs.
    static func jwt(uid: String, exp: Int) -> String {
        func part(_ json: String) -> String {
            Data(json.utf8).base64EncodedString().replacingOccurrences(of: "=", with: "")
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        }
        let claims = #"{"sub":"\#(uid)","exp":\#(exp),"iat":\#(exp - 3600),"auth_time":\#(exp - 3600),"firebase":{"sign_in_provider":"password","sign_in_second_factor":"phone"}}"#
        return part(#"{"alg":"none"}"#) + "." + part(claims) + "."
    }

    /// The `MultiFactorResolver` of a `secondFactorRequired` error thrown by `body`.
    static func resolver(_ body: () async throws -> Any) async throws -> MultiFactorResolver {
        let error = await expectAuthError(.secondFactorRequired) { try await body() }
        return try #require(error?.userInfo[AuthErrorUserInfoMultiFactorResolverKey] as? MultiFactorResolver)
    }

    static func date(_ text: String) -> Date {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text)!
    }

    @Test func passwordSignInOfEnrolledUserRequiresSecondFactor() async throws {
        let world = World()
        try await withFakeAuth(client: world.client) { auth in
            let resolver = try await Self.resolver { try await auth.signIn(withEmail: "ada@example.com", password: "mfa-password") }
            #expect(resolver.auth === auth)
            #expect(resolver.hints.count == 2)
            let phone = try #require(resolver.hints.first as? PhoneMultiFactorInfo)
            #expect(phone.uid == "phone-1")
            #expect(phone.displayName == "Work phone")
            #expect(phone.factorID == PhoneMultiFactorID)
            #expect(phone.phoneNumber == "+*******0111")
            #expect(phone.enrollmentDate == Self.date("2026-11-23T10:00:00.000Z"))
            let totp = try #require(resolver.hints.last as? TOTPMultiFactorInfo)
            #expect(totp.uid == "totp-1")
            #expect(totp.displayName == "Authenticator")
            #expect(totp.factorID == TOTPMultiFactorID)
            #expect(abs(totp.enrollmentDate.timeIntervalSinceNow) < 60)
            #expect(auth.currentUser == nil)
            #expect(world.client.requests("accounts:lookup").isEmpty)
        }
    }

    @Test func everyFirstFactorRequiresSecondFactor() async throws {
        let world = World()
        try await withFakeAuth(client: world.client) { auth in
            let link = "https://flint.test/__/auth/action?mode=signIn&oobCode=code-1&apiKey=fake-api-key"
            let phone = PhoneAuthProvider.provider(auth: auth).credential(withVerificationID: "session", verificationCode: "123456")
            let credentials: [AuthCredential] = [
                EmailAuthProvider.credential(withEmail: "ada@example.com", link: link),
                phone,
                OAuthProvider.appleCredential(withIDToken: "apple.jwt", rawNonce: "nonce", fullName: nil),
            ]
            for credential in credentials {
                let resolver = try await Self.resolver { try await auth.signIn(with: credential) }
                #expect(resolver.hints.map(\.uid) == ["phone-1", "totp-1"], "\(credential.provider)")
            }
            #expect(auth.currentUser == nil)
        }
    }

    @Test func phoneHintSignsInOnTheAuth() async throws {
        let world = World()
        try await withFakeAuth(client: world.client) { auth in
            auth.settings?.isAppVerificationDisabledForTesting = true
            let resolver = try await Self.resolver { try await auth.signIn(withEmail: "ada@example.com", password: "mfa-password") }
            let hint = try #require(resolver.hints.first as? PhoneMultiFactorInfo)
            let provider = PhoneAuthProvider.provider(auth: auth)
            let verificationID = try await provider.verifyPhoneNumber(with: hint, uiDelegate: nil,
                                                                      multiFactorSession: resolver.session)
            #expect(verificationID == "mfa-signin-session")
            let start = try #require(world.client.requests("mfaSignIn:start").first)
            #expect(start.url.path.hasSuffix("/identitytoolkit.googleapis.com/v2/accounts/mfaSignIn:start"))
            #expect(start.string("mfaPendingCredential") == "pending-1")
            #expect(start.string("mfaEnrollmentId") == "phone-1")
            #expect(start.body["phoneSignInInfo"] as? [String: String] == ["phoneNumber": "+*******0111"])

            let credential = provider.credential(withVerificationID: verificationID, verificationCode: "654321")
            let assertion = PhoneMultiFactorGenerator.assertion(with: credential)
            #expect(assertion.factorID == PhoneMultiFactorID)
            let result = try await resolver.resolveSignIn(with: assertion)

            let finalize = try #require(world.client.requests("mfaSignIn:finalize").first)
            #expect(finalize.url.path.hasSuffix("/v2/accounts/mfaSignIn:finalize"))
            #expect(finalize.string("mfaPendingCredential") == "pending-1")
            #expect(finalize.body["phoneVerificationInfo"] as? [String: String]
                == ["sessionInfo": "mfa-signin-session", "code": "654321"])
            #expect(finalize.body["totpVerificationInfo"] == nil)
            #expect(result.user.uid == "uid-1")
            #expect(result.user.email == "ada@example.com")
            #expect(result.additionalUserInfo == nil)
            #expect(auth.currentUser === result.user)
            #expect(result.user.refreshToken == "refresh-mfa")
            #expect(world.client.requests("accounts:lookup").last?.string("idToken") == Self.jwt(uid: "uid-1", exp: 2_000_000_000))
            // The ID token's `exp` stands in for the missing `expiresIn`: no refresh before use.
            #expect(try await result.user.getIDToken() == Self.jwt(uid: "uid-1", exp: 2_000_000_000))
        }
    }

    @Test func totpHintSignsIn() async throws {
        let world = World()
        try await withFakeAuth(client: world.client) { auth in
            let resolver = try await Self.resolver { try await auth.signIn(withEmail: "ada@example.com", password: "mfa-password") }
            let hint = try #require(resolver.hints.last as? TOTPMultiFactorInfo)
            let assertion = TOTPMultiFactorGenerator.assertionForSignIn(withEnrollmentID: hint.uid, oneTimePassword: "123456")
            #expect(assertion.factorID == TOTPMultiFactorID)
            let result = try await resolver.resolveSignIn(with: assertion)

            let finalize = try #require(world.client.requests("mfaSignIn:finalize").first)
            #expect(finalize.string("mfaPendingCredential") == "pending-1")
            #expect(finalize.string("mfaEnrollmentId") == "totp-1")
            #expect(finalize.body["totpVerificationInfo"] as? [String: String] == ["verificationCode": "123456"])
            #expect(finalize.body["phoneVerificationInfo"] == nil)
            #expect(auth.currentUser === result.user)
        }
    }

    @Test func completionHandlerForms() async throws {
        let world = World()
        try await withFakeAuth(client: world.client) { auth in
            let resolver = try await Self.resolver { try await auth.signIn(withEmail: "ada@example.com", password: "mfa-password") }
            let assertion = TOTPMultiFactorGenerator.assertionForSignIn(withEnrollmentID: "totp-1", oneTimePassword: "123456")
            let uid = await withCheckedContinuation { continuation in
                resolver.resolveSignIn(with: assertion) { result, _ in continuation.resume(returning: result?.user.uid) }
            }
            #expect(uid == "uid-1")
            let user = try #require(auth.currentUser)
            let session = await withCheckedContinuation { continuation in
                user.multiFactor.getSessionWithCompletion { session, _ in continuation.resume(returning: session) }
            }
            let enrollmentSession = try #require(session)
            let secret = await withCheckedContinuation { continuation in
                TOTPMultiFactorGenerator.generateSecret(with: enrollmentSession) { secret, _ in continuation.resume(returning: secret) }
            }
            let enrollment = TOTPMultiFactorGenerator.assertionForEnrollment(with: try #require(secret), oneTimePassword: "1")
            let error = await withCheckedContinuation { continuation in
                user.multiFactor.enroll(with: enrollment, displayName: nil) { continuation.resume(returning: $0) }
            }
            #expect(error == nil)
            #expect(user.multiFactor.enrolledFactors.map(\.uid) == ["totp-1"])
        }
    }

    @Test func reauthenticationResolvedUpdatesTheUser() async throws {
        let world = World()
        try await withFakeAuth(client: world.client) { auth in
            let user = try await auth.signIn(withEmail: "ada@example.com", password: "password").user
            let credential = EmailAuthProvider.credential(withEmail: "ada@example.com", password: "mfa-password")
            let resolver = try await Self.resolver { try await user.reauthenticate(with: credential) }
            let assertion = TOTPMultiFactorGenerator.assertionForSignIn(withEnrollmentID: "totp-1", oneTimePassword: "123456")
            let result = try await resolver.resolveSignIn(with: assertion)
            #expect(result.user === user)
            #expect(auth.currentUser === user)
            #expect(user.refreshToken == "refresh-mfa")
        }
    }

    @Test func totpEnrollment() async throws {
        let world = World()
        try await withFakeAuth(client: world.client) { auth in
            let user = try await auth.signIn(withEmail: "ada@example.com", password: "password").user
            #expect(user.multiFactor.enrolledFactors.isEmpty)
            let session = try await user.multiFactor.session()
            let secret = try await TOTPMultiFactorGenerator.generateSecret(with: session)
            #expect(secret.sharedSecretKey() == "JBSWY3DPEHPK3PXP")
            let start = try #require(world.client.requests("mfaEnrollment:start").first)
            #expect(start.url.path.hasSuffix("/identitytoolkit.googleapis.com/v2/accounts/mfaEnrollment:start"))
            #expect(start.string("idToken") == "id-1")
            #expect(start.body["totpEnrollmentInfo"] as? [String: String] == [:])
            #expect(start.body["phoneEnrollmentInfo"] == nil)

            let assertion = TOTPMultiFactorGenerator.assertionForEnrollment(with: secret, oneTimePassword: "123456")
            try await user.multiFactor.enroll(with: assertion, displayName: "Authenticator")
            let finalize = try #require(world.client.requests("mfaEnrollment:finalize").first)
            #expect(finalize.url.path.hasSuffix("/v2/accounts/mfaEnrollment:finalize"))
            #expect(finalize.string("idToken") == "id-1")
            #expect(finalize.string("displayName") == "Authenticator")
            #expect(finalize.body["totpVerificationInfo"] as? [String: String]
                == ["sessionInfo": "totp-enrollment-session", "verificationCode": "123456"])

            // The new tokens, and the factor after the reload.
            #expect(user.refreshToken == "refresh-enrolled")
            #expect(world.client.requests("accounts:lookup").last?.string("idToken") == World.enrolledToken)
            let factor = try #require(user.multiFactor.enrolledFactors.first as? TOTPMultiFactorInfo)
            #expect(factor.uid == "totp-1")
            #expect(factor.displayName == "Authenticator")
            #expect(factor.enrollmentDate == Self.date("2026-11-23T11:00:00.000Z"))
        }
    }

    @Test func phoneEnrollment() async throws {
        let world = World()
        try await withFakeAuth(client: world.client) { auth in
            auth.settings?.isAppVerificationDisabledForTesting = true
            let user = try await auth.signIn(withEmail: "ada@example.com", password: "password").user
            let session = try await user.multiFactor.session()
            let provider = PhoneAuthProvider.provider(auth: auth)
            let verificationID = try await provider.verifyPhoneNumber("+15555550111", uiDelegate: nil,
                                                                      multiFactorSession: session)
            #expect(verificationID == "phone-enrollment-session")
            let start = try #require(world.client.requests("mfaEnrollment:start").first)
            #expect(start.string("idToken") == "id-1")
            #expect(start.body["phoneEnrollmentInfo"] as? [String: String] == ["phoneNumber": "+15555550111"])
            #expect(world.client.requests("accounts:sendVerificationCode").isEmpty)

            let credential = provider.credential(withVerificationID: verificationID, verificationCode: "111222")
            try await user.multiFactor.enroll(with: PhoneMultiFactorGenerator.assertion(with: credential), displayName: nil)
            let finalize = try #require(world.client.requests("mfaEnrollment:finalize").first)
            #expect(finalize.body["displayName"] == nil)
            #expect(finalize.body["phoneVerificationInfo"] as? [String: String]
                == ["sessionInfo": "phone-enrollment-session", "code": "111222"])
            let factor = try #require(user.multiFactor.enrolledFactors.first as? PhoneMultiFactorInfo)
            #expect(factor.phoneNumber == "+15555550111")
        }
    }

    @Test func phoneSignInCodeCarriesTheAppProof() async throws {
        let world = World()
        try await withFakeAuth(client: world.client) { auth in
            auth.setAPNSToken(Data([1, 2, 3]), type: .prod)
            auth.phoneAuth.appCredentials.observeReceipts { receipt in
                _ = auth.canHandleNotification([AnyHashable("com.google.firebase.auth"): ["receipt": receipt, "secret": "secret-1"]])
            }
            let resolver = try await Self.resolver { try await auth.signIn(withEmail: "ada@example.com", password: "mfa-password") }
            let hint = try #require(resolver.hints.first as? PhoneMultiFactorInfo)
            _ = try await PhoneAuthProvider.provider(auth: auth).verifyPhoneNumber(with: hint, uiDelegate: nil,
                                                                                   multiFactorSession: resolver.session)
            let start = try #require(world.client.requests("mfaSignIn:start").first)
            #expect(start.body["phoneSignInInfo"] as? [String: String] == [
                "phoneNumber": "+*******0111", "iosReceipt": "receipt-1", "iosSecret": "secret-1",
                "captchaResponse": "NO_RECAPTCHA", "recaptchaVersion": "RECAPTCHA_ENTERPRISE",
            ])
        }
    }

    @Test func unenrollWithdrawsAndReloads() async throws {
        let world = World(enrolled: ["phone-1", "totp-1"])
        try await withFakeAuth(client: world.client) { auth in
            let user = try await auth.signIn(withEmail: "ada@example.com", password: "password").user
            let factors = user.multiFactor.enrolledFactors
            #expect(factors.map(\.uid) == ["phone-1", "totp-1"])
            #expect((factors.first as? PhoneMultiFactorInfo)?.phoneNumber == "+15555550111")

            try await user.multiFactor.unenroll(with: factors[0])
            let withdraw = try #require(world.client.requests("mfaEnrollment:withdraw").first)
            #expect(withdraw.url.path.hasSuffix("/identitytoolkit.googleapis.com/v2/accounts/mfaEnrollment:withdraw"))
            #expect(withdraw.string("idToken") == "id-1")
            #expect(withdraw.string("mfaEnrollmentId") == "phone-1")
            #expect(user.refreshToken == "refresh-withdrawn")
            #expect(user.multiFactor.enrolledFactors.map(\.uid) == ["totp-1"])

            try await user.multiFactor.unenroll(withFactorUID: "totp-1")
            #expect(world.client.requests("mfaEnrollment:withdraw").last?.string("idToken") == World.withdrawnToken)
            #expect(user.multiFactor.enrolledFactors.isEmpty)
        }
    }

    @Test func sessionsOfTheWrongKindFailBeforeAnyRequest() async throws {
        let world = World()
        try await withFakeAuth(client: world.client) { auth in
            let resolver = try await Self.resolver { try await auth.signIn(withEmail: "ada@example.com", password: "mfa-password") }
            let sent = world.client.requests.count
            await expectAuthError(.invalidMultiFactorSession) {
                try await TOTPMultiFactorGenerator.generateSecret(with: resolver.session)
            }
            let user = try await auth.signIn(withEmail: "ada@example.com", password: "password").user
            let session = try await user.multiFactor.session()
            let hint = try #require(resolver.hints.first as? PhoneMultiFactorInfo)
            await expectAuthError(.invalidMultiFactorSession) {
                try await PhoneAuthProvider.provider(auth: auth).verifyPhoneNumber(with: hint, uiDelegate: nil,
                                                                                   multiFactorSession: session)
            }
            await expectAuthError(.missingMultiFactorSession) {
                try await PhoneAuthProvider.provider(auth: auth).verifyPhoneNumber(with: hint, uiDelegate: nil,
                                                                                   multiFactorSession: nil)
            }
            #expect(world.client.requests.count == sent + 2) // The password sign-in and its lookup.
        }
    }

    @Test func qrCodeURL() {
        let secret = TOTPSecret(TOTPSessionInfo(sharedSecretKey: "JBSWY3DPEHPK3PXP", verificationCodeLength: 6,
                                                hashingAlgorithm: "SHA1", periodSec: 30, sessionInfo: "session",
                                                finalizeEnrollmentTime: "2026-11-23T12:00:00Z"))
        #expect(secret.generateQRCodeURL(withAccountName: "ada@example.com", issuer: "Flint App")
            == "otpauth://totp/Flint%20App:ada%40example.com?secret=JBSWY3DPEHPK3PXP&issuer=Flint%20App&algorithm=SHA1&digits=6&period=30")
        secret.openInOTPApp(withQRCodeURL: "otpauth://totp/x")
    }

    @Test func serverCodesOfMultiFactor() {
        let codes: [(String, AuthErrorCode)] = [
            ("MISSING_MFA_PENDING_CREDENTIAL", .missingMultiFactorSession),
            ("INVALID_MFA_PENDING_CREDENTIAL", .invalidMultiFactorSession),
            ("MISSING_MFA_ENROLLMENT_ID", .missingMultiFactorInfo), ("MFA_ENROLLMENT_NOT_FOUND", .multiFactorInfoNotFound),
            ("UNVERIFIED_EMAIL", .unverifiedEmail), ("SECOND_FACTOR_EXISTS", .secondFactorAlreadyEnrolled),
            ("SECOND_FACTOR_LIMIT_EXCEEDED", .maximumSecondFactorCountExceeded),
            ("UNSUPPORTED_FIRST_FACTOR", .unsupportedFirstFactor), ("CREDENTIAL_TOO_OLD_LOGIN_AGAIN", .requiresRecentLogin),
            ("MISSING_TOTP_VERIFICATION_CODE", .missingVerificationCode),
        ]
        for (server, client) in codes {
            #expect(AuthErrorUtils.serverCodes[server] == client, "\(server)")
        }
    }
}
