@testable import FlintAuth
import Foundation
import Testing

/// Phone sign-in's client side against a scripted backend: what `verifyPhoneNumber` sends in each app
/// verification mode (test mode, silent push, reCAPTCHA page), re-entrancy, and the parsing of pushes
/// and callback URLs.
@Suite struct PhoneAppVerificationTests {
    /// A value set once the `Auth` exists, for fakes created before it.
    final class Late<Value: Sendable>: Sendable {
        private let value = Locked<Value?>(nil)
        func set(_ newValue: Value) { value.withLock { $0 = newValue } }
        var get: Value? { value.withLock { $0 } }
    }

    // MARK: Test mode and preconditions

    @Test func testModeSendsOnlyThePhoneNumber() async throws {
        let sequence = Counter()
        let client = FakeHTTPClient { FakeHTTPClient.standard($0, sequence: sequence.next()) }
        try await withFakeAuth(client: client) { auth in
            auth.settings?.isAppVerificationDisabledForTesting = true
            auth.languageCode = "de"
            let id = try await PhoneAuthProvider.provider(auth: auth).verifyPhoneNumber("+15555550100", uiDelegate: nil)
            #expect(id == "session-1")
            #expect(client.requests.map(\.rpc) == ["accounts:sendVerificationCode"])
            let send = try #require(client.requests.first)
            #expect(send.body.keys.sorted() == ["phoneNumber"])
            #expect(send.string("phoneNumber") == "+15555550100")
            #expect(send.headers["X-Firebase-Locale"] == "de")
            #expect(send.url.absoluteString
                == "http://flint.test/identitytoolkit.googleapis.com/v1/accounts:sendVerificationCode?key=fake-api-key")
        }
    }

    @Test func emptyNumberFailsBeforeAnyRequest() async throws {
        let client = FakeHTTPClient { FakeHTTPClient.standard($0, sequence: 0) }
        try await withFakeAuth(client: client) { auth in
            await expectAuthError(.missingPhoneNumber) {
                try await PhoneAuthProvider.provider(auth: auth).verifyPhoneNumber("", uiDelegate: nil)
            }
            await expectAuthError(.invalidMultiFactorSession) {
                try await PhoneAuthProvider.provider(auth: auth)
                    .verifyPhoneNumber("+15555550100", uiDelegate: nil,
                                       multiFactorSession: MultiFactorSession(kind: .signIn(pendingCredential: "pending", auth: auth)))
            }
            #expect(client.requests.isEmpty)
        }
    }

    @Test func emptyCredentialPartsFailBeforeAnyRequest() async throws {
        let client = FakeHTTPClient { FakeHTTPClient.standard($0, sequence: 0) }
        try await withFakeAuth(client: client) { auth in
            let provider = PhoneAuthProvider.provider(auth: auth)
            await expectAuthError(.missingVerificationID) {
                try await auth.signIn(with: provider.credential(withVerificationID: "", verificationCode: "123456"))
            }
            await expectAuthError(.missingVerificationCode) {
                try await auth.signIn(with: provider.credential(withVerificationID: "session", verificationCode: ""))
            }
            #expect(client.requests.isEmpty)
        }
    }

    @Test func sendWithoutSessionInfoIsAnInvalidVerificationID() async throws {
        let client = FakeHTTPClient { _ in .ok([:]) }
        try await withFakeAuth(client: client) { auth in
            auth.settings?.isAppVerificationDisabledForTesting = true
            await expectAuthError(.invalidVerificationID) {
                try await PhoneAuthProvider.provider(auth: auth).verifyPhoneNumber("+15555550100", uiDelegate: nil)
            }
        }
    }

    @Test func completionHandlerGetsTheVerificationIDOnTheMainActor() async throws {
        let sequence = Counter()
        let client = FakeHTTPClient { FakeHTTPClient.standard($0, sequence: sequence.next()) }
        try await withFakeAuth(client: client) { auth in
            auth.settings?.isAppVerificationDisabledForTesting = true
            auth.callbackQueue = DispatchQueue(label: "phone.callbacks")
            let (id, onMain) = try await withCheckedThrowingContinuation { continuation in
                PhoneAuthProvider.provider(auth: auth).verifyPhoneNumber("+15555550100", uiDelegate: nil) { id, error in
                    if let id {
                        continuation.resume(returning: (id, isOnMainQueue()))
                    } else {
                        continuation.resume(throwing: error!)
                    }
                }
            }
            #expect(id == "session-1")
            #expect(onMain)

            let failure: (any Error)? = await withCheckedContinuation { continuation in
                PhoneAuthProvider.provider(auth: auth).verifyPhoneNumber("", uiDelegate: nil, multiFactorSession: nil) { id, error in
                    #expect(id == nil)
                    continuation.resume(returning: error)
                }
            }
            #expect(failure.flatMap(AuthErrorCode.init) == .missingPhoneNumber)
        }
    }

    // MARK: Re-entrancy

    @Test func concurrentRequestsForOneNumberShareOneSend() async throws {
        let sequence = Counter()
        let client = FakeHTTPClient { sent in
            FakeHTTPClient.standard(sent, sequence: sent.rpc == "accounts:sendVerificationCode" ? sequence.next() : 0)
        }
        try await withFakeAuth(client: client) { auth in
            auth.settings?.isAppVerificationDisabledForTesting = true
            let provider = PhoneAuthProvider.provider(auth: auth)
            async let first = provider.verifyPhoneNumber("+15555550100", uiDelegate: nil)
            async let second = provider.verifyPhoneNumber("+15555550100", uiDelegate: nil)
            let ids = try await [first, second]
            #expect(ids == ["session-1", "session-1"])
            // Also after the send finished, while its code is fresh and unused.
            #expect(try await provider.verifyPhoneNumber("+15555550100", uiDelegate: nil) == "session-1")
            #expect(client.requests("accounts:sendVerificationCode").count == 1)

            // Another number is another send.
            #expect(try await provider.verifyPhoneNumber("+15555550101", uiDelegate: nil) == "session-2")

            // Once the code is used, asking again sends a new one.
            try await auth.signIn(with: provider.credential(withVerificationID: "session-1", verificationCode: "123456"))
            #expect(try await provider.verifyPhoneNumber("+15555550100", uiDelegate: nil) == "session-3")
            #expect(client.requests("accounts:sendVerificationCode").count == 3)
        }
    }

    @Test func failedSendIsNotReused() async throws {
        let attempts = Counter()
        let client = FakeHTTPClient { sent in
            attempts.next() == 1 ? .error("TOO_MANY_ATTEMPTS_TRY_LATER") : FakeHTTPClient.standard(sent, sequence: 7)
        }
        try await withFakeAuth(client: client) { auth in
            auth.settings?.isAppVerificationDisabledForTesting = true
            let provider = PhoneAuthProvider.provider(auth: auth)
            await expectAuthError(.tooManyRequests) { try await provider.verifyPhoneNumber("+15555550100", uiDelegate: nil) }
            let again = try await provider.verifyPhoneNumber("+15555550100", uiDelegate: nil)
            #expect(again == "session-7")
        }
    }

    @Test func expiredVerificationIsForgotten() async throws {
        let sends = Counter()
        let client = FakeHTTPClient { sent in
            switch sent.rpc {
            case "accounts:signInWithPhoneNumber": .error("SESSION_EXPIRED")
            default: FakeHTTPClient.standard(sent, sequence: sends.next())
            }
        }
        try await withFakeAuth(client: client) { auth in
            auth.settings?.isAppVerificationDisabledForTesting = true
            let provider = PhoneAuthProvider.provider(auth: auth)
            let id = try await provider.verifyPhoneNumber("+15555550100", uiDelegate: nil)
            await expectAuthError(.sessionExpired) {
                try await auth.signIn(with: provider.credential(withVerificationID: id, verificationCode: "123456"))
            }
            #expect(try await provider.verifyPhoneNumber("+15555550100", uiDelegate: nil) != id)
        }
    }

    // MARK: reCAPTCHA Enterprise configuration

    @Test func recaptchaEnterpriseStates() async throws {
        let state = Locked("AUDIT")
        let sequence = Counter()
        let client = FakeHTTPClient { sent in
            switch sent.rpc {
            case "recaptchaConfig":
                .ok(["recaptchaKey": "projects/p/keys/k",
                     "recaptchaEnforcementState": [["provider": "PHONE_PROVIDER", "enforcementState": state.withLock { $0 }]]])
            case "accounts:verifyClient":
                .ok(["receipt": "receipt-audit", "suggestedTimeout": "30"])
            default:
                FakeHTTPClient.standard(sent, sequence: sequence.next())
            }
        }
        try await withFakeAuth(client: client) { auth in
            auth.setAPNSToken(Data([1, 2, 3]), type: .prod)
            auth.phoneAuth.appCredentials.observeReceipts { receipt in
                _ = auth.canHandleNotification([AnyHashable("com.google.firebase.auth"): ["receipt": receipt, "secret": "s"]])
            }
            let provider = PhoneAuthProvider.provider(auth: auth)
            _ = try await provider.verifyPhoneNumber("+15555550100", uiDelegate: nil)
            let config = try #require(client.requests("recaptchaConfig").first)
            #expect(config.method == "GET")
            #expect(config.query["clientType"] == "CLIENT_TYPE_IOS")
            #expect(config.query["version"] == "RECAPTCHA_ENTERPRISE")
            let send = try #require(client.requests("accounts:sendVerificationCode").first)
            #expect(send.string("captchaResponse") == "NO_RECAPTCHA")
            #expect(send.string("recaptchaVersion") == "RECAPTCHA_ENTERPRISE")
            #expect(send.string("iosReceipt") == "receipt-audit")

            state.withLock { $0 = "ENFORCE" }
            await expectAuthError(.recaptchaSDKNotLinked) {
                try await provider.verifyPhoneNumber("+15555550101", uiDelegate: nil)
            }
        }
    }

    @Test func emptyRecaptchaConfigMeansOff() async throws {
        let sequence = Counter()
        let client = FakeHTTPClient { sent in
            sent.rpc == "recaptchaConfig" ? .ok([:]) : FakeHTTPClient.standard(sent, sequence: sequence.next())
        }
        try await withFakeAuth(client: client) { auth in
            // No APNs token and no delegate: the classic path ends without a way to verify the app.
            await expectAuthError(.appNotVerified) {
                try await PhoneAuthProvider.provider(auth: auth).verifyPhoneNumber("+15555550100", uiDelegate: nil)
            }
            #expect(client.requests.map(\.rpc) == ["recaptchaConfig"])
        }
    }

    // MARK: Silent push

    @Test func silentPushProvesTheAppAndItsCredentialIsKept() async throws {
        let sequence = Counter()
        let receipts = Counter()
        let client = FakeHTTPClient { sent in
            switch sent.rpc {
            case "accounts:verifyClient": .ok(["receipt": "receipt-\(receipts.next())", "suggestedTimeout": "30"])
            default: FakeHTTPClient.standard(sent, sequence: sequence.next())
            }
        }
        try await withFakeAuth(client: client) { auth in
            #expect(auth.apnsToken == nil)
            auth.setAPNSToken(Data([0x01, 0xAB, 0xFF]), type: .sandbox)
            #expect(auth.apnsToken == Data([0x01, 0xAB, 0xFF]))
            // The notification ends the flow, so `verifyPhoneNumber` may return before the observer has its result.
            let (handled, observed) = AsyncStream.makeStream(of: Bool.self)
            auth.phoneAuth.appCredentials.observeReceipts { receipt in
                observed.yield(auth.canHandleNotification(["com.google.firebase.auth": ["receipt": receipt, "secret": "secret-of-\(receipt)"]]))
            }
            let provider = PhoneAuthProvider.provider(auth: auth)
            #expect(try await provider.verifyPhoneNumber("+15555550100", uiDelegate: nil) == "session-2")
            var results = handled.makeAsyncIterator()
            #expect(await results.next() == true)

            let verify = try #require(client.requests("accounts:verifyClient").first)
            #expect(verify.string("appToken") == "01ABFF")
            #expect(verify.body["isSandbox"] as? Bool == true)
            let send = try #require(client.requests("accounts:sendVerificationCode").first)
            #expect(send.string("iosReceipt") == "receipt-1")
            #expect(send.string("iosSecret") == "secret-of-receipt-1")
            #expect(send.string("recaptchaToken") == nil)
            #expect(client.requests.map(\.rpc) == ["recaptchaConfig", "accounts:verifyClient", "accounts:sendVerificationCode"])

            // The credential is kept: another number needs no new push.
            _ = try await provider.verifyPhoneNumber("+15555550101", uiDelegate: nil)
            #expect(client.requests("accounts:verifyClient").count == 1)
            #expect(client.requests("accounts:sendVerificationCode").last?.string("iosReceipt") == "receipt-1")

            // A push for a receipt nobody waits for is not Auth's.
            #expect(!auth.canHandleNotification(["com.google.firebase.auth": ["receipt": "other", "secret": "x"]]))
        }
    }

    @Test func pushOvertakingTheVerifyClientAnswerIsKept() async throws {
        let late = Late<Auth>()
        let pushResult = Locked<Bool?>(nil)
        let sequence = Counter()
        let client = FakeHTTPClient { sent in
            switch sent.rpc {
            case "accounts:verifyClient":
                // The push arrives (as a JSON string) before the answer naming its receipt.
                let payload = #"{"receipt":"early-receipt","secret":"early-secret"}"#
                let handled = late.get?.canHandleNotification(["com.google.firebase.auth": payload])
                pushResult.withLock { $0 = handled }
                return .ok(["receipt": "early-receipt", "suggestedTimeout": "30"])
            default:
                return FakeHTTPClient.standard(sent, sequence: sequence.next())
            }
        }
        try await withFakeAuth(client: client) { auth in
            late.set(auth)
            auth.apnsToken = Data([9, 9])
            _ = try await PhoneAuthProvider.provider(auth: auth).verifyPhoneNumber("+15555550100", uiDelegate: nil)
            #expect(pushResult.withLock { $0 } == true)
            let verify = try #require(client.requests("accounts:verifyClient").first)
            #expect(verify.body["isSandbox"] as? Bool == false) // .unknown resolves to production without a profile
            let send = try #require(client.requests("accounts:sendVerificationCode").first)
            #expect(send.string("iosReceipt") == "early-receipt")
            #expect(send.string("iosSecret") == "early-secret")
        }
    }

    @Test func rejectedKeptCredentialIsReplacedOnce() async throws {
        let sequence = Counter()
        let receipts = Counter()
        let rejectNext = Locked(false)
        let client = FakeHTTPClient { sent in
            switch sent.rpc {
            case "accounts:verifyClient":
                return .ok(["receipt": "receipt-\(receipts.next())", "suggestedTimeout": "30"])
            case "accounts:sendVerificationCode" where rejectNext.withLock({ reject in defer { reject = false }; return reject }):
                return .error("INVALID_APP_CREDENTIAL")
            default:
                return FakeHTTPClient.standard(sent, sequence: sequence.next())
            }
        }
        try await withFakeAuth(client: client) { auth in
            auth.setAPNSToken(Data([1]), type: .prod)
            auth.phoneAuth.appCredentials.observeReceipts { receipt in
                _ = auth.canHandleNotification(["com.google.firebase.auth": ["receipt": receipt, "secret": "secret"]])
            }
            let provider = PhoneAuthProvider.provider(auth: auth)
            _ = try await provider.verifyPhoneNumber("+15555550100", uiDelegate: nil)
            #expect(auth.phoneAuth.appCredentials.credential?.receipt == "receipt-1")

            rejectNext.withLock { $0 = true }
            _ = try await provider.verifyPhoneNumber("+15555550101", uiDelegate: nil)
            let sends = client.requests("accounts:sendVerificationCode")
            #expect(sends.map { $0.string("iosReceipt") } == ["receipt-1", "receipt-1", "receipt-2"])
            #expect(client.requests("accounts:verifyClient").count == 2)
            #expect(auth.phoneAuth.appCredentials.credential?.receipt == "receipt-2")
        }
    }

    @Test func rejectedFreshCredentialIsNotRetried() async throws {
        let sequence = Counter()
        let client = FakeHTTPClient { sent in
            switch sent.rpc {
            case "accounts:verifyClient": .ok(["receipt": "r", "suggestedTimeout": "30"])
            case "accounts:sendVerificationCode": .error("INVALID_APP_CREDENTIAL : receipt unknown")
            default: FakeHTTPClient.standard(sent, sequence: sequence.next())
            }
        }
        try await withFakeAuth(client: client) { auth in
            auth.setAPNSToken(Data([1]), type: .prod)
            auth.phoneAuth.appCredentials.observeReceipts { receipt in
                _ = auth.canHandleNotification(["com.google.firebase.auth": ["receipt": receipt, "secret": "secret"]])
            }
            let error = await expectAuthError(.invalidAppCredential) {
                try await PhoneAuthProvider.provider(auth: auth).verifyPhoneNumber("+15555550100", uiDelegate: nil)
            }
            #expect(error?.localizedDescription == "receipt unknown")
            #expect(client.requests("accounts:sendVerificationCode").count == 1)
        }
    }

    // MARK: The reCAPTCHA page

    #if !canImport(UIKit)
    static func query(of url: URL) -> [String: String] {
        var items: [String: String] = [:]
        for item in URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? [] {
            items[item.name] = item.value ?? ""
        }
        return items
    }

    @Test func noPushInTimeFallsBackToTheRecaptchaPage() async throws {
        let sequence = Counter()
        let client = FakeHTTPClient { sent in
            switch sent.rpc {
            case "accounts:verifyClient": .ok(["receipt": "never-pushed", "suggestedTimeout": "0"])
            default: FakeHTTPClient.standard(sent, sequence: sequence.next())
            }
        }
        try await withFakeAuth(configure: { options in
            options.googleAppID = "1:123:ios:abc"
            options.bundleID = "com.example.phone"
        }, client: client) { auth in
            auth.languageCode = "fr"
            auth.setAPNSToken(Data([1]), type: .prod)
            // (Delegate calls run on the callback queue, outside the test's task, and the last URL ends the flow:
            // `verifyPhoneNumber` may return before the delegate has its results.)
            let (handled, finished) = AsyncStream.makeStream(of: [Bool].self)
            let delegate = FakeUIDelegate { url, _ in
                let eventID = Self.query(of: url)["eventId"] ?? ""
                // Another event's callback and the wrong scheme are not this flow's.
                let results = [
                    auth.canHandle(captchaCallbackURL(scheme: "app-1-123-ios-abc", eventID: "OTHEREVENT", [("recaptchaToken", "x")])),
                    auth.canHandle(captchaCallbackURL(scheme: "other-scheme", eventID: eventID, [("recaptchaToken", "x")])),
                    auth.canHandle(captchaCallbackURL(scheme: "app-1-123-ios-abc", eventID: eventID,
                                                      [("recaptchaToken", "captcha+token/=1")])),
                ]
                finished.yield(results)
                finished.finish()
            }
            let id = try await PhoneAuthProvider.provider(auth: auth).verifyPhoneNumber("+15555550100", uiDelegate: delegate)
            #expect(id == "session-2")
            var results = handled.makeAsyncIterator()
            #expect(await results.next() == [false, false, true])

            let page = try #require(delegate.presented.first)
            #expect(page.absoluteString.hasPrefix("http://flint.test/__/auth/handler?"))
            let query = Self.query(of: page)
            #expect(query["apiKey"] == "fake-api-key")
            #expect(query["authType"] == "verifyApp")
            #expect(query["ibi"] == "com.example.phone")
            #expect(query["v"] == AuthBackend.clientVersion)
            #expect(query["appId"] == "1:123:ios:abc")
            #expect(query["clientId"] == nil)
            #expect(query["hl"] == "fr")
            let eventID = try #require(query["eventId"])
            #expect(eventID.count == 10 && eventID.allSatisfy { ("A"..."Z").contains($0) })

            let send = try #require(client.requests("accounts:sendVerificationCode").first)
            #expect(send.string("recaptchaToken") == "captcha+token/=1")
            #expect(send.string("iosReceipt") == nil)
            await drainCallbacks(auth)
            #expect(delegate.dismissals.current == 1)

            // The push arriving late is no longer awaited.
            #expect(!auth.canHandleNotification(["com.google.firebase.auth": ["receipt": "never-pushed", "secret": "s"]]))
            // Nor is the callback once the flow is over.
            #expect(!auth.canHandle(captchaCallbackURL(scheme: "app-1-123-ios-abc", eventID: eventID, [("recaptchaToken", "t")])))
        }
    }

    @Test func withoutAPNsTokenTheRecaptchaPageComesStraightAway() async throws {
        let sequence = Counter()
        let client = FakeHTTPClient { FakeHTTPClient.standard($0, sequence: sequence.next()) }
        try await withFakeAuth(configure: { $0.clientID = "123-abc.apps.googleusercontent.com" }, client: client) { auth in
            // The last URL ends the flow, so `verifyPhoneNumber` may return before the delegate has its results.
            let (handled, finished) = AsyncStream.makeStream(of: [Bool].self)
            let delegate = FakeUIDelegate { url, _ in
                let eventID = Self.query(of: url)["eventId"] ?? ""
                let scheme = "com.googleusercontent.apps.123-abc"
                let results = [
                    auth.canHandle(captchaCallbackURL(scheme: "app-flint-demo-phone", eventID: eventID, [("recaptchaToken", "x")])),
                    auth.canHandle(captchaCallbackURL(scheme: scheme, eventID: eventID, authType: "signInViaRedirect",
                                                      [("recaptchaToken", "x")])),
                    auth.canHandle(captchaCallbackURL(scheme: scheme, eventID: eventID, host: "elsewhere", [("recaptchaToken", "x")])),
                    auth.canHandle(captchaCallbackURL(scheme: scheme, eventID: eventID, path: "/other", [("recaptchaToken", "x")])),
                    auth.canHandle(captchaCallbackURL(scheme: "COM.googleusercontent.apps.123-abc", eventID: eventID,
                                                      [("recaptchaToken", "token-2")])),
                ]
                finished.yield(results)
                finished.finish()
            }
            _ = try await PhoneAuthProvider.provider(auth: auth).verifyPhoneNumber("+15555550100", uiDelegate: delegate)
            var results = handled.makeAsyncIterator()
            #expect(await results.next() == [false, false, false, false, true])
            #expect(client.requests.map(\.rpc) == ["recaptchaConfig", "accounts:sendVerificationCode"])
            let query = Self.query(of: try #require(delegate.presented.first))
            #expect(query["clientId"] == "123-abc.apps.googleusercontent.com")
            #expect(query["appId"] == nil)
            #expect(query["hl"] == nil)
            #expect(client.requests("accounts:sendVerificationCode").first?.string("recaptchaToken") == "token-2")
        }
    }

    @Test func closingThePageCancels() async throws {
        let client = FakeHTTPClient { FakeHTTPClient.standard($0, sequence: 1) }
        try await withFakeAuth(client: client) { auth in
            let delegate = FakeUIDelegate { _, userDidCancel in userDidCancel() }
            await expectAuthError(.webContextCancelled) {
                try await PhoneAuthProvider.provider(auth: auth).verifyPhoneNumber("+15555550100", uiDelegate: delegate)
            }
            #expect(client.requests("accounts:sendVerificationCode").isEmpty)
            await drainCallbacks(auth)
            #expect(delegate.dismissals.current == 0)
        }
    }

    @Test(arguments: [
        ("auth/internal-error", AuthErrorCode.webInternalError),
        ("auth/network-request-failed", .webNetworkRequestFailed),
        ("auth/invalid-oauth-client-id", .invalidClientID),
        ("auth/something-else", .appVerificationUserInteractionFailure),
    ])
    func pageErrorsMapToAuthErrors(code: String, expected: AuthErrorCode) async throws {
        let client = FakeHTTPClient { FakeHTTPClient.standard($0, sequence: 1) }
        try await withFakeAuth(client: client) { auth in
            // `canHandle` resumes the verification from inside the page, so its own answer may arrive just after the
            // verification's error: it comes through a stream, not a variable read at once.
            let (handled, record) = AsyncStream.makeStream(of: Bool.self)
            let delegate = FakeUIDelegate { url, _ in
                let eventID = Self.query(of: url)["eventId"] ?? ""
                let error = #"{"code":"\#(code)","message":"It went wrong: badly"}"#
                record.yield(auth.canHandle(captchaCallbackURL(scheme: "app-flint-demo-phone", eventID: eventID, [("firebaseError", error)])))
            }
            let error = await expectAuthError(expected) {
                try await PhoneAuthProvider.provider(auth: auth).verifyPhoneNumber("+15555550100", uiDelegate: delegate)
            }
            var iterator = handled.makeAsyncIterator()
            #expect(await iterator.next() == true)
            if expected != .appVerificationUserInteractionFailure {
                #expect(error?.localizedDescription == "It went wrong: badly")
            }
            #expect(client.requests("accounts:sendVerificationCode").isEmpty)
        }
    }

    @Test func callbackWithoutTokenOrErrorFails() async throws {
        let client = FakeHTTPClient { FakeHTTPClient.standard($0, sequence: 1) }
        try await withFakeAuth(client: client) { auth in
            let delegate = FakeUIDelegate { url, _ in
                let eventID = Self.query(of: url)["eventId"] ?? ""
                _ = auth.canHandle(captchaCallbackURL(scheme: "app-flint-demo-phone", eventID: eventID, []))
            }
            await expectAuthError(.appVerificationUserInteractionFailure) {
                try await PhoneAuthProvider.provider(auth: auth).verifyPhoneNumber("+15555550100", uiDelegate: delegate)
            }
        }
    }

    @Test func onlyOnePageAtATime() async throws {
        let client = FakeHTTPClient { FakeHTTPClient.standard($0, sequence: 1) }
        try await withFakeAuth(client: client) { auth in
            let shown = OneShot<@Sendable () -> Void>()
            let delegate = FakeUIDelegate { _, userDidCancel in shown.resolve(userDidCancel) }
            let provider = PhoneAuthProvider.provider(auth: auth)
            let first = Task { try await provider.verifyPhoneNumber("+15555550100", uiDelegate: delegate) }
            let cancelFirst = await shown.wait()
            await expectAuthError(.webContextAlreadyPresented) {
                try await provider.verifyPhoneNumber("+15555550101", uiDelegate: delegate)
            }
            cancelFirst()
            await expectAuthError(.webContextCancelled) { try await first.value }
        }
    }

    @Test func googleHostsServeThePageFromTheProjectDomain() async throws {
        let client = FakeHTTPClient { sent in
            switch sent.rpc {
            case "projects":
                .ok(["projectId": "demo-phone", "authorizedDomains": ["localhost", "demo-phone.web.app", "demo-phone.firebaseapp.com"]])
            default:
                FakeHTTPClient.standard(sent, sequence: 1)
            }
        }
        try await withFakeAuth(serverURL: nil, client: client) { auth in
            let url = try await PhoneAuthProvider.provider(auth: auth).recaptchaPageURL(eventID: "ABCDEFGHIJ")
            #expect(url.absoluteString.hasPrefix("https://demo-phone.firebaseapp.com/__/auth/handler?apiKey=fake-api-key&"))
            let config = try #require(client.requests.first)
            #expect(config.method == "GET")
            #expect(config.url.absoluteString == "https://identitytoolkit.googleapis.com/v1/projects?key=fake-api-key")
        }
    }
    #endif

    @Test func withoutDelegateTheAppCannotBeVerified() async throws {
        let client = FakeHTTPClient { sent in
            sent.rpc == "accounts:verifyClient" ? .error("INVALID_APP_CREDENTIAL") : FakeHTTPClient.standard(sent, sequence: 1)
        }
        try await withFakeAuth(client: client) { auth in
            auth.setAPNSToken(Data([1]), type: .prod)
            await expectAuthError(.appNotVerified) {
                try await PhoneAuthProvider.provider(auth: auth).verifyPhoneNumber("+15555550100", uiDelegate: nil)
            }
            #expect(client.requests.map(\.rpc) == ["recaptchaConfig", "accounts:verifyClient"])
        }
    }

    // MARK: Parsing

    @Test func notificationsThatAreNotAuthsAreDeclined() async throws {
        let client = FakeHTTPClient { FakeHTTPClient.standard($0, sequence: 1) }
        try await withFakeAuth(client: client) { auth in
            #expect(!auth.canHandleNotification([:]))
            #expect(!auth.canHandleNotification(["aps": ["content-available": 1]]))
            #expect(!auth.canHandleNotification(["com.google.firebase.auth": "not json"]))
            #expect(!auth.canHandleNotification(["com.google.firebase.auth": ["receipt": "r"]]))
            #expect(!auth.canHandleNotification(["com.google.firebase.auth": #"{"receipt":"r","secret":"s"}"#]))
            // FirebaseAuth's forwarding probe is Auth's own.
            #expect(auth.canHandleNotification(["com.google.firebase.auth": ["warning": "probe"]]))
            // No web flow: no URL is Auth's.
            #expect(!auth.canHandle(captchaCallbackURL(scheme: "app-flint-demo-phone", eventID: "ABCDEFGHIJ", [("recaptchaToken", "t")])))
            #expect(!auth.canHandle(URL(string: "https://example.com/?mode=signIn&oobCode=x")!))
        }
    }

    @Test func callbackURLMatching() throws {
        let good = captchaCallbackURL(scheme: "app-1-2-ios-3", eventID: "ABCDEFGHIJ", [("recaptchaToken", "t")])
        #expect(WebFlowCoordinator.isCallback(good, eventID: "ABCDEFGHIJ", authType: "verifyApp", callbackScheme: "app-1-2-ios-3"))
        #expect(!WebFlowCoordinator.isCallback(good, eventID: "ABCDEFGHIK", authType: "verifyApp", callbackScheme: "app-1-2-ios-3"))
        #expect(!WebFlowCoordinator.isCallback(good, eventID: "ABCDEFGHIJ", authType: "signInViaRedirect", callbackScheme: "app-1-2-ios-3"))
        #expect(!WebFlowCoordinator.isCallback(URL(string: "app-1-2-ios-3://firebaseauth/link")!, eventID: "ABCDEFGHIJ",
                                               authType: "verifyApp", callbackScheme: "app-1-2-ios-3"))
        #expect(try PhoneAuthProvider.recaptchaToken(fromCallback: good) == "t")
    }

    @Test func apnsTokenTypes() async throws {
        let client = FakeHTTPClient { FakeHTTPClient.standard($0, sequence: 1) }
        try await withFakeAuth(client: client) { auth in
            auth.setAPNSToken(Data([0xDE, 0xAD]), type: .unknown)
            #expect(auth.phoneAuth.appCredentials.token == APNSToken(data: Data([0xDE, 0xAD]), type: .prod))
            #expect(auth.phoneAuth.appCredentials.token?.hexString == "DEAD")
            auth.setAPNSToken(Data([0xBE, 0xEF]), type: .sandbox)
            #expect(auth.phoneAuth.appCredentials.token?.type == .sandbox)
            auth.apnsToken = nil
            #expect(auth.apnsToken == nil)
            #expect(AuthAPNSTokenType(rawValue: 2) == .prod)
        }
    }

    // MARK: Credentials

    @Test func linkConflictCarriesATemporaryProof() async throws {
        let client = FakeHTTPClient { sent in
            switch sent.rpc {
            case "accounts:signInWithPhoneNumber" where sent.body["idToken"] != nil:
                .ok(["phoneNumber": "+15555550100", "temporaryProof": "proof-1", "temporaryProofExpiresIn": "300"])
            case "accounts:signUp":
                .ok(["idToken": "anon-token", "refreshToken": "anon-refresh", "expiresIn": "3600", "localId": "uid-anon"])
            case "accounts:lookup" where sent.string("idToken") == "anon-token":
                .ok(["users": [["localId": "uid-anon"]]])
            default:
                FakeHTTPClient.standard(sent, sequence: 1)
            }
        }
        try await withFakeAuth(client: client) { auth in
            let anonymous = try await auth.signInAnonymously().user
            let provider = PhoneAuthProvider.provider(auth: auth)
            let error = await expectAuthError(.credentialAlreadyInUse) {
                try await anonymous.link(with: provider.credential(withVerificationID: "session-9", verificationCode: "123456"))
            }
            let link = try #require(client.requests("accounts:signInWithPhoneNumber").first)
            #expect(link.string("operation") == "LINK")
            #expect(link.string("idToken") == "anon-token")
            #expect(link.string("sessionInfo") == "session-9")
            #expect(link.string("code") == "123456")
            #expect(error?.userInfo[AuthErrorUserInfoPhoneNumberKey] as? String == "+15555550100")
            let updated = try #require(error?.userInfo[AuthErrorUserInfoUpdatedCredentialKey] as? PhoneAuthCredential)
            #expect(updated.provider == "phone")
            #expect(updated.kind == .temporaryProof(proof: "proof-1", phoneNumber: "+15555550100"))
            #expect(auth.currentUser?.uid == "uid-anon")

            let result = try await auth.signIn(with: updated)
            let signIn = try #require(client.requests("accounts:signInWithPhoneNumber").last)
            #expect(signIn.body.keys.sorted() == ["operation", "phoneNumber", "temporaryProof"])
            #expect(signIn.string("operation") == "SIGN_UP_OR_IN")
            #expect(result.user.uid == "uid-phone")
            #expect(result.additionalUserInfo?.providerID == "phone")
        }
    }
}
