@testable import FlintAuth
import Crypto
import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// Phone sign-in against a Flint server in production mode, where real numbers need an app credential:
/// the APNs silent push through the fake APNs (HTTP/2, TLS, provider-token checks), and, where the server
/// has no APNs, the server's own captcha page solved by headless Chromium.
@Suite struct PhoneProductionTests {
    static func withProductionHarness(configure: (inout ServerConfiguration) -> Void = { _ in },
                                      _ body: (TestServer, Auth) async throws -> Void) async throws {
        try await withServer(emulator: false, configure: configure) { server, _ in
            let name = "flint-auth-test-\(UUID().uuidString)"
            let options = FirebaseOptions(apiKey: server.apiKey, projectID: server.projectID, serverURL: server.baseURL)
            options.googleAppID = "1:1234567890:ios:abcdef"
            options.bundleID = "com.example.flint"
            try await server.registerIOSApp(bundleID: "com.example.flint", appID: "1:1234567890:ios:abcdef")
            FirebaseApp.configure(name: name, options: options)
            var failure: (any Error)?
            do {
                let app = try #require(FirebaseApp.app(name: name))
                try await body(server, Auth(app: app, credentialStore: InMemoryCredentialStore()))
            } catch {
                failure = error
            }
            await FirebaseApp.app(name: name)?.delete()
            if let failure {
                throw failure
            }
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

    @Test func apnsSilentPushProvesTheApp() async throws {
        let teamKey = P256.Signing.PrivateKey()
        let apns = try await FakeAPNs.start(publicKey: teamKey.publicKey)
        defer { Task { await apns.stop() } }
        try await Self.withProductionHarness(configure: {
            $0.delivery.apns = apns.configuration(privateKeyPEM: teamKey.pemRepresentation)
            $0.delivery.extraTrustRootsPEM = [apns.caCertificatePEM]
        }) { server, auth in
            let device = apns.registerDevice(sandbox: true)
            let tokenBytes = stride(from: 0, to: device.count, by: 2).map { offset -> UInt8 in
                let start = device.index(device.startIndex, offsetBy: offset)
                return UInt8(device[start..<device.index(start, offsetBy: 2)], radix: 16) ?? 0
            }
            auth.setAPNSToken(Data(tokenBytes), type: .sandbox)
            // The app's notification handler: it forwards the silent push to the SDK, as an app delegate does.
            let forwarded = Task {
                let push = await apns.pushes.waitFor(count: 1)[0]
                return auth.canHandleNotification([
                    AppCredentialPush.key: ["receipt": push.credential.receipt, "secret": push.credential.secret],
                ])
            }
            let provider = PhoneAuthProvider.provider(auth: auth)
            let number = "+14155550140"
            let id = try await provider.verifyPhoneNumber(number, uiDelegate: nil)
            #expect(await forwarded.value)
            #expect(apns.pushes.all.first?.sandbox == true)
            let code = try #require(server.log.smsCodes(to: number).last)
            let result = try await auth.signIn(with: provider.credential(withVerificationID: id, verificationCode: code))
            #expect(result.user.phoneNumber == number)

            // The proven credential serves the next number too: no second push.
            let other = "+14155550141"
            _ = try await provider.verifyPhoneNumber(other, uiDelegate: nil)
            #expect(server.log.smsCodes(to: other).count == 1)
            #expect(apns.pushes.all.count == 1)
        }
    }

    #if !canImport(UIKit)
    @Test func captchaPageSolvedInChromiumProvesTheAppWhenAPNsCannot() async throws {
        let chromium = try #require(
            Chromium.executable(), "chromium is not installed: scripts/test.sh installs Debian's chromium package")
        try await Self.withProductionHarness { server, auth in
            _ = try await server.server.updateProjectConfig(
                server.projectID, ProjectConfig(appVerification: .init(proofOfWorkBits: 8)),
                updateMask: "appVerification.proofOfWorkBits")
            auth.languageCode = "fr"
            // The server has no APNs: verifyClient refuses the token, and the SDK turns to the page.
            auth.setAPNSToken(Data(repeating: 0xAB, count: 32), type: .sandbox)
            let page = OneShot<URL>()
            let delegate = FakeUIDelegate { url, _ in page.resolve(url) }
            let provider = PhoneAuthProvider.provider(auth: auth)
            let number = "+14155550130"
            let verification = Task { try await provider.verifyPhoneNumber(number, uiDelegate: delegate) }

            // The browser: headless Chromium runs the page the SDK opened; the page's last act is the
            // redirect into the app, which the app hands to `canHandle`.
            let url = await page.wait()
            #expect(url.absoluteString.hasPrefix(server.baseURL.absoluteString + "/__/auth/handler?"))
            let dom = try await Chromium.dumpDOM(of: url.absoluteString, executable: chromium, timeoutSeconds: 60)
            #expect(dom.contains(#"lang="fr""#))
            let callback = try #require(Chromium.href(ofElementWithID: "return", in: dom), "no #return link in:\n\(dom)")
            #expect(callback.hasPrefix("app-1-1234567890-ios-abcdef://firebaseauth/link?deep_link_id="))
            #expect(auth.canHandle(try #require(URL(string: callback))))

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
