@testable import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
import Testing

/// RFC 8628's device authorization grant over HTTP: a CLI's device code and user code, its polls (`authorization_pending`,
/// `slow_down`), the user typing the code on `<issuer>/device`, signing in and consenting on Flint's pages, and the
/// tokens once; then the hostile cases: a guessed code (budgeted), a code used twice, expired, denied, another client's,
/// and a consent posted from another browser.
@Suite struct OAuthDeviceFlowTests {
    @Test func aDeviceSignsInWithTheCodeItsUserTypes() async throws {
        try await ProviderFixture.with { fixture in
            let (cliID, _) = try await fixture.register([
                "displayName": "Example CLI", "type": "PUBLIC",
                "grantTypes": [.string(ProviderDeviceFlow.grantType), "refresh_token"],
            ])
            let (otherID, _) = try await fixture.register([
                "displayName": "Other CLI", "type": "PUBLIC", "grantTypes": [.string(ProviderDeviceFlow.grantType)],
            ])
            let (webID, webSecret) = try await fixture.register(["displayName": "Web", "redirectUris": ["http://127.0.0.1:4567/cb"]])
            func start(_ scope: String, client: String = cliID) async throws -> CookieBrowser.Answer {
                try await fixture.tokenCall([("scope", scope)], clientID: client, secret: nil, endpoint: "/device_authorization")
            }
            func poll(_ deviceCode: String, client: String = cliID) async throws -> CookieBrowser.Answer {
                try await fixture.tokenCall([("grant_type", ProviderDeviceFlow.grantType), ("device_code", deviceCode)],
                                            clientID: client, secret: nil)
            }
            let base = fixture.server.baseURL.absoluteString
            let page = fixture.issuer + "/device"

            // The metadata names the endpoint; a client without the grant may not use it.
            let metadata = try await CookieBrowser().send("GET", fixture.issuer + "/.well-known/openid-configuration")
            #expect(metadata.json["device_authorization_endpoint"]?.stringValue == fixture.issuer + "/device_authorization")
            let refused = try await fixture.tokenCall([("scope", "openid")], clientID: webID, secret: webSecret,
                                                      endpoint: "/device_authorization")
            #expect(refused.json["error"] == "unauthorized_client", "\(refused.body)")

            let started = try await start("openid email offline_access")
            #expect(started.status == 200, "\(started.body)")
            let deviceCode = try #require(started.json["device_code"]?.stringValue)
            let userCode = try #require(started.json["user_code"]?.stringValue)
            #expect(userCode.count == 9 && userCode.dropFirst(4).first == "-", "\(userCode)")
            #expect(started.json["verification_uri"]?.stringValue == page && started.json["interval"] == 5
                        && started.json["expires_in"] == 600, "\(started.body)")

            // Before the user decides: pending; polled again at once: slow down (the interval grows); later: pending.
            #expect(try await poll(deviceCode).json["error"] == "authorization_pending")
            #expect(try await poll(deviceCode).json["error"] == "slow_down")
            fixture.server.clock.advance(seconds: 11)
            // As oidc-agent polls: a public client in a Basic header with an empty password (RFC 6749 §2.3.1).
            let basic = try await fixture.tokenCall([("grant_type", ProviderDeviceFlow.grantType), ("device_code", deviceCode)],
                                                    clientID: cliID, secret: "")
            #expect(basic.json["error"] == "authorization_pending", "\(basic.body)")
            fixture.server.clock.advance(seconds: 11)
            #expect(try await poll(deviceCode).json["error"] == "authorization_pending")
            #expect(try await poll(deviceCode, client: otherID).json["error"] == "invalid_grant")

            // The user opens the complete URI (the code filled in), sends it typed loosely, signs in and consents.
            let browser = CookieBrowser()
            let form = try await browser.send("GET", try #require(started.json["verification_uri_complete"]?.stringValue))
            let bare = userCode.replacingOccurrences(of: "-", with: "")
            #expect(form.status == 200 && form.body.contains("value=\"\(bare)\"") && form.body.contains("autocomplete=\"one-time-code\""))
            #expect(form.headers["content-security-policy"]?.contains("frame-ancestors 'none'") == true)
            let entered = try await browser.send("POST", page, form: [("user_code", " " + userCode.lowercased() + " ")])
            let signInPage = try #require(entered.headers["location"], "\(entered.status) \(entered.body)")
            #expect(signInPage.hasPrefix("/__/oauth/signin?authorization_id="))
            let consentPath = try await fixture.signInOnPage(browser, signInPage: signInPage, email: "dev@example.com")
            #expect(consentPath.hasPrefix("/__/oauth/consent?authorization_id="), "\(consentPath)")
            let consent = try await browser.send("GET", base + consentPath)
            #expect(consent.body.contains("Example CLI"))
            let authorizationID = try #require(URLComponents(string: consentPath)?.queryItems?.first?.value)
            let formToken = try ProviderFixture.formToken(in: consent.body)
            // From another browser, the consent counts for nothing.
            let elsewhere = try await CookieBrowser().send("POST", base + "/__/oauth/consent", form: [
                ("authorization_id", authorizationID), ("form_token", formToken), ("consent", "allow"),
            ])
            #expect(elsewhere.status == 403)
            fixture.server.clock.advance(seconds: 20)
            #expect(try await poll(deviceCode).json["error"] == "authorization_pending")
            let allowed = try await browser.send("POST", base + "/__/oauth/consent", form: [
                ("authorization_id", authorizationID), ("form_token", formToken), ("consent", "allow"),
            ])
            let done = try #require(allowed.headers["location"], "\(allowed.status) \(allowed.body)")
            #expect(done.hasSuffix("/device?done=approved"), "\(done)")
            #expect(try await browser.send("GET", base + done).body.contains("Your device is connected"))

            // The device's next poll gets the tokens, once.
            fixture.server.clock.advance(seconds: 20)
            let tokens = try await poll(deviceCode)
            #expect(tokens.status == 200 && tokens.json["refresh_token"]?.stringValue != nil, "\(tokens.body)")
            let claims = ProviderFixture.claims(try #require(tokens.json["id_token"]?.stringValue, "\(tokens.body)"))
            #expect(claims["aud"]?.stringValue == cliID && claims["email"] == "dev@example.com", "\(claims)")
            fixture.server.clock.advance(seconds: 20)
            #expect(try await poll(deviceCode).json["error"] == "invalid_grant")
            // The code the user typed is spent too.
            let again = try await browser.send("POST", page, form: [("user_code", userCode)])
            #expect(again.status == 400 && again.body.contains("not valid"), "\(again.status)")

            // A refusal reaches the device (a new scope, so the consent page comes back).
            let second = try await start("openid phone")
            let secondCode = try #require(second.json["device_code"]?.stringValue)
            let typed = try await browser.send("POST", page, form: [("user_code", second.json["user_code"]?.stringValue ?? "")])
            let nextConsent = try #require(typed.headers["location"], "\(typed.body)")
            #expect(nextConsent.hasPrefix("/__/oauth/consent?authorization_id="), "\(nextConsent)")
            let secondPage = try await browser.send("GET", base + nextConsent)
            let secondToken = try ProviderFixture.formToken(in: secondPage.body)
            let denied = try await browser.send("POST", base + "/__/oauth/consent", form: [
                ("authorization_id", URLComponents(string: nextConsent)?.queryItems?.first?.value ?? ""),
                ("form_token", secondToken), ("consent", "deny"),
            ])
            #expect(denied.headers["location"]?.hasSuffix("/device?done=denied") == true, "\(denied.headers)")
            #expect(try await poll(secondCode).json["error"] == "access_denied")

            // An unanswered code expires, for the device and for the page.
            let third = try await start("openid")
            fixture.server.clock.advance(seconds: 601)
            #expect(try await poll(try #require(third.json["device_code"]?.stringValue)).json["error"] == "expired_token")
            let late = try await browser.send("POST", page, form: [("user_code", third.json["user_code"]?.stringValue ?? "")])
            #expect(late.status == 400)

            // Guessing: wrong codes are answered plainly, then the address is stopped.
            var statuses: [Int] = []
            for _ in 0..<22 { statuses.append(try await CookieBrowser().send("POST", page, form: [("user_code", "BCDF-GHJK")]).status) }
            #expect(statuses.contains(400) && statuses.last == 429, "\(statuses)")
        }
    }
}
