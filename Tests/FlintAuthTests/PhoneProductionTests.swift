@testable import FlintAuth
import FlintTestSupport
import FlintWire
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// Phone sign-in against a Flint server in production mode, where real numbers need an app credential.
/// The APNs push itself is covered with a scripted backend (`PhoneAppVerificationTests`); here the
/// server has no APNs, so the SDK falls back to the server's own captcha page, which the test works
/// through as a browser would.
@Suite struct PhoneProductionTests {
    static func withProductionHarness(_ body: (TestServer, Auth) async throws -> Void) async throws {
        let server = try await TestServer.start(emulator: false)
        let name = "flint-auth-test-\(UUID().uuidString)"
        let options = FirebaseOptions(apiKey: server.apiKey, projectID: server.projectID, serverURL: server.baseURL)
        options.googleAppID = "1:1234567890:ios:abcdef"
        options.bundleID = "com.example.flint"
        FirebaseApp.configure(name: name, options: options)
        var failure: (any Error)?
        do {
            let app = try #require(FirebaseApp.app(name: name))
            try await body(server, Auth(app: app, credentialStore: InMemoryCredentialStore()))
        } catch {
            failure = error
        }
        await FirebaseApp.app(name: name)?.delete()
        try await server.stop()
        if let failure {
            throw failure
        }
    }

    @Test func testModeOnlyServesFictionalNumbers() async throws {
        try await Self.withProductionHarness { server, auth in
            let change = ProjectConfig(signIn: .init(phoneNumber: .init(testPhoneNumbers: ["+15555550100": "654321"])))
            _ = try await server.server.updateProjectConfig(server.projectID, change,
                                                            updateMask: "signIn.phoneNumber.testPhoneNumbers")
            auth.settings?.isAppVerificationDisabledForTesting = true
            let provider = PhoneAuthProvider.provider(auth: auth)
            let id = try await provider.verifyPhoneNumber("+15555550100", uiDelegate: nil)
            let result = try await auth.signIn(with: provider.credential(withVerificationID: id, verificationCode: "654321"))
            #expect(result.user.phoneNumber == "+15555550100")

            await expectAuthError(.missingAppCredential) {
                try await provider.verifyPhoneNumber("+14155550123", uiDelegate: nil)
            }
            #expect(server.log.smsCodes(to: "+14155550123").isEmpty)
        }
    }

    #if !canImport(UIKit)
    /// The JSON configuration block of the captcha page.
    static func pageConfiguration(_ html: String) throws -> [String: Any] {
        let start = try #require(html.range(of: #"<script type="application/json" id="flint-config">"#))
        let end = try #require(html.range(of: "</script>", range: start.upperBound..<html.endIndex))
        let json = Data(html[start.upperBound..<end.lowerBound].utf8)
        return try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])
    }

    /// Does what the page's script does: finds a nonce the server accepts for the page's challenge (the
    /// project asks for one zero bit, so about every other nonce does) and trades it for a token.
    static func solve(_ configuration: [String: Any], server: TestServer) async throws -> String {
        let challenge = try #require(configuration["challenge"] as? String)
        let verifyPath = try #require(configuration["verifyURL"] as? String)
        let client = TestClient(baseURL: server.baseURL, apiKey: nil)
        for nonce in 0..<64 {
            let reply = try await client.post(verifyPath, ["challenge": .string(challenge), "nonce": .string(String(nonce, radix: 36))])
            if let token = reply.string("token") {
                return token
            }
            #expect(reply.errorMessage?.hasPrefix("CAPTCHA_CHECK_FAILED") == true, "\(reply.body)")
        }
        Issue.record("No nonce out of 64 was accepted")
        return ""
    }

    @Test func captchaPageProvesTheAppWhenAPNsCannot() async throws {
        try await Self.withProductionHarness { server, auth in
            _ = try await server.server.updateProjectConfig(
                server.projectID, ProjectConfig(appVerification: .init(proofOfWorkBits: 1)),
                updateMask: "appVerification.proofOfWorkBits")
            auth.languageCode = "fr"
            // The server has no APNs: verifyClient refuses the token, and the SDK turns to the page.
            auth.setAPNSToken(Data(repeating: 0xAB, count: 32), type: .sandbox)
            let page = OneShot<URL>()
            let delegate = FakeUIDelegate { url, _ in page.resolve(url) }
            let provider = PhoneAuthProvider.provider(auth: auth)
            let number = "+14155550130"
            let verification = Task { try await provider.verifyPhoneNumber(number, uiDelegate: delegate) }

            // The browser: load the page the SDK opened, do the work, follow the redirect into the app.
            let url = await page.wait()
            #expect(url.absoluteString.hasPrefix(server.baseURL.absoluteString + "/__/auth/handler?"))
            let (data, response) = try await URLSession.shared.data(from: url)
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
            let html = String(decoding: data, as: UTF8.self)
            #expect(html.contains(#"<html lang="fr">"#))
            let configuration = try Self.pageConfiguration(html)
            let callback = try #require(configuration["callback"] as? String)
            #expect(callback == "app-1-1234567890-ios-abcdef://firebaseauth/link")
            let eventID = try #require(configuration["eventId"] as? String)
            #expect(URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "eventId" }?.value == eventID)
            let token = try await Self.solve(configuration, server: server)
            let inner = server.baseURL.absoluteString + "/__/auth/callback?authType=verifyApp&eventId=\(encodeURIComponent(eventID))"
                + "&recaptchaToken=\(encodeURIComponent(token))"
            let redirect = try #require(URL(string: callback + "?deep_link_id=" + encodeURIComponent(inner)))
            #expect(auth.canHandle(redirect))

            let id = try await verification.value
            let code = try #require(server.log.smsCodes(to: number).last)
            let result = try await auth.signIn(with: provider.credential(withVerificationID: id, verificationCode: code))
            #expect(result.user.phoneNumber == number)
            #expect(result.additionalUserInfo?.isNewUser == true)
            await drainCallbacks(auth)
            #expect(delegate.dismissals.current == 1)
        }
    }

    @Test func closingTheCaptchaPageCancels() async throws {
        try await Self.withProductionHarness { server, auth in
            let delegate = FakeUIDelegate { _, userDidCancel in userDidCancel() }
            await expectAuthError(.webContextCancelled) {
                try await PhoneAuthProvider.provider(auth: auth).verifyPhoneNumber("+14155550131", uiDelegate: delegate)
            }
            #expect(server.log.smsCodes(to: "+14155550131").isEmpty)
        }
    }
    #endif
}
