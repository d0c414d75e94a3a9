import Crypto
import FlintWire
import Foundation

/// What the relying party expects of one ceremony.
struct WebAuthnExpectation: Sendable {
    /// The raw challenge bytes the server issued.
    var challenge: [UInt8]
    /// E.g. "example.com": `authenticatorData.rpIdHash` must be its SHA-256.
    var relyingPartyID: String
    /// The allowed `clientDataJSON.origin`s, matched exactly, e.g. "https://example.com".
    var origins: Set<String>
    /// Whether the authenticator must have verified the user (flag UV); true in production.
    var requiresUserVerification: Bool
}

/// A verified, newly registered credential, as the server stores it.
struct WebAuthnCredential: Codable, Sendable, Equatable {
    var credentialID: [UInt8]
    /// The COSE_Key bytes exactly as in the attested credential data.
    var publicKey: [UInt8]
    /// The COSE algorithm: -7, -257 or -8.
    var algorithm: Int
    var signCount: UInt32
    var aaguid: [UInt8]
    /// "none" or "packed".
    var attestationFormat: String
    var backupEligible: Bool
    var backedUp: Bool
}

/// A WebAuthn relying party's checks of registrations (WebAuthn Level 3 §7.1) and assertions (§7.2), on the bytes
/// the browser returned. Pure: the caller finds the challenge, the relying party and the stored credential, and
/// stores what comes back.
///
/// Not done, by design: attestation trust (a `packed` certificate chain is not checked against any root, as this
/// relying party asks for `none` and takes no decision on an authenticator's make), token binding (refused when a
/// client says it is in use), and extensions (read for well-formedness, not acted on).
enum WebAuthnVerifier {
    /// The largest clientDataJSON read; browsers send a few hundred bytes.
    static let maximumClientDataSize = 64 * 1024

    static func verifyRegistration(clientDataJSON: [UInt8], attestationObject: [UInt8], expecting: WebAuthnExpectation)
        throws(WebAuthnError) -> WebAuthnCredential {
        try checkClientData(clientDataJSON, type: "webauthn.create", expecting: expecting)
        let object: CBORValue
        do { object = try CBORDecoder.decode(attestationObject) } catch {
            throw .malformed("the attestation object is not valid CBOR: \(error.reason)")
        }
        guard case .map(let entries) = object, entries.count == 3, let format = object["fmt"]?.textValue,
              let authenticatorBytes = object["authData"]?.bytesValue, let statement = object["attStmt"], case .map = statement
        else {
            throw .malformed("the attestation object must be a map of exactly fmt (text), authData (bytes) and attStmt (map)")
        }
        let authenticatorData = try AuthenticatorData(authenticatorBytes)
        try checkAuthenticatorData(authenticatorData, expecting: expecting)
        guard let attested = authenticatorData.attestedCredential else { throw .missingAttestedCredential }
        try Attestation.verify(
            format: format, statement: statement, signedData: authenticatorBytes + SHA256.hash(data: clientDataJSON),
            credential: attested)
        return WebAuthnCredential(
            credentialID: attested.credentialID, publicKey: attested.publicKeyBytes,
            algorithm: attested.publicKey.algorithm.rawValue, signCount: authenticatorData.signCount, aaguid: attested.aaguid,
            attestationFormat: format, backupEligible: authenticatorData.flags.backupEligible,
            backedUp: authenticatorData.flags.backedUp)
    }

    /// Returns the authenticator's new signature counter. `credential` is what verifyRegistration returned (as stored).
    static func verifyAssertion(clientDataJSON: [UInt8], authenticatorData: [UInt8], signature: [UInt8],
                                credential: WebAuthnCredential, expecting: WebAuthnExpectation)
        throws(WebAuthnError) -> UInt32 {
        try checkClientData(clientDataJSON, type: "webauthn.get", expecting: expecting)
        let data = try AuthenticatorData(authenticatorData)
        guard data.attestedCredential == nil else {
            throw .malformed("an assertion's authenticator data carries attested credential data (AT)")
        }
        try checkAuthenticatorData(data, expecting: expecting)
        let algorithm = try COSEAlgorithm.supported(Int64(credential.algorithm))
        let key = try COSEKey(bytes: credential.publicKey)
        guard key.algorithm == algorithm else { throw .malformed("the stored credential's algorithm is not its key's") }
        guard key.key.isValidSignature(signature, for: authenticatorData + SHA256.hash(data: clientDataJSON)) else {
            throw .signatureInvalid
        }
        // Authenticators that keep no counter send 0 every time; one that does must move it forward. Checked after the
        // signature, so only a counter the authenticator signed can raise the alarm.
        let received = data.signCount
        if received != 0 || credential.signCount != 0, received <= credential.signCount {
            throw .signCountWentBack(stored: credential.signCount, received: received)
        }
        return received
    }

    /// clientDataJSON as the browser collected it (WebAuthn §5.8.1); other members (`topOrigin`, vendors') ignored.
    private struct CollectedClientData: Decodable {
        struct TokenBinding: Decodable {
            let status: String
        }

        let type: String
        let challenge: String
        let origin: String
        let crossOrigin: Bool?
        let tokenBinding: TokenBinding?
    }

    /// §7.1 steps 5–10 and §7.2 steps 9–14: the ceremony's type, the challenge issued, an allowed origin, same-origin.
    private static func checkClientData(_ json: [UInt8], type: String, expecting: WebAuthnExpectation) throws(WebAuthnError) {
        guard json.count <= maximumClientDataSize else { throw .malformed("clientDataJSON is longer than 64 KiB") }
        let clientData: CollectedClientData
        do { clientData = try JSONDecoder().decode(CollectedClientData.self, from: Data(json)) } catch {
            throw .malformed("clientDataJSON is not a JSON object with string type, challenge and origin")
        }
        guard clientData.type == type else { throw .wrongCeremonyType }
        guard let challenge = Base64URL.decode(clientData.challenge) else {
            throw .malformed("clientDataJSON's challenge is not unpadded base64url")
        }
        guard constantTimeEquals(challenge, Data(expecting.challenge)) else { throw .challengeMismatch }
        guard expecting.origins.contains(clientData.origin) else {
            throw .originNotAllowed(WebAuthnError.clipped(clientData.origin))
        }
        guard clientData.crossOrigin != true else { throw .crossOriginNotAllowed }
        guard clientData.tokenBinding?.status != "present" else { throw .tokenBindingNotSupported }
    }

    /// §7.1 steps 13–15, §7.2 steps 15–17: the relying party's ID hash, user presence and, when asked, verification.
    private static func checkAuthenticatorData(_ data: AuthenticatorData, expecting: WebAuthnExpectation)
        throws(WebAuthnError) {
        let expectedHash = Data(SHA256.hash(data: Array(expecting.relyingPartyID.utf8)))
        guard constantTimeEquals(Data(data.rpIDHash), expectedHash) else { throw .relyingPartyMismatch }
        guard data.flags.userPresent else { throw .userNotPresent }
        guard data.flags.userVerified || !expecting.requiresUserVerification else { throw .userNotVerified }
    }
}
