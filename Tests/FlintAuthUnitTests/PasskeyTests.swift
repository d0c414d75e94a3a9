@testable import FlintAuth
import FlintWire
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// The passkey API against a stub server: what goes on the wire, how the options are read, the errors.
@Suite struct PasskeyTests {
    static let challenge = Data((0..<32).map { UInt8($0 * 7 % 256) })
    static let userHandle = Data("uid-1".utf8)

    @Test func enrollmentSendsTheAuthenticatorsBytesInBase64AndListsThePasskey() async throws {
        try await withPasskeyStub { auth, server in
            let user = try await auth.signInAnonymously().user
            let authenticator = FixedAuthenticator()
            try await user.enrollPasskey(withName: "Laptop", authenticator: authenticator)

            #expect(authenticator.creations.value == [PasskeyCreationOptions(
                relyingPartyIdentifier: "example.com", challenge: Self.challenge, userID: Self.userHandle, name: "Laptop")])
            let start = try #require(server.body(of: "passkeyEnrollment:start"))
            #expect(start["idToken"]?.stringValue?.hasPrefix("id-token-") == true)
            let finalize = try #require(server.body(of: "passkeyEnrollment:finalize"))
            #expect(finalize["name"] == "Laptop")
            #expect(finalize["authenticatorRegistrationResponse"] == [
                "id": .string(FixedAuthenticator.credentialID.base64EncodedString()),
                "response": [
                    "clientDataJSON": .string(FixedAuthenticator.clientData.base64EncodedString()),
                    "attestationObject": .string(FixedAuthenticator.attestationObject.base64EncodedString()),
                ],
            ])
            let passkeys = try #require(user.enrolledPasskeys)
            #expect(passkeys.map(\.name) == ["Laptop"])
            #expect(passkeys.map(\.credentialID) == [FixedAuthenticator.credentialID.base64EncodedString()])
            #expect(user.refreshToken == "refresh-after-passkey")
        }
    }

    @Test(arguments: [nil, ""])
    func aPasskeyWithoutANameGetsFirebasesDefault(name: String?) async throws {
        try await withPasskeyStub { auth, server in
            let user = try await auth.signInAnonymously().user
            try await user.enrollPasskey(withName: name, authenticator: FixedAuthenticator())
            #expect(server.body(of: "passkeyEnrollment:finalize")?["name"] == "Unnamed account (Apple)")
        }
    }

    @Test func optionsAreReadInBase64urlToo() async throws {
        try await withPasskeyStub(encode: { $0.base64URLWithoutPadding }) { auth, _ in
            let user = try await auth.signInAnonymously().user
            let authenticator = FixedAuthenticator()
            try await user.enrollPasskey(withName: "Phone", authenticator: authenticator)
            #expect(authenticator.creations.value.first?.challenge == Self.challenge)
            #expect(authenticator.creations.value.first?.userID == Self.userHandle)
            try auth.signOut()
            try await auth.signInWithPasskey(authenticator: authenticator)
            #expect(authenticator.requests.value.first?.challenge == Self.challenge)
        }
    }

    @Test func optionsWithoutAChallengeAreAnInternalError() async throws {
        try await withPasskeyStub(encode: { _ in "not base64!" }) { auth, _ in
            let user = try await auth.signInAnonymously().user
            await expectAuthError(.internalError) {
                try await user.enrollPasskey(withName: "Laptop", authenticator: FixedAuthenticator())
            }
        }
    }

    @Test func signInSendsTheAssertionInBase64AndSignsTheAccountIn() async throws {
        try await withPasskeyStub { auth, server in
            let authenticator = FixedAuthenticator()
            let result = try await auth.signInWithPasskey(authenticator: authenticator)
            #expect(authenticator.requests.value == [PasskeyRequestOptions(relyingPartyIdentifier: "example.com",
                                                                            challenge: Self.challenge)])
            #expect(server.body(of: "passkeySignIn:finalize")?["authenticatorAuthenticationResponse"] == [
                "id": .string(FixedAuthenticator.credentialID.base64EncodedString()),
                "response": [
                    "clientDataJSON": .string(FixedAuthenticator.clientData.base64EncodedString()),
                    "authenticatorData": .string(FixedAuthenticator.authenticatorData.base64EncodedString()),
                    "signature": .string(FixedAuthenticator.signature.base64EncodedString()),
                    "userHandle": .string(Self.userHandle.base64EncodedString()),
                ],
            ])
            #expect(result.additionalUserInfo == nil)
            #expect(auth.currentUser === result.user)
            #expect(result.user.uid == "uid-1")
        }
    }

    @Test func firebasesStepsCarryTheNameFromStartToFinalize() async throws {
        try await withPasskeyStub { auth, server in
            let user = try await auth.signInAnonymously().user
            let request = try await user.startPasskeyEnrollment(withName: "Work phone")
            #expect(request.relyingPartyIdentifier == "example.com")
            #expect(request.challenge == Self.challenge)
            #expect(request.userID == Self.userHandle)
            #expect(request.name == "Work phone")
            let credential = ASAuthorizationPlatformPublicKeyCredentialRegistration(
                credentialID: FixedAuthenticator.credentialID, rawClientDataJSON: FixedAuthenticator.clientData,
                rawAttestationObject: FixedAuthenticator.attestationObject)
            try await user.finalizePasskeyEnrollment(withPlatformCredential: credential)
            #expect(server.body(of: "passkeyEnrollment:finalize")?["name"] == "Work phone")
            #expect(user.state[\.pendingPasskeyName] == nil)

            let assertionRequest = try await auth.startPasskeySignIn()
            #expect(assertionRequest.relyingPartyIdentifier == "example.com")
            #expect(assertionRequest.challenge == Self.challenge)
        }
    }

    @Test func aPlatformCredentialWithoutAnAttestationObjectIsRefusedBeforeSending() async throws {
        try await withPasskeyStub { auth, server in
            let user = try await auth.signInAnonymously().user
            let credential = ASAuthorizationPlatformPublicKeyCredentialRegistration(
                credentialID: FixedAuthenticator.credentialID, rawClientDataJSON: FixedAuthenticator.clientData,
                rawAttestationObject: nil)
            await expectAuthError(.invalidAuthenticatorResponse) {
                try await user.finalizePasskeyEnrollment(withPlatformCredential: credential)
            }
            #expect(server.body(of: "passkeyEnrollment:finalize") == nil)
        }
    }

    @Test func unenrollingSendsDeletePasskeyAndReloads() async throws {
        try await withPasskeyStub { auth, server in
            let user = try await auth.signInAnonymously().user
            try await user.enrollPasskey(withName: "Laptop", authenticator: FixedAuthenticator())
            let credentialID = try #require(user.enrolledPasskeys?.first?.credentialID)
            try await user.unenrollPasskey(withCredentialID: credentialID)
            #expect(server.body(of: "accounts:update")?["deletePasskey"] == [.string(credentialID)])
            #expect(user.enrolledPasskeys?.isEmpty == true)
            await expectAuthError(.missingPasskeyEnrollment) {
                try await user.unenrollPasskey(withCredentialID: "")
            }
        }
    }

    @Test func theTenantRidesAlong() async throws {
        try await withPasskeyStub { auth, server in
            auth.tenantID = "tenant-1"
            let user = try await auth.signInAnonymously().user
            try await user.enrollPasskey(withName: "Laptop", authenticator: FixedAuthenticator())
            try await auth.signInWithPasskey(authenticator: FixedAuthenticator())
            for method in ["passkeyEnrollment:start", "passkeyEnrollment:finalize", "passkeySignIn:start", "passkeySignIn:finalize"] {
                #expect(server.body(of: method)?["tenantId"] == "tenant-1", "\(method)")
            }
        }
    }

    @Test func aSignInThatAsksForASecondFactorThrowsWithAResolver() async throws {
        try await withPasskeyStub(secondFactor: true) { auth, _ in
            do {
                try await auth.signInWithPasskey(authenticator: FixedAuthenticator())
                Issue.record("The sign-in succeeded")
            } catch {
                #expect(AuthErrorCode(error) == .secondFactorRequired)
                #expect((error as NSError).userInfo[AuthErrorUserInfoMultiFactorResolverKey] is MultiFactorResolver)
                #expect(auth.currentUser == nil)
            }
        }
    }

    @Test(arguments: [
        ("INVALID_AUTHENTICATOR_RESPONSE", AuthErrorCode.invalidAuthenticatorResponse),
        ("MISSING_AUTHENTICATOR_RESPONSE", .invalidAuthenticatorResponse),
        ("INVALID_CREDENTIAL_ID", .invalidAuthenticatorResponse),
        ("PASSKEY_ENROLLMENT_NOT_FOUND", .missingPasskeyEnrollment),
        ("PASSKEY_CREDENTIAL_NOT_FOUND", .missingPasskeyEnrollment),
        ("CREDENTIAL_ALREADY_IN_USE", .credentialAlreadyInUse),
    ])
    func passkeyServerErrorsHaveTheirCodes(serverCode: String, expected: AuthErrorCode) {
        let envelope = ErrorEnvelope(error: .init(code: 400, message: serverCode,
                                                  errors: [.init(message: serverCode, reason: "invalid")], status: nil))
        let error = AuthErrorUtils.serverError(envelope)
        #expect(AuthErrorCode(error) == expected)
        #expect(error.userInfo[AuthErrorUserInfoNameKey] as? String == expected.name)
    }

    @Test func passkeyCodesHaveFirebasesNames() {
        #expect(AuthErrorCode.invalidAuthenticatorResponse.name == "ERROR_INVALID_AUTHENTICATOR_RESPONSE")
        #expect(AuthErrorCode.missingPasskeyEnrollment.name == "ERROR_PASSKEY_ENROLLMENT_NOT_FOUND")
        #expect(AuthErrorCode.missingPasskeyEnrollment.rawValue == 17212)
    }

    #if !canImport(AuthenticationServices)
    @Test func withoutAuthenticationServicesTheSystemAuthenticatorIsNotThere() async throws {
        try await withPasskeyStub { auth, server in
            let user = try await auth.signInAnonymously().user
            do {
                try await user.enrollPasskey(withName: "Laptop")
                Issue.record("The enrollment succeeded")
            } catch let error as ASAuthorizationError {
                #expect(error.code == .notHandled)
            }
            #expect(server.body(of: "passkeyEnrollment:finalize") == nil)
        }
    }
    #endif
}

// MARK: - Helpers

/// Expects `body` to throw an error of FlintAuth with `code`.
private func expectAuthError(_ code: AuthErrorCode, sourceLocation: SourceLocation = #_sourceLocation,
                             _ body: () async throws -> Void) async {
    do {
        try await body()
        Issue.record("No error; expected \(code.name)", sourceLocation: sourceLocation)
    } catch {
        #expect(AuthErrorCode(error) == code, "\(error)", sourceLocation: sourceLocation)
    }
}

extension Data {
    fileprivate var base64URLWithoutPadding: String {
        base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}

/// An authenticator that answers with fixed bytes and records what it was asked.
private struct FixedAuthenticator: PasskeyAuthenticator {
    static let credentialID = Data([0xFB, 0xFF, 0x01, 0x02, 0x03])  // "+/" in base64, "-_" in base64url
    static let clientData = Data(#"{"type":"webauthn.create"}"#.utf8)
    static let attestationObject = Data([0xA3, 0x63, 0x66, 0x6D, 0x74])
    static let authenticatorData = Data(repeating: 0xAD, count: 37)
    static let signature = Data([0x30, 0x45, 0x02, 0x20])

    let creations = Locked<[PasskeyCreationOptions]>([])
    let requests = Locked<[PasskeyRequestOptions]>([])

    func register(_ options: PasskeyCreationOptions) async throws -> PasskeyRegistration {
        creations.withLock { $0.append(options) }
        return PasskeyRegistration(credentialID: Self.credentialID, rawClientDataJSON: Self.clientData,
                                   rawAttestationObject: Self.attestationObject)
    }

    func authenticate(_ options: PasskeyRequestOptions) async throws -> PasskeyAssertion {
        requests.withLock { $0.append(options) }
        return PasskeyAssertion(credentialID: Self.credentialID, rawClientDataJSON: Self.clientData,
                                rawAuthenticatorData: Self.authenticatorData, signature: Self.signature,
                                userID: PasskeyTests.userHandle)
    }
}

extension Locked {
    fileprivate var value: Value { withLock { $0 } }
}

/// A server for one account, `uid-1`, with passkeys: it records each request's JSON body and keeps the passkeys
/// enrolled. `encode` writes the options' challenge and user handle (standard base64, as the emulator does, unless
/// told otherwise); `secondFactor` makes a passkey sign-in ask for one.
private final class PasskeyStubServer: AuthHTTPClient {
    let encode: @Sendable (Data) -> String
    let secondFactor: Bool
    private let bodies = Locked<[(method: String, body: [String: JSONValue])]>([])
    private let passkeys = Locked<[FlintWire.PasskeyInfo]>([])
    private let issuedTokens = Locked(0)

    init(encode: @escaping @Sendable (Data) -> String, secondFactor: Bool) {
        self.encode = encode
        self.secondFactor = secondFactor
    }

    /// The body of the last request to `method` (the last path component), if one was sent.
    func body(of method: String) -> [String: JSONValue]? {
        bodies.withLock { $0.last { $0.method == method }?.body }
    }

    func data(for request: URLRequest) async throws -> (Data, URLResponse) {
        let url = try #require(request.url)
        let method = url.lastPathComponent
        let body = request.httpBody.flatMap { try? JSONDecoder().decode(JSONValue.self, from: $0) }?.objectValue ?? [:]
        bodies.withLock { $0.append((method, body)) }
        let answer: any Encodable
        switch method {
        case "accounts:signUp":
            answer = SignInResponse(localId: StubHTTPClient.uid, idToken: newIDToken(), refreshToken: "refresh",
                                    expiresIn: "3600")
        case "accounts:lookup":
            var record = UserRecord(localId: StubHTTPClient.uid)
            record.passkeyInfo = passkeys.value
            answer = LookupResponse(users: [record])
        case "token":
            answer = SecureTokenResponse(idToken: newIDToken(), refreshToken: "refresh-after-passkey", expiresIn: "3600",
                                         userId: StubHTTPClient.uid, projectId: "demo-unit")
        case "passkeyEnrollment:start":
            answer = StartPasskeyEnrollmentResponse(credentialCreationOptions: [
                "rp": ["id": "example.com", "name": "example.com"],
                "user": ["id": .string(encode(PasskeyTests.userHandle)), "name": "user@example.com"],
                "challenge": .string(encode(PasskeyTests.challenge)),
            ])
        case "passkeyEnrollment:finalize":
            let registration = body["authenticatorRegistrationResponse"]?.objectValue
            passkeys.withLock { $0.append(FlintWire.PasskeyInfo(credentialId: registration?["id"]?.stringValue,
                                                                name: body["name"]?.stringValue)) }
            answer = PasskeyFinalizeResponse(localId: StubHTTPClient.uid, idToken: newIDToken(),
                                             refreshToken: "refresh-after-passkey")
        case "passkeySignIn:start":
            answer = StartPasskeySignInResponse(credentialRequestOptions: [
                "rpId": "example.com", "challenge": .string(encode(PasskeyTests.challenge)),
            ])
        case "passkeySignIn:finalize" where secondFactor:
            var response = PasskeyFinalizeResponse(localId: StubHTTPClient.uid)
            response.mfaPendingCredential = "pending"
            response.mfaInfo = [MFAEnrollment(mfaEnrollmentId: "totp-1", totpInfo: TOTPInfo())]
            answer = response
        case "passkeySignIn:finalize":
            answer = PasskeyFinalizeResponse(localId: StubHTTPClient.uid, idToken: newIDToken(), refreshToken: "refresh")
        case "accounts:update":
            let removed = Set(body["deletePasskey"]?.arrayValue?.compactMap(\.stringValue) ?? [])
            passkeys.withLock { $0.removeAll { removed.contains($0.credentialId ?? "") } }
            answer = UpdateAccountResponse(localId: StubHTTPClient.uid)
        default:
            throw URLError(.unsupportedURL)
        }
        let response = try #require(HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1",
                                                    headerFields: ["Content-Type": "application/json"]))
        return (try JSONEncoder().encode(answer), response)
    }

    private func newIDToken() -> String {
        "id-token-\(issuedTokens.withLock { $0 += 1; return $0 })"
    }
}

/// Runs `body` with the `Auth` of a new app that keeps its user in memory and talks to a `PasskeyStubServer`.
private func withPasskeyStub(encode: @escaping @Sendable (Data) -> String = { $0.base64EncodedString() },
                             secondFactor: Bool = false,
                             _ body: (Auth, PasskeyStubServer) async throws -> Void) async throws {
    let name = "flint-auth-passkeys-\(UUID().uuidString)"
    FirebaseApp.configure(name: name, options: FirebaseOptions(apiKey: "stub-key", projectID: "demo-unit",
                                                               serverURL: URL(string: "http://flint.test")))
    let app = try #require(FirebaseApp.app(name: name))
    let server = PasskeyStubServer(encode: encode, secondFactor: secondFactor)
    let auth = Auth(app: app, credentialStore: InMemoryCredentialStore(), httpClient: server)
    do {
        try await body(auth, server)
    } catch {
        await app.delete()
        throw error
    }
    await app.delete()
}
