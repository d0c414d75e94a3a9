/// Authenticator data (WebAuthn §6.1): the RP ID's hash, flags, the signature counter, then the attested credential
/// data (flag AT) and the extensions (flag ED), each present exactly when its flag says, and nothing after them.
struct AuthenticatorData {
    /// The authenticator's flags byte. Bits 1 and 5 are reserved and ignored, as the specification asks.
    struct Flags {
        let rawValue: UInt8
        var userPresent: Bool { rawValue & 0x01 != 0 }
        var userVerified: Bool { rawValue & 0x04 != 0 }
        var backupEligible: Bool { rawValue & 0x08 != 0 }
        var backedUp: Bool { rawValue & 0x10 != 0 }
        var attestedCredentialData: Bool { rawValue & 0x40 != 0 }
        var extensionData: Bool { rawValue & 0x80 != 0 }
    }

    /// The credential a registration attests (WebAuthn §6.5.2).
    struct AttestedCredential {
        let aaguid: [UInt8]
        let credentialID: [UInt8]
        /// The COSE_Key exactly as encoded: what the server stores.
        let publicKeyBytes: [UInt8]
        let publicKey: COSEKey
    }

    /// The length of the fixed part: the RP ID hash (32), flags (1) and counter (4).
    static let fixedLength = 37
    /// WebAuthn Level 3 bounds credential IDs at 1023 bytes.
    static let maximumCredentialIDLength = 1023

    let rpIDHash: [UInt8]
    let flags: Flags
    let signCount: UInt32
    let attestedCredential: AttestedCredential?

    init(_ bytes: [UInt8]) throws(WebAuthnError) {
        guard bytes.count >= Self.fixedLength else {
            throw .malformed("the authenticator data is \(bytes.count) bytes, shorter than \(Self.fixedLength)")
        }
        guard bytes.count <= CBORDecoder.maximumInputSize else { throw .malformed("the authenticator data is too long") }
        rpIDHash = Array(bytes[0 ..< 32])
        flags = Flags(rawValue: bytes[32])
        signCount = bytes[33 ..< 37].reduce(0) { $0 << 8 | UInt32($1) }
        guard flags.backupEligible || !flags.backedUp else {
            throw .malformed("the authenticator data says backed up (BS) but not backup eligible (BE)")
        }
        var rest = Array(bytes[Self.fixedLength...])
        if flags.attestedCredentialData {
            let (credential, consumed) = try Self.attestedCredential(rest)
            attestedCredential = credential
            rest.removeFirst(consumed)
        } else {
            attestedCredential = nil
        }
        if flags.extensionData {
            // Extensions are not acted on, but must be a CBOR map that ends the data exactly.
            let extensions: CBORValue
            do {
                extensions = try CBORDecoder.decode(rest)
            } catch {
                throw .malformed("the authenticator data's extensions are not valid CBOR: \(error.reason)")
            }
            guard case .map = extensions else { throw .malformed("the authenticator data's extensions are not a map") }
        } else if !rest.isEmpty {
            throw .malformed("\(rest.count) bytes follow the authenticator data")
        }
    }

    /// The attested credential data at the start of `bytes`, and its length: AAGUID (16), credential ID length (2,
    /// big-endian), credential ID, then the COSE_Key, whose end only its CBOR encoding tells.
    private static func attestedCredential(_ bytes: [UInt8]) throws(WebAuthnError) -> (AttestedCredential, Int) {
        guard bytes.count >= 18 else { throw .malformed("the attested credential data is truncated") }
        let aaguid = Array(bytes[0 ..< 16])
        let idLength = Int(bytes[16]) << 8 | Int(bytes[17])
        guard idLength <= maximumCredentialIDLength else {
            throw .malformed("the credential ID is longer than \(maximumCredentialIDLength) bytes")
        }
        guard idLength > 0 else { throw .malformed("the credential ID is empty") }
        guard bytes.count >= 18 + idLength else { throw .malformed("the attested credential data is truncated") }
        let credentialID = Array(bytes[18 ..< 18 + idLength])
        let keyStart = 18 + idLength
        let keyValue: CBORValue, keyLength: Int
        do {
            (keyValue, keyLength) = try CBORDecoder.decodePrefix(Array(bytes[keyStart...]))
        } catch {
            throw .malformed("the credential public key is not valid CBOR: \(error.reason)")
        }
        let publicKey = try COSEKey(keyValue)
        let credential = AttestedCredential(
            aaguid: aaguid, credentialID: credentialID, publicKeyBytes: Array(bytes[keyStart ..< keyStart + keyLength]),
            publicKey: publicKey)
        return (credential, keyStart + keyLength)
    }
}
