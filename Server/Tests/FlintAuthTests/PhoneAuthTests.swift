@testable import FlintAuth
import FlintTestSupport
import FlintWire
import Foundation
import Testing

/// Phone-number sign-in end to end against a Flint server in emulator mode, with app verification
/// disabled for testing (as `useEmulator` does): fictional test numbers with fixed codes, and real
/// numbers whose codes the server's log SMS provider writes.
@Suite struct PhoneAuthTests {
    static let fictionalNumber = "+15555550100"
    static let fictionalCode = "123456"

    /// Registers `numbers` (E.164 → code) as the project's fictional test numbers.
    static func setTestPhoneNumbers(_ numbers: [String: String], on server: TestServer) async throws {
        let body = try JSONEncoder().encode(ProjectConfig(signIn: .init(phoneNumber: .init(testPhoneNumbers: numbers))))
        let reply = try await TestClient(server).send(
            "PATCH",
            "/identitytoolkit.googleapis.com/v2/projects/\(server.projectID)/config?updateMask=signIn.phoneNumber.testPhoneNumbers",
            body: body, headers: ["Authorization": "Bearer owner"], includeKey: false)
        #expect(reply.status == 200, "\(reply.body)")
    }

    /// A harness whose `Auth` skips app verification and whose project has the fictional number.
    static func withPhoneHarness(httpClient: any AuthHTTPClient = URLSessionHTTPClient.shared,
                                 _ body: (Harness, PhoneAuthProvider) async throws -> Void) async throws {
        try await withHarness(httpClient: httpClient) { harness in
            harness.auth.settings?.isAppVerificationDisabledForTesting = true
            try await setTestPhoneNumbers([fictionalNumber: fictionalCode], on: harness.server)
            try await body(harness, PhoneAuthProvider.provider(auth: harness.auth))
        }
    }

    /// The code the server texted to `phoneNumber` last.
    static func lastCode(to phoneNumber: String, on server: TestServer) throws -> String {
        try #require(server.log.smsCodes(to: phoneNumber).last, "no SMS to \(phoneNumber) in the server log")
    }

    /// Signs in with a real (non-fictional) number through the code in the server log.
    @discardableResult
    static func signIn(_ phoneNumber: String, _ harness: Harness, _ provider: PhoneAuthProvider) async throws -> AuthDataResult {
        let id = try await provider.verifyPhoneNumber(phoneNumber, uiDelegate: nil)
        let code = try lastCode(to: phoneNumber, on: harness.server)
        return try await harness.auth.signIn(with: provider.credential(withVerificationID: id, verificationCode: code))
    }

    @Test func fictionalNumberSignsInTwiceAsOneUser() async throws {
        try await Self.withPhoneHarness { harness, provider in
            let firstID = try await provider.verifyPhoneNumber(Self.fictionalNumber, uiDelegate: nil)
            let first = try await harness.auth.signIn(
                with: provider.credential(withVerificationID: firstID, verificationCode: Self.fictionalCode))
            #expect(first.additionalUserInfo?.isNewUser == true)
            #expect(first.additionalUserInfo?.providerID == "phone")
            #expect(first.user.phoneNumber == Self.fictionalNumber)
            #expect(first.user.providerData.map(\.providerID) == ["phone"])
            #expect(first.user.providerData.first?.phoneNumber == Self.fictionalNumber)
            #expect(!first.user.isAnonymous)
            #expect(harness.auth.currentUser === first.user)
            #expect(try await first.user.getIDTokenResult().signInProvider == "phone")

            try harness.auth.signOut()
            let secondID = try await provider.verifyPhoneNumber(Self.fictionalNumber, uiDelegate: nil)
            #expect(secondID != firstID) // the first code was used: a new send
            let second = try await harness.auth.signIn(
                with: provider.credential(withVerificationID: secondID, verificationCode: Self.fictionalCode))
            #expect(second.user.uid == first.user.uid)
            #expect(second.additionalUserInfo?.isNewUser == false)
            #expect(harness.server.log.smsCodes(to: Self.fictionalNumber).isEmpty)
        }
    }

    @Test func realNumberSignsInWithTheTextedCode() async throws {
        try await Self.withPhoneHarness { harness, provider in
            let number = "+14155550123"
            let id = try await provider.verifyPhoneNumber(number, uiDelegate: nil)
            let code = try Self.lastCode(to: number, on: harness.server)
            #expect(code.count == 6 && code.allSatisfy(\.isNumber))

            // Emulator mode also lists the code.
            let listing = try await TestClient(harness.server).send(
                "GET", "/emulator/v1/projects/\(harness.server.projectID)/verificationCodes", includeKey: false)
            let entries = try JSONDecoder().decode(VerificationCodesResponse.self, from: JSONEncoder().encode(listing.body))
            #expect(entries.verificationCodes.contains(.init(phoneNumber: number, sessionInfo: id, code: code)))

            let result = try await harness.auth.signIn(with: provider.credential(withVerificationID: id, verificationCode: code))
            #expect(result.additionalUserInfo?.isNewUser == true)
            #expect(result.user.phoneNumber == number)
        }
    }

    @Test func wrongCodeThenRightCode() async throws {
        try await Self.withPhoneHarness { harness, provider in
            let number = "+14155550129"
            let id = try await provider.verifyPhoneNumber(number, uiDelegate: nil)
            let code = try Self.lastCode(to: number, on: harness.server)
            let wrong = code == "000000" ? "111111" : "000000"
            await expectAuthError(.invalidVerificationCode) {
                try await harness.auth.signIn(with: provider.credential(withVerificationID: id, verificationCode: wrong))
            }
            #expect(harness.auth.currentUser == nil)
            // The code is still good: asking again hands out the same verification ID without a new SMS.
            #expect(try await provider.verifyPhoneNumber(number, uiDelegate: nil) == id)
            #expect(harness.server.log.smsCodes(to: number).count == 1)
            let result = try await harness.auth.signIn(with: provider.credential(withVerificationID: id, verificationCode: code))
            #expect(result.user.phoneNumber == number)
        }
    }

    @Test func usedCodeCannotBeUsedAgain() async throws {
        try await Self.withPhoneHarness { harness, provider in
            let number = "+14155550124"
            let id = try await provider.verifyPhoneNumber(number, uiDelegate: nil)
            let credential = provider.credential(withVerificationID: id, verificationCode: try Self.lastCode(to: number, on: harness.server))
            try await harness.auth.signIn(with: credential)
            try harness.auth.signOut()
            await expectAuthError(.invalidVerificationID) { try await harness.auth.signIn(with: credential) }
            #expect(harness.auth.currentUser == nil)
            // A new code is sent for the number, since the old one is used up.
            #expect(try await provider.verifyPhoneNumber(number, uiDelegate: nil) != id)
            #expect(harness.server.log.smsCodes(to: number).count == 2)
        }
    }

    @Test func unknownVerificationID() async throws {
        try await Self.withPhoneHarness { harness, provider in
            await expectAuthError(.invalidVerificationID) {
                try await harness.auth.signIn(with: provider.credential(withVerificationID: "not-a-session", verificationCode: "123456"))
            }
        }
    }

    @Test func linkPhoneToEmailUser() async throws {
        try await Self.withPhoneHarness { harness, provider in
            let email = Harness.email()
            let user = try await harness.auth.createUser(withEmail: email, password: "secret1").user
            let id = try await provider.verifyPhoneNumber(Self.fictionalNumber, uiDelegate: nil)
            let result = try await user.link(with: provider.credential(withVerificationID: id, verificationCode: Self.fictionalCode))
            #expect(result.user === user)
            #expect(result.additionalUserInfo == nil)
            #expect(user.phoneNumber == Self.fictionalNumber)
            #expect(Set(user.providerData.map(\.providerID)) == ["password", "phone"])
            #expect(user.email == email)

            // Linking a second phone is refused on the client.
            await expectAuthError(.providerAlreadyLinked) {
                try await user.link(with: provider.credential(withVerificationID: "x", verificationCode: "123456"))
            }

            // The number now signs in as this user.
            try harness.auth.signOut()
            let again = try await provider.verifyPhoneNumber(Self.fictionalNumber, uiDelegate: nil)
            let signedIn = try await harness.auth.signIn(
                with: provider.credential(withVerificationID: again, verificationCode: Self.fictionalCode))
            #expect(signedIn.user.uid == user.uid)
            #expect(signedIn.additionalUserInfo?.isNewUser == false)

            // And unlinking removes it.
            try await signedIn.user.unlink(fromProvider: PhoneAuthProvider.id)
            #expect(signedIn.user.phoneNumber == nil)
            #expect(signedIn.user.providerData.map(\.providerID) == ["password"])
        }
    }

    @Test func linkingANumberAnotherAccountHoldsGivesItsCredential() async throws {
        try await Self.withPhoneHarness { harness, provider in
            let owner = try await harness.auth.signIn(
                with: provider.credential(withVerificationID: try await provider.verifyPhoneNumber(Self.fictionalNumber, uiDelegate: nil),
                                          verificationCode: Self.fictionalCode)).user
            try harness.auth.signOut()

            let other = try await harness.auth.createUser(withEmail: Harness.email(), password: "secret1").user
            let id = try await provider.verifyPhoneNumber(Self.fictionalNumber, uiDelegate: nil)
            let error = await expectAuthError(.credentialAlreadyInUse) {
                try await other.link(with: provider.credential(withVerificationID: id, verificationCode: Self.fictionalCode))
            }
            #expect(error?.userInfo[AuthErrorUserInfoPhoneNumberKey] as? String == Self.fictionalNumber)
            let updated = try #require(error?.userInfo[AuthErrorUserInfoUpdatedCredentialKey] as? PhoneAuthCredential)
            #expect(other.phoneNumber == nil)
            #expect(harness.auth.currentUser === other)

            // The proof does not take the number either (the server says PHONE_NUMBER_EXISTS).
            await expectAuthError(.credentialAlreadyInUse) { try await other.link(with: updated) }

            let result = try await harness.auth.signIn(with: updated)
            #expect(result.user.uid == owner.uid)
            #expect(result.additionalUserInfo?.isNewUser == false)
            #expect(harness.auth.currentUser?.uid == owner.uid)
        }
    }

    @Test func reauthenticate() async throws {
        try await Self.withPhoneHarness { harness, provider in
            let user = try await harness.auth.signIn(
                with: provider.credential(withVerificationID: try await provider.verifyPhoneNumber(Self.fictionalNumber, uiDelegate: nil),
                                          verificationCode: Self.fictionalCode)).user
            // The re-authentication's session replaces the old one. (Its ID token may be byte for byte the old one
            // when both are made in the same second: RS256 is deterministic and the claims are the same.)
            let sessionBefore = user.snapshot.tokens.refreshToken

            let id = try await provider.verifyPhoneNumber(Self.fictionalNumber, uiDelegate: nil)
            let result = try await user.reauthenticate(with: provider.credential(withVerificationID: id, verificationCode: Self.fictionalCode))
            #expect(result.user === user)
            #expect(result.additionalUserInfo?.providerID == "phone")
            #expect(user.snapshot.tokens.refreshToken != sessionBefore)

            // Another user cannot reauthenticate with this number.
            let other = try await harness.auth.createUser(withEmail: Harness.email(), password: "secret1").user
            let otherID = try await provider.verifyPhoneNumber(Self.fictionalNumber, uiDelegate: nil)
            await expectAuthError(.userMismatch) {
                try await other.reauthenticate(with: provider.credential(withVerificationID: otherID, verificationCode: Self.fictionalCode))
            }
            // Nor with a number no account holds.
            let free = "+14155550125"
            let freeID = try await provider.verifyPhoneNumber(free, uiDelegate: nil)
            await expectAuthError(.userMismatch) {
                try await other.reauthenticate(with: provider.credential(
                    withVerificationID: freeID, verificationCode: try Self.lastCode(to: free, on: harness.server)))
            }
            #expect(harness.auth.currentUser === other)
        }
    }

    @Test func updatePhoneNumber() async throws {
        try await Self.withPhoneHarness { harness, provider in
            let user = try await harness.auth.signIn(
                with: provider.credential(withVerificationID: try await provider.verifyPhoneNumber(Self.fictionalNumber, uiDelegate: nil),
                                          verificationCode: Self.fictionalCode)).user
            let number = "+14155550126"
            let id = try await provider.verifyPhoneNumber(number, uiDelegate: nil)
            try await user.updatePhoneNumber(provider.credential(withVerificationID: id, verificationCode: try Self.lastCode(to: number, on: harness.server)))
            #expect(user.phoneNumber == number)
            #expect(user.providerData.first { $0.providerID == "phone" }?.phoneNumber == number)
            try await user.reload()
            #expect(user.phoneNumber == number)

            // A number another account holds is not taken; its credential comes with the error.
            let other = try await harness.auth.createUser(withEmail: Harness.email(), password: "secret1").user
            let otherID = try await provider.verifyPhoneNumber(number, uiDelegate: nil)
            let error = await expectAuthError(.credentialAlreadyInUse) {
                try await other.updatePhoneNumber(provider.credential(
                    withVerificationID: otherID, verificationCode: try Self.lastCode(to: number, on: harness.server)))
            }
            #expect(other.phoneNumber == nil)
            let updated = try #require(error?.userInfo[AuthErrorUserInfoUpdatedCredentialKey] as? PhoneAuthCredential)
            #expect(try await harness.auth.signIn(with: updated).user.uid == user.uid)
        }
    }

    @Test func concurrentRequestsForOneNumberSendOneSMS() async throws {
        try await Self.withPhoneHarness { harness, provider in
            let number = "+14155550127"
            async let first = provider.verifyPhoneNumber(number, uiDelegate: nil)
            async let second = provider.verifyPhoneNumber(number, uiDelegate: nil)
            let (a, b) = try await (first, second)
            #expect(a == b)
            #expect(try await provider.verifyPhoneNumber(number, uiDelegate: nil) == a)
            #expect(harness.server.log.smsCodes(to: number).count == 1)
        }
    }

    @Test func badNumbers() async throws {
        try await Self.withPhoneHarness { harness, provider in
            await expectAuthError(.missingPhoneNumber) { try await provider.verifyPhoneNumber("", uiDelegate: nil) }
            await expectAuthError(.invalidPhoneNumber) { try await provider.verifyPhoneNumber("12345", uiDelegate: nil) }
            await expectAuthError(.invalidPhoneNumber) { try await provider.verifyPhoneNumber("+1 not a number", uiDelegate: nil) }
        }
    }

    @Test func languageCodeReachesTheServer() async throws {
        let client = RecordingHTTPClient()
        try await Self.withPhoneHarness(httpClient: client) { harness, provider in
            harness.auth.languageCode = "fr"
            let number = "+14155550128"
            _ = try await provider.verifyPhoneNumber(number, uiDelegate: nil)
            let send = try #require(client.requests.first { $0.url.lastPathComponent == "accounts:sendVerificationCode" })
            #expect(send.headers["X-Firebase-Locale"] == "fr")
            let entry = try #require(harness.server.log.all.first { $0.metadata["phoneNumber"] == number && $0.metadata["code"] != nil })
            #expect(entry.metadata["locale"] == "fr")
        }
    }

    @Test func completionHandlerSignIn() async throws {
        try await Self.withPhoneHarness { harness, provider in
            let id: String = try await withCheckedThrowingContinuation { continuation in
                provider.verifyPhoneNumber(Self.fictionalNumber, uiDelegate: nil) { id, error in
                    if let id { continuation.resume(returning: id) } else { continuation.resume(throwing: error!) }
                }
            }
            let uid: String = try await withCheckedThrowingContinuation { continuation in
                harness.auth.signIn(with: provider.credential(withVerificationID: id, verificationCode: Self.fictionalCode)) { result, error in
                    if let result { continuation.resume(returning: result.user.uid) } else { continuation.resume(throwing: error!) }
                }
            }
            #expect(harness.auth.currentUser?.uid == uid)
        }
    }
}
