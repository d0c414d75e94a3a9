@testable import FlintAuth
import FlintTestSupport
import FlintWire
import Foundation
import Testing

/// Email-link sign-in and the email actions end to end, driven through the SDK against a Flint
/// server in emulator mode; the emailed links are read back from the emulator's oob-code listing.
@Suite struct EmailLinkTests {
    /// Settings of a sign-in link continuing to an authorized domain (`localhost`).
    static func signInSettings(_ url: String = "http://localhost/finish?state=1") -> ActionCodeSettings {
        let settings = ActionCodeSettings()
        settings.url = URL(string: url)
        settings.handleCodeInApp = true
        settings.setIOSBundleID("dev.flint.tests")
        return settings
    }

    /// The emulator's list of the action codes it sent.
    static func oobCodes(_ server: TestServer) async throws -> [OobCodesResponse.Entry] {
        let reply = try await TestClient(server).send("GET", "/emulator/v1/projects/\(server.projectID)/oobCodes",
                                                      includeKey: false)
        #expect(reply.status == 200, "\(reply.body)")
        return try JSONDecoder().decode(OobCodesResponse.self, from: JSONEncoder().encode(reply.body)).oobCodes
    }

    /// Runs `send` and returns the one action code it made the server email.
    static func emailed(_ server: TestServer, sourceLocation: SourceLocation = #_sourceLocation,
                        by send: () async throws -> Void) async throws -> OobCodesResponse.Entry {
        let before = Set(try await oobCodes(server).map(\.oobCode))
        try await send()
        let new = try await oobCodes(server).filter { !before.contains($0.oobCode) }
        try #require(new.count == 1, "expected one new action code, got \(new)", sourceLocation: sourceLocation)
        return new[0]
    }

    /// Sends a sign-in link to `email` and returns the emailed link.
    static func signInLink(to email: String, _ harness: Harness, settings: ActionCodeSettings = signInSettings()) async throws -> String {
        let entry = try await emailed(harness.server) {
            try await harness.auth.sendSignInLink(toEmail: email, actionCodeSettings: settings)
        }
        #expect(entry.requestType == .emailSignIn)
        #expect(entry.email == email)
        return entry.oobLink
    }

    /// The app-link form of an action link: `{base}/__/auth/links?link=<action link>`.
    static func appLink(_ link: String, _ server: TestServer) -> String {
        server.baseURL.absoluteString + "/__/auth/links?link=" + encodeURIComponent(link)
    }

    /// Like Firebase, an email-link account has the `password` identity (its sign-in method is `emailLink`).
    static func expectPasswordProvider(_ user: User, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(user.providerData.map(\.providerID) == ["password"], sourceLocation: sourceLocation)
    }

    @Test func signInLinkCreatesTheUserThenSignsItIn() async throws {
        try await withHarness { harness in
            let email = Harness.email("link")
            let link = try await Self.signInLink(to: email, harness)
            #expect(harness.auth.isSignIn(withEmailLink: link))
            #expect(harness.auth.isSignIn(withEmailLink: Self.appLink(link, harness.server)))
            #expect(harness.auth.isSignIn(withEmailLink: "dev.flint.tests://google/link/?deep_link_id=" + encodeURIComponent(link)))

            let parts = try #require(ActionCodeURL(link: link))
            #expect(parts.operation == .emailLink)
            #expect(parts.apiKey == harness.server.apiKey)
            #expect(parts.continueURL?.absoluteString == "http://localhost/finish?state=1")
            let code = try #require(parts.code)
            // Checking a code does not use it up.
            #expect(try await harness.auth.checkActionCode(code).operation == .emailLink)

            let first = try await harness.auth.signIn(withEmail: email, link: link)
            #expect(first.additionalUserInfo?.isNewUser == true)
            #expect(first.additionalUserInfo?.providerID == "password")
            #expect(first.user.email == email)
            #expect(first.user.isEmailVerified)
            #expect(!first.user.isAnonymous)
            Self.expectPasswordProvider(first.user)
            #expect(harness.auth.currentUser === first.user)
            #expect(try await harness.auth.fetchSignInMethods(forEmail: email) == [EmailLinkAuthSignInMethod])

            try harness.auth.signOut()
            // A new link, presented in its wrapped app-link form, signs in the same user.
            let second = try await harness.auth.signIn(
                withEmail: email, link: Self.appLink(try await Self.signInLink(to: email, harness), harness.server))
            #expect(second.user.uid == first.user.uid)
            #expect(second.additionalUserInfo?.isNewUser == false)
        }
    }

    @Test func linkIsBoundToItsEmailAndUsableOnce() async throws {
        try await withHarness { harness in
            let email = Harness.email("once")
            let link = try await Self.signInLink(to: email, harness)
            await expectAuthError(.invalidEmail) {
                try await harness.auth.signIn(withEmail: Harness.email("other"), link: link)
            }
            #expect(harness.auth.currentUser == nil)

            let result = try await harness.auth.signIn(with: EmailAuthProvider.credential(withEmail: email, link: link))
            #expect(result.user.email == email)
            try harness.auth.signOut()
            await expectAuthError(.invalidActionCode) { try await harness.auth.signIn(withEmail: email, link: link) }
            #expect(harness.auth.currentUser == nil)
        }
    }

    /// In production (the emulator, like the official one, checks no domain).
    @Test func continueURLMustBeAuthorized() async throws {
        try await withHarness(emulator: false) { harness in
            _ = try await harness.server.server.updateProjectConfig(
                harness.server.projectID, ProjectConfig(signIn: .init(email: .init(enabled: true, passwordRequired: false))),
                updateMask: "signIn.email")
            await expectAuthError(.unauthorizedDomain) {
                try await harness.auth.sendSignInLink(toEmail: Harness.email(),
                                                      actionCodeSettings: Self.signInSettings("https://evil.example/finish"))
            }
        }
    }

    @Test func linksTheEmailToAnAnonymousUser() async throws {
        try await withHarness { harness in
            let anonymous = try await harness.auth.signInAnonymously().user
            #expect(anonymous.isAnonymous)
            let email = Harness.email("upgrade")
            let link = try await Self.signInLink(to: email, harness)
            let result = try await anonymous.link(with: EmailAuthProvider.credential(withEmail: email, link: link))
            #expect(result.user === anonymous)
            #expect(anonymous.uid == result.user.uid)
            #expect(!anonymous.isAnonymous)
            #expect(anonymous.email == email)
            #expect(anonymous.isEmailVerified)
            Self.expectPasswordProvider(anonymous)

            // The account now signs in by link.
            try harness.auth.signOut()
            let again = try await harness.auth.signIn(withEmail: email, link: try await Self.signInLink(to: email, harness))
            #expect(again.user.uid == anonymous.uid)
            #expect(again.additionalUserInfo?.isNewUser == false)
        }
    }

    @Test func reauthenticatesWithALink() async throws {
        try await withHarness { harness in
            let email = Harness.email("reauth")
            let user = try await harness.auth.signIn(withEmail: email, link: try await Self.signInLink(to: email, harness)).user
            let oldToken = user.refreshToken

            let result = try await user.reauthenticate(
                with: EmailAuthProvider.credential(withEmail: email, link: try await Self.signInLink(to: email, harness)))
            #expect(result.user === user)
            #expect(result.additionalUserInfo?.isNewUser == false)
            #expect(user.refreshToken != oldToken)
            #expect(harness.auth.currentUser === user)

            // Another account's link is a mismatch, and the signed-in user stays.
            let stranger = Harness.email("stranger")
            await expectAuthError(.userMismatch) {
                try await user.reauthenticate(
                    with: EmailAuthProvider.credential(withEmail: stranger, link: try await Self.signInLink(to: stranger, harness)))
            }
            #expect(harness.auth.currentUser === user)
        }
    }

    @Test func passwordReset() async throws {
        try await withHarness { harness in
            let email = Harness.email("reset")
            let uid = try await harness.auth.createUser(withEmail: email, password: "old password").user.uid
            try harness.auth.signOut()

            let entry = try await Self.emailed(harness.server) { try await harness.auth.sendPasswordReset(withEmail: email) }
            #expect(entry.requestType == .passwordReset)
            #expect(entry.email == email)
            let parts = try #require(ActionCodeURL(link: entry.oobLink))
            #expect(parts.operation == .passwordReset)
            let code = try #require(parts.code)
            #expect(code == entry.oobCode)

            #expect(try await harness.auth.verifyPasswordResetCode(code) == email)
            let info = try await harness.auth.checkActionCode(code)
            #expect(info.operation == .passwordReset)
            #expect(info.email == email)
            #expect(info.previousEmail == nil)

            try await harness.auth.confirmPasswordReset(withCode: code, newPassword: "new password")
            let result = try await harness.auth.signIn(withEmail: email, password: "new password")
            #expect(result.user.uid == uid)
            try harness.auth.signOut()
            await expectAuthError(.wrongPassword) { try await harness.auth.signIn(withEmail: email, password: "old password") }
            await expectAuthError(.invalidActionCode) {
                try await harness.auth.confirmPasswordReset(withCode: code, newPassword: "third password")
            }
        }
    }

    @Test func passwordResetWithSettingsOfAnUnknownEmailSendsNothing() async throws {
        try await withHarness { harness in
            let settings = ActionCodeSettings()
            settings.url = URL(string: "http://localhost/after-reset")
            let before = try await Self.oobCodes(harness.server)
            // Unknown addresses are not revealed: success or EMAIL_NOT_FOUND, but never a mail.
            do {
                try await harness.auth.sendPasswordReset(withEmail: Harness.email("nobody"), actionCodeSettings: settings)
            } catch {
                #expect(AuthErrorCode(error) == .userNotFound, "\(error)")
            }
            let after = try await Self.oobCodes(harness.server)
            #expect(after.count == before.count)
        }
    }

    @Test func emailVerification() async throws {
        try await withHarness { harness in
            let email = Harness.email("verify")
            let user = try await harness.auth.createUser(withEmail: email, password: "pass word").user
            #expect(!user.isEmailVerified)

            let entry = try await Self.emailed(harness.server) {
                try await user.sendEmailVerification(with: Self.signInSettings("http://localhost/verified"))
            }
            #expect(entry.requestType == .verifyEmail)
            #expect(entry.email == email)
            let info = try await harness.auth.checkActionCode(entry.oobCode)
            #expect(info.operation == .verifyEmail)
            #expect(info.email == email)
            await expectAuthError(.invalidActionCode) { try await harness.auth.verifyPasswordResetCode(entry.oobCode) }

            try await harness.auth.applyActionCode(entry.oobCode)
            try await user.reload()
            #expect(user.isEmailVerified)
            await expectAuthError(.invalidActionCode) { try await harness.auth.applyActionCode(entry.oobCode) }
        }
    }

    @Test func verifyBeforeUpdatingEmail() async throws {
        try await withHarness { harness in
            let oldEmail = Harness.email("before")
            let newEmail = Harness.email("after")
            let user = try await harness.auth.createUser(withEmail: oldEmail, password: "pass word").user

            let entry = try await Self.emailed(harness.server) {
                try await user.sendEmailVerification(beforeUpdatingEmail: newEmail)
            }
            #expect(entry.requestType == .verifyAndChangeEmail)
            #expect(user.email == oldEmail)
            let info = try await harness.auth.checkActionCode(entry.oobCode)
            #expect(info.operation == .verifyAndChangeEmail)
            // Firebase answers `email` = the current address and `newEmail` = the one changed to, which
            // FirebaseAuth reads as `email` = new, `previousEmail` = old.
            #expect(info.email == newEmail)
            #expect(info.previousEmail == oldEmail)

            // Applying the change emails the old address a code that undoes it.
            let recovery = try await Self.emailed(harness.server) { try await harness.auth.applyActionCode(entry.oobCode) }
            try harness.auth.signOut()
            let result = try await harness.auth.signIn(withEmail: newEmail, password: "pass word")
            #expect(result.user.uid == user.uid)
            #expect(result.user.email == newEmail)
            #expect(result.user.isEmailVerified)

            #expect(recovery.requestType == .recoverEmail)
            #expect(recovery.email == oldEmail)
            let undo = try await harness.auth.checkActionCode(recovery.oobCode)
            #expect(undo.operation == .recoverEmail)
            // FirebaseAuth's reading: `email` is the address changed to, `previousEmail` the one recovered.
            #expect(undo.email == newEmail)
            #expect(undo.previousEmail == oldEmail)
            try await harness.auth.applyActionCode(recovery.oobCode)
            try harness.auth.signOut()
            #expect(try await harness.auth.signIn(withEmail: oldEmail, password: "pass word").user.uid == user.uid)
        }
    }

    @Test func languageCodeReachesTheLink() async throws {
        let client = RecordingHTTPClient()
        try await withHarness(httpClient: client) { harness in
            harness.auth.languageCode = "fr"
            let link = try await Self.signInLink(to: Harness.email("lang"), harness)
            #expect(client.requests.last { $0.url.path.hasSuffix("accounts:sendOobCode") }?.headers["X-Firebase-Locale"] == "fr")
            #expect(ActionCodeURL(link: link)?.languageCode == "fr")
        }
    }

    @Test func completionHandlerForms() async throws {
        try await withHarness { harness in
            let email = Harness.email("callbacks")
            let sendError: (any Error)? = await withCheckedContinuation { continuation in
                harness.auth.sendSignInLink(toEmail: email, actionCodeSettings: Self.signInSettings()) {
                    continuation.resume(returning: $0)
                }
            }
            #expect(sendError == nil)
            let entry = try #require(try await Self.oobCodes(harness.server).last { $0.email == email })
            let result: AuthDataResult? = await withCheckedContinuation { continuation in
                harness.auth.signIn(withEmail: email, link: entry.oobLink) { result, _ in continuation.resume(returning: result) }
            }
            #expect(result?.user.email == email)
            #expect(result?.additionalUserInfo?.isNewUser == true)
        }
    }
}
