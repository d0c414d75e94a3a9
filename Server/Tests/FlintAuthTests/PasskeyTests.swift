@testable import FlintAuth
import Crypto
import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
import Testing

/// Passkeys through the SDK against a live server, with the software authenticator of FlintTestSupport: enrolling,
/// listing, signing in, removing, and the errors of each.
///
/// Every test takes the server it runs against as a `PasskeyServer`; a mode whose relying party verifies the
/// authenticator's answers is another case with its own configuration.
@Suite struct PasskeyTests {
    enum PasskeyServer: CaseIterable, CustomStringConvertible {
        /// Emulator mode: credentials are taken on their ID, as the official emulator takes them.
        case emulator

        var description: String {
            switch self {
            case .emulator: "emulator mode"
            }
        }

        /// Runs `body` against a fresh server of this kind, with an authenticator whose origin it accepts.
        func run(_ body: (Harness, SoftwareAuthenticator) async throws -> Void) async throws {
            switch self {
            case .emulator:
                try await withHarness(emulator: true) { harness in
                    try await body(harness, SoftwareAuthenticator())
                }
            }
        }
    }

    @Test(arguments: PasskeyServer.allCases)
    func enrollSignInAndUnenroll(server: PasskeyServer) async throws {
        try await server.run { harness, authenticator in
            let auth = harness.auth
            let user = try await auth.createUser(withEmail: Harness.email("passkey"), password: "correct horse").user
            #expect(user.enrolledPasskeys?.isEmpty == true)

            let enrollment = try await user.enrollPasskey(withName: "Laptop", authenticator: authenticator)
            #expect(enrollment.user === user)
            let credential = try #require(authenticator.credentials.last)
            #expect(credential.userHandle == Data(user.uid.utf8))
            let passkeys = try #require(user.enrolledPasskeys)
            #expect(passkeys.map(\.name) == ["Laptop"])
            // FlintAuth sends the credential ID in standard base64, as FirebaseAuth does; the server may keep it so or
            // in base64url.
            #expect(passkeys.map { $0.credentialID.flatMap(AuthBackend.bytes(base64OrBase64URL:)) } == [credential.id])

            try auth.signOut()
            let signIn = try await auth.signInWithPasskey(authenticator: authenticator)
            #expect(signIn.user.uid == user.uid)
            #expect(auth.currentUser === signIn.user)
            #expect(signIn.user.enrolledPasskeys?.map(\.name) == ["Laptop"])
            #expect(authenticator.credentials.last?.signCount == 1)
            _ = try await signIn.user.getIDToken(forcingRefresh: true)

            let credentialID = try #require(signIn.user.enrolledPasskeys?.first?.credentialID)
            try await signIn.user.unenrollPasskey(withCredentialID: credentialID)
            #expect(signIn.user.enrolledPasskeys?.isEmpty == true)

            try auth.signOut()
            await expectAuthError(.missingPasskeyEnrollment) {
                try await auth.signInWithPasskey(authenticator: authenticator)
            }
            #expect(auth.currentUser == nil)
        }
    }

    @Test(arguments: PasskeyServer.allCases)
    func anAnonymousUserKeepsItsAccountThroughAPasskey(server: PasskeyServer) async throws {
        try await server.run { harness, authenticator in
            let auth = harness.auth
            let user = try await auth.signInAnonymously().user
            try await user.enrollPasskey(withName: nil, authenticator: authenticator)
            #expect(user.enrolledPasskeys?.map(\.name) == ["Unnamed account (Apple)"])

            try auth.signOut()
            let result = try await auth.signInWithPasskey(authenticator: authenticator)
            #expect(result.user.uid == user.uid)
        }
    }

    /// The same registration offered to a second account. Emulator mode only: it takes a registration on its
    /// credential ID, whatever challenge it signed.
    @Test func aPasskeyEnrollsOnOneAccountOnly() async throws {
        try await PasskeyServer.emulator.run { harness, authenticator in
            let first = try await harness.auth.signInAnonymously().user
            let registration = try authenticator.register(relyingPartyID: "localhost", challenge: Data(count: 32),
                                                          userHandle: Data(first.uid.utf8))
            let sameRegistration = FixedRegistration(registration: PasskeyRegistration(
                credentialID: registration.credentialID, rawClientDataJSON: registration.clientDataJSON,
                rawAttestationObject: registration.attestationObject))
            try await first.enrollPasskey(withName: "Phone", authenticator: sameRegistration)

            let other = harness.makeAuth(store: InMemoryCredentialStore())
            let second = try await other.createUser(withEmail: Harness.email("second"), password: "correct horse").user
            await expectAuthError(.credentialAlreadyInUse) {
                try await second.enrollPasskey(withName: "Phone", authenticator: sameRegistration)
            }
            #expect(second.enrolledPasskeys?.isEmpty == true)
        }
    }

    @Test(arguments: PasskeyServer.allCases)
    func aDeletedAccountsPasskeySignsNobodyIn(server: PasskeyServer) async throws {
        try await server.run { harness, authenticator in
            let user = try await harness.auth.signInAnonymously().user
            try await user.enrollPasskey(withName: "Phone", authenticator: authenticator)
            try await user.delete()
            await expectAuthError(.missingPasskeyEnrollment) {
                try await harness.auth.signInWithPasskey(authenticator: authenticator)
            }
        }
    }

    // MARK: The software authenticator's bytes

    @Test func theSoftwareAuthenticatorRegistersAsABrowserDoes() throws {
        let authenticator = SoftwareAuthenticator(origin: "https://example.com")
        let challenge = Data((0..<32).map { UInt8($0) })
        let registration = try authenticator.register(relyingPartyID: "example.com", challenge: challenge,
                                                      userHandle: Data("uid-1".utf8))
        let challengeText = SoftwareAuthenticator.base64URL(challenge)
        #expect(String(decoding: registration.clientDataJSON, as: UTF8.self)
            == #"{"type":"webauthn.create","challenge":"\#(challengeText)","origin":"https://example.com","crossOrigin":false}"#)

        let key = try #require(authenticator.credentials.last?.privateKey.publicKey)
        let authData = [UInt8](registration.authenticatorData)
        #expect(Data(authData[0..<32]) == Data(SHA256.hash(data: Data("example.com".utf8))))
        #expect(authData[32] == 0x45)  // UP | UV | AT
        #expect(authData[33..<37] == [0, 0, 0, 0])
        #expect(authData[37..<53] == ArraySlice(repeating: 0, count: 16))
        #expect(authData[53..<55] == [0, 20])
        #expect(Data(authData[55..<75]) == registration.credentialID)
        let cose: [UInt8] = [0xA5, 0x01, 0x02, 0x03, 0x26, 0x20, 0x01, 0x21, 0x58, 0x20] + key.rawRepresentation.prefix(32)
            + [0x22, 0x58, 0x20] + key.rawRepresentation.suffix(32)
        #expect(Array(authData[75...]) == cose)

        // {"fmt": "none", "attStmt": {}, "authData": h'…'}
        let prefix: [UInt8] = [0xA3, 0x63] + Array("fmt".utf8) + [0x64] + Array("none".utf8) + [0x67] + Array("attStmt".utf8)
            + [0xA0, 0x68] + Array("authData".utf8) + [0x58, UInt8(authData.count)]
        #expect([UInt8](registration.attestationObject) == prefix + authData)
    }

    @Test func packedSelfAttestationIsSignedByTheNewKey() throws {
        let authenticator = SoftwareAuthenticator(attestation: .packedSelf, backupEligible: true, backedUp: true)
        let registration = try authenticator.register(relyingPartyID: "example.com", challenge: Data(count: 32),
                                                      userHandle: Data("uid-1".utf8))
        #expect(registration.authenticatorData[32] == 0x5D)  // UP | UV | BE | BS | AT
        let object = [UInt8](registration.attestationObject)
        let statementStart = 1 + 4 + 7 + 8  // map head, "fmt", "packed", "attStmt"
        #expect(Array(object[1..<statementStart]) == [0x63] + Array("fmt".utf8) + [0x66] + Array("packed".utf8)
            + [0x67] + Array("attStmt".utf8))
        // {"alg": -7, "sig": h'<DER>'}
        #expect(Array(object[statementStart..<(statementStart + 7)]) == [0xA2, 0x63] + Array("alg".utf8) + [0x26, 0x63])
        let signatureLength = Int(object[statementStart + 11])
        let der = Data(object[(statementStart + 12)..<(statementStart + 12 + signatureLength)])
        let key = try #require(authenticator.credentials.last?.privateKey.publicKey)
        let signed = registration.authenticatorData + Data(SHA256.hash(data: registration.clientDataJSON))
        #expect(key.isValidSignature(try P256.Signing.ECDSASignature(derRepresentation: der), for: signed))
    }

    @Test func theSoftwareAuthenticatorsAssertionsAndTheirTampering() throws {
        let authenticator = SoftwareAuthenticator()
        let handle = Data("uid-1".utf8)
        _ = try authenticator.register(relyingPartyID: "example.com", challenge: Data(count: 32), userHandle: handle)
        let key = try #require(authenticator.credentials.last?.privateKey.publicKey)
        let options: JSONValue = ["rpId": "example.com", "challenge": .string(Data(repeating: 9, count: 32).base64EncodedString())]

        let first = try authenticator.authenticate(requestOptions: options)
        let second = try authenticator.authenticate(requestOptions: options)
        #expect(first.userHandle == handle)
        #expect(String(decoding: first.clientDataJSON, as: UTF8.self).contains(#""origin":"https://example.com""#))
        #expect(first.authenticatorData.count == 37)
        #expect(first.authenticatorData[32] == 0x05)  // UP | UV
        #expect([UInt8](first.authenticatorData.suffix(4)) == [0, 0, 0, 1])
        #expect([UInt8](second.authenticatorData.suffix(4)) == [0, 0, 0, 2])
        let signed = second.authenticatorData + Data(SHA256.hash(data: second.clientDataJSON))
        #expect(key.isValidSignature(try P256.Signing.ECDSASignature(derRepresentation: second.signature), for: signed))
        #expect(try authenticator.replayLastAssertion().signature == second.signature)

        let hostile = try authenticator.authenticate(requestOptions: options, tampering: SoftwareAuthenticator.Tampering(
            origin: "https://evil.example", relyingPartyIDHash: Data(repeating: 1, count: 32), userVerified: false,
            signCount: 0))
        #expect(String(decoding: hostile.clientDataJSON, as: UTF8.self).contains(#""origin":"https://evil.example""#))
        #expect(hostile.authenticatorData.prefix(32) == Data(repeating: 1, count: 32))
        #expect(hostile.authenticatorData[32] == 0x01)
        #expect([UInt8](hostile.authenticatorData.suffix(4)) == [0, 0, 0, 0])
        #expect(throws: SoftwareAuthenticator.Failure.self) {
            try authenticator.authenticate(relyingPartyID: "other.example", challenge: Data(count: 32))
        }

        let json = second.json().objectValue
        #expect(json?["id"]?.stringValue == SoftwareAuthenticator.base64URL(second.credentialID))
        #expect(json?["type"] == "public-key")
        #expect(second.json(.firebaseIOS).objectValue?["response"]?.objectValue?["userHandle"]?.stringValue
            == handle.base64EncodedString())
    }

    #if !canImport(AuthenticationServices)
    /// FirebaseAuth's steps, with the credentials the system would hand the app's delegate made from the software
    /// authenticator's bytes (FlintAuth's stand-ins for AuthenticationServices).
    @Test(arguments: PasskeyServer.allCases)
    func firebasesStepsWithThePlatformsTypes(server: PasskeyServer) async throws {
        try await server.run { harness, authenticator in
            let auth = harness.auth
            let user = try await auth.signInAnonymously().user
            let request = try await user.startPasskeyEnrollment(withName: "Work phone")
            #expect(request.name == "Work phone")
            let registration = try authenticator.register(relyingPartyID: request.relyingPartyIdentifier,
                                                          challenge: request.challenge, userHandle: request.userID)
            try await user.finalizePasskeyEnrollment(withPlatformCredential: ASAuthorizationPlatformPublicKeyCredentialRegistration(
                credentialID: registration.credentialID, rawClientDataJSON: registration.clientDataJSON,
                rawAttestationObject: registration.attestationObject))
            #expect(user.enrolledPasskeys?.map(\.name) == ["Work phone"])

            try auth.signOut()
            let assertionRequest = try await auth.startPasskeySignIn()
            let assertion = try authenticator.authenticate(relyingPartyID: assertionRequest.relyingPartyIdentifier,
                                                           challenge: assertionRequest.challenge)
            let result = try await auth.finalizePasskeySignIn(withPlatformCredential: ASAuthorizationPlatformPublicKeyCredentialAssertion(
                credentialID: assertion.credentialID, rawClientDataJSON: assertion.clientDataJSON,
                rawAuthenticatorData: assertion.authenticatorData, signature: assertion.signature,
                userID: assertion.userHandle))
            #expect(result.user.uid == user.uid)
        }
    }
    #endif
}

/// The software authenticator as FlintAuth's authenticator.
extension SoftwareAuthenticator: PasskeyAuthenticator {
    public func register(_ options: PasskeyCreationOptions) async throws -> PasskeyRegistration {
        let registration = try register(relyingPartyID: options.relyingPartyIdentifier, challenge: options.challenge,
                                        userHandle: options.userID)
        return PasskeyRegistration(credentialID: registration.credentialID, rawClientDataJSON: registration.clientDataJSON,
                                   rawAttestationObject: registration.attestationObject)
    }

    public func authenticate(_ options: PasskeyRequestOptions) async throws -> PasskeyAssertion {
        let assertion = try authenticate(relyingPartyID: options.relyingPartyIdentifier, challenge: options.challenge)
        return PasskeyAssertion(credentialID: assertion.credentialID, rawClientDataJSON: assertion.clientDataJSON,
                                rawAuthenticatorData: assertion.authenticatorData, signature: assertion.signature,
                                userID: assertion.userHandle)
    }
}

/// An authenticator whose every registration is the same one.
private struct FixedRegistration: PasskeyAuthenticator {
    let registration: PasskeyRegistration

    func register(_ options: PasskeyCreationOptions) async throws -> PasskeyRegistration {
        registration
    }

    func authenticate(_ options: PasskeyRequestOptions) async throws -> PasskeyAssertion {
        throw CancellationError()
    }
}
