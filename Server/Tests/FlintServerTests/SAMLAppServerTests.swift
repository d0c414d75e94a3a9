import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
import Testing

/// The handler hands the IdP's response on to the app's own web server by a short handle, and the IdP gets a short
/// `RelayState`: a whole response in the link (10–15 KB with an encrypted assertion) is over the 8,190 bytes of
/// request line that a stock Apache takes, and would land in its access log. Against Debian's apache2, stock limits.
@Suite struct SAMLAppServerTests {
    /// Enough attributes to make the response as long as a real IdP's with its usual attribute statement.
    static let groups: JSONValue = .array((1...60).map { .string("engineering-platform-group-\($0)") })

    @Test func aSignInReachesTheAppsApacheByAShortLinkThatWorksOnce() async throws {
        let apache = try await Apache.start(pages: ["app": "<!doctype html><title>App</title><p>Signed in.</p>"])
        do {
            try await SAMLSignInTests.withSAML { setup in
                let appPage = apache.baseURL.absoluteString + "/app"
                let spCertificate = try #require(
                    setup.config["spConfig"]?["spCertificates"]?.arrayValue?.first?["x509Certificate"]?.stringValue)
                func start() async throws -> (authURI: String, sessionID: String) {
                    let reply = try await setup.client.post("/v1/accounts:createAuthUri", [
                        "providerId": .string(SAMLSignInTests.provider), "continueUri": .string(appPage),
                    ])
                    return (try #require(reply.string("authUri"), "\(reply.body)"), try #require(reply.string("sessionId")))
                }
                /// The IdP's answer, encrypted, posted by the browser to the handler: where the handler sends it on.
                func answered(_ authURI: String) async throws -> (link: URL, rawResponse: String) {
                    let answer = try #require(try await setup.answers([[
                        "auth_uri": .string(authURI), "name_id": "grace@acme.test", "encrypt_to_cert": .string(spCertificate),
                        "attributes": ["groups": Self.groups],
                    ]]).first)
                    let relayState = try #require(answer["relay_state"]?.stringValue)
                    // SAML's bindings: a RelayState of 80 bytes at most.
                    #expect(relayState.utf8.count <= 80, "\(relayState.utf8.count) bytes")
                    let response = try #require(answer["saml_response"]?.stringValue)
                    let back = try await TestBrowser.post(URL(string: setup.callback)!, form: [
                        ("SAMLResponse", response), ("RelayState", relayState),
                    ])
                    return (try #require(back.location, "\(back.status) \(back.body)"), response)
                }

                let (authURI, sessionID) = try await start()
                let (link, rawResponse) = try await answered(authURI)
                #expect(rawResponse.utf8.count > 9000, "a response as long as a real IdP's")
                // What Apache does with a link that carries the response itself: 414, the app never sees it.
                let whole = try await TestBrowser.get(URL(string: appPage + "?" + FormURLEncoding.encode([("SAMLResponse", rawResponse)]))!)
                #expect(whole.status == 414)

                // The handler's link names the response by a handle: short, nothing of the response in it.
                #expect(link.absoluteString.hasPrefix(appPage + "?") && link.absoluteString.utf8.count < 300, "\(link)")
                #expect(!link.absoluteString.contains("SAMLResponse=") && link.absoluteString.contains("SAMLResponseHandle="))
                let page = try await TestBrowser.get(link)
                #expect(page.status == 200 && page.body.contains("Signed in."), "\(page.status)")
                // Apache logs a request after it has sent the answer: the line may come a moment later.
                var logged = false
                for _ in 0..<100 where !logged {
                    logged = apache.accessLog().contains { $0.hasPrefix("200 GET /app?SAMLResponseHandle=") }
                    if !logged { try await Task.sleep(for: .milliseconds(20)) }
                }
                #expect(logged, "\(apache.accessLog())")

                func finish(_ link: URL, sessionID: String) async throws -> TestClient.Reply {
                    try await setup.client.post("/v1/accounts:signInWithIdp", [
                        "requestUri": .string(link.absoluteString), "sessionId": .string(sessionID), "returnSecureToken": true,
                    ])
                }
                // The app's server finishes the sign-in with the link and its session ID: once.
                let signedIn = try await finish(link, sessionID: sessionID)
                #expect(signedIn.status == 200 && signedIn["federatedId"] == "grace@acme.test", "\(signedIn.body)")
                #expect(try await finish(link, sessionID: sessionID).errorCode == "INVALID_IDP_RESPONSE")

                // Someone else's session ID neither signs in with a link nor spends it.
                let (again, againSession) = try await start()
                let (secondLink, _) = try await answered(again)
                #expect(try await finish(secondLink, sessionID: sessionID).errorCode == "INVALID_IDP_RESPONSE")
                #expect(try await finish(secondLink, sessionID: againSession).status == 200)
                // A handle that was never made, or a kept response past its session's ten minutes: refused.
                let (third, thirdSession) = try await start()
                let (thirdLink, _) = try await answered(third)
                var forged = try #require(URLComponents(url: thirdLink, resolvingAgainstBaseURL: false))
                forged.queryItems = forged.queryItems?.map { $0.name == "SAMLResponseHandle" ? URLQueryItem(name: $0.name, value: "forged") : $0 }
                #expect(try await finish(try #require(forged.url), sessionID: thirdSession).errorCode == "INVALID_IDP_RESPONSE")
                setup.server.clock.advance(seconds: 601)
                #expect(try await finish(thirdLink, sessionID: thirdSession).errorCode == "INVALID_IDP_RESPONSE")
            }
        } catch {
            await apache.stop()
            throw error
        }
        await apache.stop()
    }
}
