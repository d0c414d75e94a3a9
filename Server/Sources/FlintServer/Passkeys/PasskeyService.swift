import Crypto
import FlintWire
import Foundation
import Logging

/// Passkeys (WebAuthn credentials): enrolling one on a signed-in account (`v2/accounts/passkeyEnrollment:*`), signing
/// in with one (`v2/accounts/passkeySignIn:*`), and removing them (`deletePasskey` on `accounts:update`).
///
/// Production mode is a WebAuthn relying party (`PasskeySettings`, `WebAuthnVerifier`): each ceremony answers a
/// challenge it issued (single use, five minutes, an enrollment's bound to its account), from an allowed origin, for
/// its RP ID, with the user verified, and a sign-in is signed by the enrolled key with a counter that moved on.
/// Emulator mode takes a credential on its ID alone, as the official emulator does.
public struct PasskeyService: Sendable {
    let accounts: AccountStore
    let challenges: CodeStore
    let budgets: BudgetLedger
    let tokens: TokenService
    let pipeline: SignInPipeline
    let policy: ModePolicy
    let clock: any FlintClock
    let random: any RandomSource
    let logger: Logger

    /// The name of a passkey enrolled without one, when the request has no display name either (the emulator's).
    static let unnamed = "Unnamed Passkey"
    /// The relying party of emulator mode's options (the emulator's).
    static let emulatorRelyingParty = "localhost"
    static let challengeByteCount = 32
    /// How long a challenge may be answered, and the ceremony timeout the options ask of the browser.
    static let challengeLifetimeMilliseconds: Int64 = 5 * 60 * 1000
    /// COSE algorithms offered, in order of preference: ES256, EdDSA, RS256.
    static let algorithms = [-7, -8, -257]

    init(core: ServerCore, tokens: TokenService, pipeline: SignInPipeline) {
        accounts = core.store.accounts
        challenges = core.store.codes
        budgets = core.budgets
        self.tokens = tokens
        self.pipeline = pipeline
        policy = core.policy
        clock = core.clock
        random = core.random
        logger = core.logger
    }

    // MARK: Enrollment

    public func startEnrollment(_ request: StartPasskeyEnrollmentRequest, caller: Caller) async throws
        -> StartPasskeyEnrollmentResponse {
        guard let idToken = request.idToken, !idToken.isEmpty else { throw FlintError(.missingIDToken) }
        let user = try await tokens.verifyIDToken(idToken, projectID: caller.projectID).user
        let userHandle = Data(user.localID.utf8).base64EncodedString()
        var options: [String: JSONValue] = [
            "user": [
                "id": .string(userHandle), "name": .string(user.email ?? user.phoneNumber ?? "user@example.com"),
                "displayName": .string(user.displayName ?? "User"),
            ],
            "attestation": "none",
        ]
        guard policy.verifiesPasskeys else {
            options["rp"] = ["name": .string(Self.emulatorRelyingParty), "id": .string(Self.emulatorRelyingParty)]
            options["challenge"] = .string(Data(random.bytes(Self.challengeByteCount)).base64EncodedString())
            options["pubKeyCredParams"] = .array([-7, -257].map { ["type": "public-key", "alg": .number(Double($0))] })
            options["timeout"] = .number(60000)
            return StartPasskeyEnrollmentResponse(credentialCreationOptions: .object(options))
        }
        let party = try relyingParty(caller)
        let challenge = try await issueChallenge(.enrollment, localID: user.localID, caller: caller)
        options["rp"] = ["name": .string(party.id), "id": .string(party.id)]
        options["challenge"] = .string(challenge.base64EncodedString())
        options["pubKeyCredParams"] = .array(Self.algorithms.map { ["type": "public-key", "alg": .number(Double($0))] })
        options["timeout"] = .number(Double(Self.challengeLifetimeMilliseconds))
        // A passkey: discoverable (so sign-in needs no user name) and verified; never a second one on one authenticator.
        options["authenticatorSelection"] = [
            "residentKey": "required", "requireResidentKey": true, "userVerification": "required",
        ]
        options["excludeCredentials"] = .array(user.passkeys.map { ["type": "public-key", "id": .string($0.credentialID)] })
        return StartPasskeyEnrollmentResponse(credentialCreationOptions: .object(options))
    }

    public func finalizeEnrollment(_ request: FinalizePasskeyEnrollmentRequest, caller: Caller) async throws
        -> PasskeyFinalizeResponse {
        guard let idToken = request.idToken, !idToken.isEmpty else { throw FlintError(.missingIDToken) }
        guard let response = request.authenticatorRegistrationResponse else { throw FlintError(.missingAuthenticatorResponse) }
        var credentialID = try Self.credentialID(of: response)
        let verified = try await tokens.verifyIDToken(idToken, projectID: caller.projectID)
        var passkey = Passkey(
            credentialID: credentialID, name: Self.name(request.name) ?? Self.name(request.displayName) ?? Self.unnamed,
            createdAt: clock.milliseconds)
        if policy.verifiesPasskeys {
            try tokens.requireRecentSignIn(verified, toChangeCredentialsOf: verified.user)
            let answer = try AuthenticatorAnswer(response, parts: ["clientDataJSON", "attestationObject"])
            let expected = try await takeChallenge(.enrollment, answering: answer, caller: caller)
            guard expected.localID == verified.user.localID else { throw Self.refused("The challenge was issued to another account.") }
            let credential: WebAuthnCredential
            do {
                credential = try WebAuthnVerifier.verifyRegistration(
                    clientDataJSON: answer.clientDataJSON, attestationObject: answer.part("attestationObject"),
                    expecting: expected.expectation)
            } catch { throw Self.refused(error.message) }
            guard credential.credentialID == answer.credentialID else {
                throw Self.refused("The response's id is not the credential the authenticator attested.")
            }
            // Kept in one spelling (base64url), however the SDK encoded it, so sign-ins find it.
            credentialID = Base64URL.encode(credential.credentialID)
            passkey.credentialID = credentialID
            passkey.publicKey = Base64URL.encode(credential.publicKey)
            passkey.algorithm = credential.algorithm
            passkey.signCount = Int64(credential.signCount)
        }
        if try await accounts.user(projectID: caller.projectID, passkeyCredentialID: credentialID) != nil {
            throw FlintError(.credentialAlreadyInUse)
        }
        // Decided on the account as stored now, so a concurrent enrollment is not lost; the store's unique key
        // refuses a credential another account took meanwhile.
        let enrolled = passkey
        let attempt = SignInPipeline.Attempt.reissue(for: verified) { current in
            AccountChange([.passkeys(current.passkeys + [enrolled])])
        }
        let outcome = try await pipeline.signIn(verified.user.localID, projectID: caller.projectID, attempt)
        var answer = PasskeyFinalizeResponse(localId: outcome.user.localID)
        outcome.fill(&answer)
        return answer
    }

    // MARK: Sign-in

    public func startSignIn(_ request: StartPasskeySignInRequest, caller: Caller) async throws -> StartPasskeySignInResponse {
        guard policy.verifiesPasskeys else {
            return StartPasskeySignInResponse(credentialRequestOptions: [
                "challenge": .string(Data(random.bytes(Self.challengeByteCount)).base64EncodedString()),
                "rpId": .string(Self.emulatorRelyingParty), "userVerification": "required",
            ])
        }
        let party = try relyingParty(caller)
        if let client = caller.clientLimitKey { try await budgets.spend(.passkeyChallengesPerClient, in: caller.projectID, for: client) }
        let challenge = try await issueChallenge(.signIn, localID: nil, caller: caller)
        // No allowCredentials: any of the realm's passkeys may answer (discoverable credentials).
        return StartPasskeySignInResponse(credentialRequestOptions: [
            "challenge": .string(challenge.base64EncodedString()), "rpId": .string(party.id),
            "userVerification": "required", "timeout": .number(Double(Self.challengeLifetimeMilliseconds)),
        ])
    }

    public func finalizeSignIn(_ request: FinalizePasskeySignInRequest, caller: Caller) async throws -> PasskeyFinalizeResponse {
        guard let response = request.authenticatorAuthenticationResponse else { throw FlintError(.missingAuthenticatorResponse) }
        var credentialID = try Self.credentialID(of: response)
        var answer: AuthenticatorAnswer?
        var check: (@Sendable (Passkey) throws -> Passkey)?
        if policy.verifiesPasskeys {
            let verifying = try AuthenticatorAnswer(response, parts: ["clientDataJSON", "authenticatorData", "signature"])
            let expected = try await takeChallenge(.signIn, answering: verifying, caller: caller)
            credentialID = Base64URL.encode(verifying.credentialID)
            check = { [logger, clock] stored in
                try Self.verifyAssertion(verifying, by: stored, expecting: expected.expectation, logger: logger, now: clock.milliseconds)
            }
            answer = verifying
        }
        guard let user = try await accounts.user(projectID: caller.projectID, passkeyCredentialID: credentialID) else {
            throw FlintError(.passkeyCredentialNotFound)
        }
        // Sign-in asks with no allowCredentials (discoverable credentials), so WebAuthn (Level 2, §7.2 step 6) requires
        // the user handle, and it must be the uid the credential was made for. The emulator keeps its own rule.
        if let answer {
            guard let handle = answer.userHandle else { throw Self.refused("The assertion has no user handle.") }
            guard handle == Array(user.localID.utf8) else {
                throw Self.refused("The user handle is not the credential's account.")
            }
        }
        // Checked again, and the counter moved on, on the account as stored now: of two sign-ins racing with one
        // assertion (or a cloned key), only the first finds the counter where it left it.
        var attempt = SignInPipeline.Attempt(provider: ProviderID.passkey) { [check, credentialID] current in
            guard let index = current.passkeys.firstIndex(where: { $0.credentialID == credentialID }) else {
                throw FlintError(.passkeyCredentialNotFound)
            }
            guard let check else { return AccountChange() }
            var passkeys = current.passkeys
            passkeys[index] = try check(passkeys[index])
            return AccountChange([.passkeys(passkeys)])
        }
        // The emulator signs in without asking an enrolled second factor; production asks it, as any first factor.
        attempt.asksSecondFactor = policy.verifiesPasskeys
        let outcome = try await pipeline.signIn(user.localID, projectID: caller.projectID, attempt)
        var signedIn = PasskeyFinalizeResponse(localId: user.localID)
        outcome.fill(&signedIn)
        return signedIn
    }

    // MARK: Removal

    /// The change `deletePasskey` makes on `user`: the named credentials go; naming one the account lacks is no error.
    static func removing(_ credentialIDs: [String], from user: UserAccount) -> AccountChange {
        let removed = Set(credentialIDs)
        guard user.passkeys.contains(where: { removed.contains($0.credentialID) }) else { return AccountChange() }
        return AccountChange([.passkeys(user.passkeys.filter { !removed.contains($0.credentialID) })])
    }

    // MARK: Parts

    private func relyingParty(_ caller: Caller) throws -> RelyingParty {
        guard let party = RelyingParty(caller.project.settings) else {
            throw FlintError(.operationNotAllowed, "Passkeys are not set up: give the project a passkeyConfig with its rpId.")
        }
        return party
    }

    /// A fresh challenge from the CSPRNG, stored by its hash for `ceremony`.
    private func issueChallenge(_ ceremony: PasskeyChallengeRecord.Ceremony, localID: String?, caller: Caller) async throws -> Data {
        let challenge = random.bytes(Self.challengeByteCount)
        try await challenges.insertPasskeyChallenge(PasskeyChallengeRecord(
            challengeHash: Self.hash(challenge), projectID: caller.projectID, ceremony: ceremony, localID: localID,
            expiresAt: clock.milliseconds + Self.challengeLifetimeMilliseconds))
        return Data(challenge)
    }

    /// A challenge taken for one ceremony, with what its answer must show.
    private struct TakenChallenge {
        let localID: String?
        let expectation: WebAuthnExpectation
    }

    /// Takes the challenge `answer`'s client data names: issued by this realm for `ceremony`, not yet answered and not
    /// expired. Taken whatever follows, so an answer is never checked twice.
    private func takeChallenge(_ ceremony: PasskeyChallengeRecord.Ceremony, answering answer: AuthenticatorAnswer,
                               caller: Caller) async throws -> TakenChallenge {
        let party = try relyingParty(caller)
        guard let challenge = answer.challenge,
              let record = try await challenges.takePasskeyChallenge(challengeHash: Self.hash(challenge), projectID: caller.projectID),
              record.ceremony == ceremony, record.expiresAt > clock.milliseconds
        else { throw Self.refused("The challenge is unknown, already answered or expired.") }
        return TakenChallenge(localID: record.localID, expectation: WebAuthnExpectation(
            challenge: challenge, relyingPartyID: party.id, origins: party.origins, requiresUserVerification: true))
    }

    /// Verifies an assertion by the stored `passkey`; returns it with the new counter and time of use.
    private static func verifyAssertion(_ answer: AuthenticatorAnswer, by passkey: Passkey, expecting: WebAuthnExpectation,
                                        logger: Logger, now: Int64) throws -> Passkey {
        guard let publicKey = passkey.publicKey.flatMap({ Base64URL.decode($0) }), let algorithm = passkey.algorithm else {
            throw refused("The passkey was enrolled without a verified key; enrol it again.")
        }
        let stored = WebAuthnCredential(
            credentialID: answer.credentialID, publicKey: Array(publicKey), algorithm: algorithm,
            signCount: UInt32(clamping: passkey.signCount), aaguid: [], attestationFormat: "none", backupEligible: false,
            backedUp: false)
        do {
            let counter = try WebAuthnVerifier.verifyAssertion(
                clientDataJSON: answer.clientDataJSON, authenticatorData: answer.part("authenticatorData"),
                signature: answer.part("signature"), credential: stored, expecting: expecting)
            var used = passkey
            used.signCount = Int64(counter)
            used.lastUsedAt = now
            return used
        } catch {
            if case .signCountWentBack(let before, let after) = error {
                // A counter that goes back means two authenticators hold the key: one of them is a copy.
                logger.warning("passkey signature counter went back: possible cloned authenticator", metadata: [
                    "credential": .string(passkey.credentialID), "stored": .stringConvertible(before),
                    "received": .stringConvertible(after),
                ])
            }
            throw refused(error.message)
        }
    }

    static func refused(_ detail: String) -> FlintError { FlintError(.invalidAuthenticatorResponse, detail) }

    static func hash(_ bytes: some Sequence<UInt8>) -> String {
        Hex.encode(SHA256.hash(data: Array(bytes)))
    }

    /// The `id` of a WebAuthn response object.
    private static func credentialID(of response: JSONValue) throws -> String {
        guard let id = response.objectValue?["id"]?.stringValue, !id.isEmpty else { throw FlintError(.invalidCredentialID) }
        return id
    }

    private static func name(_ text: String?) -> String? {
        guard let text, !text.isEmpty else { return nil }
        return text
    }
}

/// A WebAuthn response as the SDKs send it (`RegistrationResponseJSON`, `AuthenticationResponseJSON`): `id` and the
/// binary parts of `response`, in base64url (the web's form) or base64.
struct AuthenticatorAnswer: Sendable {
    let credentialID: [UInt8]
    let clientDataJSON: [UInt8]
    /// The client data's challenge, if it has one that decodes.
    let challenge: [UInt8]?
    let userHandle: [UInt8]?
    private let parts: [String: [UInt8]]

    init(_ response: JSONValue, parts names: [String]) throws {
        guard let id = response.objectValue?["id"]?.stringValue, let credentialID = Self.binary(id) else {
            throw FlintError(.invalidCredentialID)
        }
        guard let fields = response.objectValue?["response"]?.objectValue else {
            throw PasskeyService.refused("The response has no response object.")
        }
        var parts: [String: [UInt8]] = [:]
        for name in names {
            guard let text = fields[name]?.stringValue, let bytes = Self.binary(text) else {
                throw PasskeyService.refused("response.\(name) is missing or not base64url.")
            }
            parts[name] = bytes
        }
        self.credentialID = credentialID
        self.parts = parts
        clientDataJSON = parts["clientDataJSON"] ?? []
        userHandle = fields["userHandle"]?.stringValue.flatMap { $0.isEmpty ? nil : Self.binary($0) }
        let clientData = try? JSONDecoder().decode([String: JSONValue].self, from: Data(clientDataJSON))
        challenge = clientData?["challenge"]?.stringValue.flatMap { Base64URL.decode($0) }.map(Array.init)
    }

    func part(_ name: String) -> [UInt8] { parts[name] ?? [] }

    /// Base64url without padding, or base64 (which some SDKs send).
    private static func binary(_ text: String) -> [UInt8]? {
        if let bytes = Base64URL.decode(text) { return Array(bytes) }
        return Data(base64Encoded: text).map(Array.init)
    }
}
