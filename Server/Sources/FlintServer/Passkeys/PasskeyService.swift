import FlintWire
import Foundation

/// Passkeys (WebAuthn credentials): enrolling one on a signed-in account (`v2/accounts/passkeyEnrollment:*`), signing
/// in with one (`v2/accounts/passkeySignIn:*`), and removing them (`deletePasskey` on `accounts:update`).
///
/// Emulator mode takes a credential on its ID alone, as the official emulator does. Production mode refuses every
/// passkey request until its relying party verifies attestations and assertions (issue 33): accepting an unchecked
/// credential ID would let anyone who knows one sign in.
public struct PasskeyService: Sendable {
    let accounts: AccountStore
    let tokens: TokenService
    let pipeline: SignInPipeline
    let policy: ModePolicy
    let clock: any FlintClock
    let random: any RandomSource

    /// The name of a passkey enrolled without one, when the request has no display name either (the emulator's).
    static let unnamed = "Unnamed Passkey"
    /// The relying party of emulator mode's options (the emulator's).
    static let emulatorRelyingParty = "localhost"
    static let challengeByteCount = 32

    init(core: ServerCore, tokens: TokenService, pipeline: SignInPipeline) {
        accounts = core.store.accounts
        self.tokens = tokens
        self.pipeline = pipeline
        policy = core.policy
        clock = core.clock
        random = core.random
    }

    // MARK: Enrollment

    public func startEnrollment(_ request: StartPasskeyEnrollmentRequest, caller: Caller) async throws
        -> StartPasskeyEnrollmentResponse {
        try requireRelyingParty()
        guard let idToken = request.idToken, !idToken.isEmpty else { throw FlintError(.missingIDToken) }
        let user = try await tokens.verifyIDToken(idToken, projectID: caller.projectID).user
        let userHandle = Data(user.localID.utf8).base64EncodedString()
        return StartPasskeyEnrollmentResponse(credentialCreationOptions: [
            "rp": ["name": .string(Self.emulatorRelyingParty), "id": .string(Self.emulatorRelyingParty)],
            "user": [
                "id": .string(userHandle), "name": .string(user.email ?? "user@example.com"),
                "displayName": .string(user.displayName ?? "User"),
            ],
            "challenge": .string(challenge()),
            "pubKeyCredParams": [["type": "public-key", "alg": .number(-7)], ["type": "public-key", "alg": .number(-257)]],
            "timeout": .number(60000),
            "attestation": "none",
        ])
    }

    public func finalizeEnrollment(_ request: FinalizePasskeyEnrollmentRequest, caller: Caller) async throws
        -> PasskeyFinalizeResponse {
        try requireRelyingParty()
        guard let idToken = request.idToken, !idToken.isEmpty else { throw FlintError(.missingIDToken) }
        guard let response = request.authenticatorRegistrationResponse else { throw FlintError(.missingAuthenticatorResponse) }
        let credentialID = try Self.credentialID(of: response)
        let verified = try await tokens.verifyIDToken(idToken, projectID: caller.projectID)
        if try await accounts.user(projectID: caller.projectID, passkeyCredentialID: credentialID) != nil {
            throw FlintError(.credentialAlreadyInUse)
        }
        let passkey = Passkey(
            credentialID: credentialID, name: Self.name(request.name) ?? Self.name(request.displayName) ?? Self.unnamed,
            createdAt: clock.milliseconds)
        // Decided on the account as stored now, so a concurrent enrollment is not lost; the store's unique key
        // refuses a credential another account took meanwhile.
        let attempt = SignInPipeline.Attempt.reissue(for: verified) { current in
            AccountChange([.passkeys(current.passkeys + [passkey])])
        }
        let outcome = try await pipeline.signIn(verified.user.localID, projectID: caller.projectID, attempt)
        let issued = try outcome.tokens()
        return PasskeyFinalizeResponse(
            localId: outcome.user.localID, idToken: issued.idToken, refreshToken: issued.refreshToken)
    }

    // MARK: Sign-in

    public func startSignIn(_ request: StartPasskeySignInRequest, caller: Caller) async throws -> StartPasskeySignInResponse {
        try requireRelyingParty()
        return StartPasskeySignInResponse(credentialRequestOptions: [
            "challenge": .string(challenge()), "rpId": .string(Self.emulatorRelyingParty), "userVerification": "required",
        ])
    }

    public func finalizeSignIn(_ request: FinalizePasskeySignInRequest, caller: Caller) async throws -> PasskeyFinalizeResponse {
        try requireRelyingParty()
        guard let response = request.authenticatorAuthenticationResponse else { throw FlintError(.missingAuthenticatorResponse) }
        let credentialID = try Self.credentialID(of: response)
        guard let user = try await accounts.user(projectID: caller.projectID, passkeyCredentialID: credentialID) else {
            throw FlintError(.passkeyCredentialNotFound)
        }
        // A passkey with user verification is two factors in one: no second factor is asked after it.
        var attempt = SignInPipeline.Attempt(provider: ProviderID.passkey) { current in
            guard current.passkeys.contains(where: { $0.credentialID == credentialID }) else {
                throw FlintError(.passkeyCredentialNotFound)
            }
            return AccountChange()
        }
        attempt.asksSecondFactor = false
        let outcome = try await pipeline.signIn(user.localID, projectID: caller.projectID, attempt)
        let issued = try outcome.tokens()
        return PasskeyFinalizeResponse(localId: user.localID, idToken: issued.idToken, refreshToken: issued.refreshToken)
    }

    // MARK: Removal

    /// The change `deletePasskey` makes on `user`: the named credentials go; naming one the account lacks is no error.
    static func removing(_ credentialIDs: [String], from user: UserAccount) -> AccountChange {
        let removed = Set(credentialIDs)
        guard user.passkeys.contains(where: { removed.contains($0.credentialID) }) else { return AccountChange() }
        return AccountChange([.passkeys(user.passkeys.filter { !removed.contains($0.credentialID) })])
    }

    // MARK: Parts

    private func requireRelyingParty() throws {
        guard !policy.verifiesPasskeys else {
            throw FlintError(.operationNotAllowed, "Passkeys are not available in production mode yet.")
        }
    }

    /// A fresh challenge from the CSPRNG, base64 (the emulator's form).
    private func challenge() -> String {
        Data(random.bytes(Self.challengeByteCount)).base64EncodedString()
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
