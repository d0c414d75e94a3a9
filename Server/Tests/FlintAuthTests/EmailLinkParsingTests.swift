@testable import FlintAuth
import Foundation
import Testing

/// Email action links parsed on the client, and the requests the email actions send, without a server.
@Suite struct EmailLinkParsingTests {
    static let action = "https://demo.example/__/auth/action?apiKey=KEY&mode=signIn&oobCode=C0DE-1_x&continueUrl="
        + encodeURIComponent("https://app.example/finish?cart=1&x=a b") + "&lang=fr"

    @Test func actionCodeURLReadsEveryPart() throws {
        let url = try #require(ActionCodeURL(link: Self.action))
        #expect(url.apiKey == "KEY")
        #expect(url.operation == .emailLink)
        #expect(url.code == "C0DE-1_x")
        #expect(url.continueURL?.absoluteString == "https://app.example/finish?cart=1&x=a%20b")
        #expect(url.languageCode == "fr")
    }

    @Test func actionCodeURLModes() throws {
        let modes: [(String, ActionCodeOperation)] = [
            ("resetPassword", .passwordReset), ("verifyEmail", .verifyEmail), ("recoverEmail", .recoverEmail),
            ("signIn", .emailLink), ("verifyAndChangeEmail", .verifyAndChangeEmail),
            ("revertSecondFactorAddition", .revertSecondFactorAddition), ("somethingElse", .unknown),
        ]
        for (mode, operation) in modes {
            let url = try #require(ActionCodeURL(link: "https://h.example/__/auth/action?mode=\(mode)&oobCode=x"))
            #expect(url.operation == operation, "\(mode)")
        }
        let noMode = try #require(ActionCodeURL(link: "https://h.example/?oobCode=x"))
        #expect(noMode.operation == .unknown)
        #expect(noMode.apiKey == nil && noMode.continueURL == nil && noMode.languageCode == nil)
    }

    @Test func actionCodeURLUnwrapsAppAndDynamicLinks() throws {
        let wrapped = [
            "https://demo.example/__/auth/links?link=" + encodeURIComponent(Self.action),
            "https://x.page.link/?link=" + encodeURIComponent(Self.action) + "&apn=com.example",
            "com.example.app://google/link/?deep_link_id=" + encodeURIComponent(Self.action),
        ]
        for link in wrapped {
            let url = try #require(ActionCodeURL(link: link), "\(link)")
            #expect(url.code == "C0DE-1_x")
            #expect(url.operation == .emailLink)
            #expect(url.languageCode == "fr")
        }
    }

    @Test func actionCodeURLRejectsOtherLinks() {
        #expect(ActionCodeURL(link: "") == nil)
        #expect(ActionCodeURL(link: "https://app.example/finish") == nil)
        #expect(ActionCodeURL(link: "https://app.example/finish?cart=1") == nil)
        #expect(ActionCodeURL(link: "not a url") == nil)
    }

    @Test func isSignInWithEmailLink() async throws {
        try await withFakeAuth(client: FakeHTTPClient { _ in .error("UNEXPECTED") }) { auth in
            #expect(auth.isSignIn(withEmailLink: Self.action))
            // Parameter order does not matter; a fragment is ignored.
            #expect(auth.isSignIn(withEmailLink: "https://h.example/__/auth/action?oobCode=abc&apiKey=k&mode=signIn#top"))
            // Wrapped once: the app link of the hosted pages, a dynamic link, an iOS custom-scheme link.
            #expect(auth.isSignIn(withEmailLink: "https://h.example/__/auth/links?link=" + encodeURIComponent(Self.action)))
            #expect(auth.isSignIn(withEmailLink: "https://x.page.link/?apn=a&link=" + encodeURIComponent(Self.action)))
            #expect(auth.isSignIn(withEmailLink: "app://google/link/?deep_link_id=" + encodeURIComponent(Self.action)))

            #expect(!auth.isSignIn(withEmailLink: ""))
            #expect(!auth.isSignIn(withEmailLink: "https://h.example/__/auth/action?mode=signIn"))
            #expect(!auth.isSignIn(withEmailLink: "https://h.example/__/auth/action?mode=signIn&oobCode="))
            #expect(!auth.isSignIn(withEmailLink: "https://h.example/__/auth/action?mode=resetPassword&oobCode=abc"))
            #expect(!auth.isSignIn(withEmailLink: "https://h.example/__/auth/action?mode=signin&oobCode=abc"))
            #expect(!auth.isSignIn(withEmailLink: "https://app.example/finish?cart=1"))
            // A wrapped link that is not a sign-in link, and one wrapped twice, are not.
            #expect(!auth.isSignIn(withEmailLink: "https://h.example/?link=" + encodeURIComponent("https://app.example/?a=b")))
            let twice = "https://x.page.link/?link=" + encodeURIComponent(
                "https://h.example/__/auth/links?link=" + encodeURIComponent(Self.action))
            #expect(!auth.isSignIn(withEmailLink: twice))
        }
    }

    @Test func sendSignInLinkSendsTheSettings() async throws {
        let client = FakeHTTPClient { _ in .ok(["kind": "identitytoolkit#GetOobConfirmationCodeResponse", "email": "a@b.example"]) }
        try await withFakeAuth(client: client) { auth in
            auth.languageCode = "de"
            let settings = ActionCodeSettings()
            settings.url = URL(string: "https://app.example/finish?cart=1")
            settings.handleCodeInApp = true
            settings.setIOSBundleID("com.example.ios")
            settings.setAndroidPackageName("com.example.android", installIfNotAvailable: true, minimumVersion: "12")
            settings.linkDomain = "links.example"
            try await auth.sendSignInLink(toEmail: "a@b.example", actionCodeSettings: settings)

            let sent = try #require(client.requests("accounts:sendOobCode").first)
            #expect(sent.headers["X-Firebase-Locale"] == "de")
            #expect(sent.string("requestType") == "EMAIL_SIGNIN")
            #expect(sent.string("email") == "a@b.example")
            #expect(sent.string("continueUrl") == "https://app.example/finish?cart=1")
            #expect(sent.body["canHandleCodeInApp"] as? Bool == true)
            #expect(sent.string("iOSBundleId") == "com.example.ios")
            #expect(sent.string("androidPackageName") == "com.example.android")
            #expect(sent.body["androidInstallApp"] as? Bool == true)
            #expect(sent.string("androidMinimumVersion") == "12")
            #expect(sent.string("linkDomain") == "links.example")
            #expect(sent.body["idToken"] == nil)
        }
    }

    @Test func sendSignInLinkRequiresHandleCodeInApp() async throws {
        let client = FakeHTTPClient { _ in .ok([:]) }
        try await withFakeAuth(client: client) { auth in
            let settings = ActionCodeSettings()
            settings.url = URL(string: "https://app.example/finish")
            await expectAuthError(.invalidContinueURI) {
                try await auth.sendSignInLink(toEmail: "a@b.example", actionCodeSettings: settings)
            }
            #expect(client.requests.isEmpty)
        }
    }

    @Test func passwordResetOmitsUnsetFlags() async throws {
        let client = FakeHTTPClient { _ in .ok([:]) }
        try await withFakeAuth(client: client) { auth in
            try await auth.sendPasswordReset(withEmail: "a@b.example")
            let settings = ActionCodeSettings()
            settings.url = URL(string: "https://app.example/done")
            settings.iOSBundleID = nil
            try await auth.sendPasswordReset(withEmail: "a@b.example", actionCodeSettings: settings)

            let sent = client.requests("accounts:sendOobCode")
            try #require(sent.count == 2)
            #expect(sent[0].string("requestType") == "PASSWORD_RESET")
            #expect(sent[0].body["continueUrl"] == nil)
            #expect(sent[1].string("continueUrl") == "https://app.example/done")
            #expect(sent[1].body["canHandleCodeInApp"] == nil)
            #expect(sent[1].body["androidInstallApp"] == nil)
            #expect(sent[1].body["iOSBundleId"] == nil)
        }
    }

    @Test func signInWithANonSignInLinkSendsNothing() async throws {
        let client = FakeHTTPClient { _ in .ok([:]) }
        try await withFakeAuth(client: client) { auth in
            await expectAuthError(.invalidActionCode) {
                try await auth.signIn(withEmail: "a@b.example", link: "https://h.example/?mode=resetPassword&oobCode=abc")
            }
            #expect(client.requests.isEmpty)
        }
    }

    @Test func actionCodeErrorsMap() async throws {
        let client = FakeHTTPClient { sent in
            switch sent.rpc {
            case "accounts:resetPassword": .error("EXPIRED_OOB_CODE")
            case "accounts:update": .error("INVALID_OOB_CODE")
            default: .error("UNAUTHORIZED_DOMAIN : Domain not allowlisted by project")
            }
        }
        try await withFakeAuth(client: client) { auth in
            await expectAuthError(.expiredActionCode) { try await auth.checkActionCode("abc") }
            await expectAuthError(.expiredActionCode) { try await auth.verifyPasswordResetCode("abc") }
            await expectAuthError(.expiredActionCode) { try await auth.confirmPasswordReset(withCode: "abc", newPassword: "n3w pass") }
            await expectAuthError(.invalidActionCode) { try await auth.applyActionCode("abc") }
            let error = await expectAuthError(.unauthorizedDomain) { try await auth.sendPasswordReset(withEmail: "a@b.example") }
            #expect(error?.localizedDescription == "Domain not allowlisted by project")
            #expect(client.requests("accounts:update").first?.string("oobCode") == "abc")
        }
    }

    @Test func checkActionCodeReadsTheAnswer() async throws {
        let client = FakeHTTPClient { sent in
            sent.string("oobCode") == "change"
                ? .ok(["email": "old@b.example", "newEmail": "new@b.example", "requestType": "VERIFY_AND_CHANGE_EMAIL"])
                : .ok(["email": "a@b.example", "requestType": "VERIFY_EMAIL"])
        }
        try await withFakeAuth(client: client) { auth in
            let change = try await auth.checkActionCode("change")
            #expect(change.operation == .verifyAndChangeEmail)
            #expect(change.email == "new@b.example")
            #expect(change.previousEmail == "old@b.example")
            let verify = try await auth.checkActionCode("verify")
            #expect(verify.operation == .verifyEmail)
            #expect(verify.email == "a@b.example" && verify.previousEmail == nil)
            // Not a password-reset code.
            await expectAuthError(.invalidActionCode) { try await auth.verifyPasswordResetCode("verify") }
            #expect(client.requests("accounts:resetPassword").allSatisfy { $0.body["newPassword"] == nil })
        }
    }

    @Test func passwordResetCompletionForms() async throws {
        let client = FakeHTTPClient { _ in .ok([:]) }
        try await withFakeAuth(client: client) { auth in
            let settings = ActionCodeSettings()
            settings.url = URL(string: "https://app.example/done")
            let errors: [(any Error)?] = await [
                withCheckedContinuation { continuation in
                    auth.sendPasswordReset(withEmail: "a@b.example") { continuation.resume(returning: $0) }
                },
                withCheckedContinuation { continuation in
                    auth.sendPasswordReset(withEmail: "a@b.example", actionCodeSettings: nil) { continuation.resume(returning: $0) }
                },
                withCheckedContinuation { continuation in
                    auth.sendPasswordReset(withEmail: "a@b.example", actionCodeSettings: settings) { continuation.resume(returning: $0) }
                },
            ]
            #expect(errors.allSatisfy { $0 == nil })
            let sent = client.requests("accounts:sendOobCode")
            try #require(sent.count == 3)
            #expect(sent.allSatisfy { $0.string("requestType") == "PASSWORD_RESET" && $0.string("email") == "a@b.example" })
            #expect(sent.map { $0.string("continueUrl") } == [nil, nil, "https://app.example/done"])
        }
    }

    @Test func completionHandlersReport() async throws {
        let client = FakeHTTPClient { _ in .ok(["email": "a@b.example", "requestType": "PASSWORD_RESET"]) }
        try await withFakeAuth(client: client) { auth in
            let email: String? = await withCheckedContinuation { continuation in
                auth.verifyPasswordResetCode("abc") { email, _ in continuation.resume(returning: email) }
            }
            #expect(email == "a@b.example")
            let failure: (any Error)? = await withCheckedContinuation { continuation in
                auth.sendSignInLink(toEmail: "a@b.example", actionCodeSettings: ActionCodeSettings()) { error in
                    continuation.resume(returning: error)
                }
            }
            #expect(failure.flatMap { AuthErrorCode($0) } == .invalidContinueURI)
        }
    }
}
