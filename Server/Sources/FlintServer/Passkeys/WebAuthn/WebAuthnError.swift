/// Why a WebAuthn response was refused. `message` is a short sentence for the error's detail: it names what failed,
/// never a secret (no challenge, no key), and echoes at most a clipped origin or format name.
enum WebAuthnError: Error, Equatable, Sendable {
    /// Not well-formed: bad CBOR or JSON, a wrong type or size, trailing bytes, a limit exceeded. Says where.
    case malformed(String)
    /// `clientDataJSON.type` is not the ceremony's (`webauthn.create` or `webauthn.get`).
    case wrongCeremonyType
    /// `clientDataJSON.challenge` is not the challenge the server issued.
    case challengeMismatch
    /// `clientDataJSON.origin` is not one of the relying party's origins (the origin, clipped).
    case originNotAllowed(String)
    /// `clientDataJSON.crossOrigin` is true: the ceremony ran in a cross-origin iframe.
    case crossOriginNotAllowed
    /// `clientDataJSON.tokenBinding.status` is `present`: this relying party does not do token binding.
    case tokenBindingNotSupported
    /// `authenticatorData.rpIdHash` is not the SHA-256 of the relying party's ID.
    case relyingPartyMismatch
    case userNotPresent
    case userNotVerified
    /// A registration whose authenticator data has no attested credential data (flag AT).
    case missingAttestedCredential
    /// A COSE algorithm this relying party does not accept (anything but -7, -257 and -8).
    case unsupportedAlgorithm(Int)
    /// A well-formed key refused: not a point of its curve, an RSA modulus shorter than 2048 bits.
    case keyRejected(String)
    /// An attestation statement format other than `none` and `packed` (the format, clipped).
    case unsupportedAttestationFormat(String)
    /// The attestation statement does not verify: says which check failed.
    case attestationInvalid(String)
    /// The assertion's signature does not verify with the credential's key.
    case signatureInvalid
    /// The signature counter did not move forward: a sign of a cloned authenticator.
    case signCountWentBack(stored: UInt32, received: UInt32)

    var message: String {
        switch self {
        case .malformed(let detail): "The WebAuthn response is malformed: \(detail)."
        case .wrongCeremonyType: "The client data's type is not this ceremony's."
        case .challengeMismatch: "The client data's challenge is not the one issued."
        case .originNotAllowed(let origin): "The origin \(origin) is not one of the relying party's origins."
        case .crossOriginNotAllowed: "Cross-origin ceremonies are not allowed."
        case .tokenBindingNotSupported: "Token binding is not supported."
        case .relyingPartyMismatch: "The authenticator data is for another relying party ID."
        case .userNotPresent: "The authenticator did not check that the user was present."
        case .userNotVerified: "The authenticator did not verify the user."
        case .missingAttestedCredential: "The authenticator data has no attested credential."
        case .unsupportedAlgorithm(let algorithm):
            "The COSE algorithm \(algorithm) is not supported (ES256, RS256 and EdDSA are)."
        case .keyRejected(let detail): "The credential's public key is refused: \(detail)."
        case .unsupportedAttestationFormat(let format):
            "The attestation format \(format) is not supported (none and packed are)."
        case .attestationInvalid(let detail): "The attestation statement is invalid: \(detail)."
        case .signatureInvalid: "The signature does not verify with the credential's key."
        case .signCountWentBack(let stored, let received):
            "The signature counter went back (\(received), after \(stored)): the authenticator may be cloned."
        }
    }

    /// At most 100 characters of a value the client sent, for a message.
    static func clipped(_ text: String) -> String {
        text.count > 100 ? String(text.prefix(100)) + "…" : text
    }
}
