import Crypto
import FlintWire
import Foundation
import NIOConcurrencyHelpers

/// A WebAuthn authenticator in software, for tests: it creates ES256 (P-256) passkeys and signs challenges with them,
/// producing the bytes a browser or iOS produces: the client data JSON, the authenticator data, the attestation object
/// (`none`, or `packed` self attestation) and DER signatures.
///
/// Its passkeys are discoverable: an assertion for a relying party uses the newest passkey created for it (or one the
/// request's `allowCredentials` names) and gives back the user handle it was created with. Each assertion increments
/// the passkey's signature counter (0 at creation).
///
/// `Tampering` makes one ceremony hostile (another origin or RP ID hash, no user verification, a chosen counter), and
/// `replayLastAssertion()` hands back an earlier assertion unchanged.
public final class SoftwareAuthenticator: Sendable {
    /// The attestation statement of new passkeys.
    public enum Attestation: Sendable {
        /// `fmt` `none`, an empty statement (what iOS and most browsers send).
        case none
        /// `fmt` `packed` without a certificate: the new key signs its own registration (`alg` -7).
        case packedSelf
    }

    /// How the JSON responses carry their bytes.
    public enum ResponseFormat: Sendable {
        /// As a browser's `PublicKeyCredential.toJSON()` gives them: base64url without padding, with `rawId`, `type`
        /// and `clientExtensionResults`.
        case webAuthnJSON
        /// As FirebaseAuth (and FlintAuth) send them from iOS: standard base64, `id` and `response` only.
        case firebaseIOS
    }

    /// Changes to one ceremony, for tests that expect the relying party to refuse it.
    public struct Tampering: Sendable {
        /// The client data's origin instead of the authenticator's.
        public var origin: String?
        /// The client data's `type` instead of `webauthn.create` or `webauthn.get`.
        public var clientDataType: String?
        /// The authenticator data's first 32 bytes instead of the SHA-256 of the RP ID.
        public var relyingPartyIDHash: Data?
        /// Whether the authenticator data's UV flag is set.
        public var userVerified: Bool
        /// The signature counter in place of the next one (the passkey's stored counter does not change).
        public var signCount: UInt32?

        public init(origin: String? = nil, clientDataType: String? = nil, relyingPartyIDHash: Data? = nil,
                    userVerified: Bool = true, signCount: UInt32? = nil) {
            self.origin = origin
            self.clientDataType = clientDataType
            self.relyingPartyIDHash = relyingPartyIDHash
            self.userVerified = userVerified
            self.signCount = signCount
        }
    }

    /// A passkey the authenticator holds.
    public struct Credential: Sendable {
        public let id: Data
        public let relyingPartyID: String
        public let userHandle: Data
        public let privateKey: P256.Signing.PrivateKey
        /// The counter of the last signature (0 before the first).
        public internal(set) var signCount: UInt32
    }

    /// A new passkey, as `navigator.credentials.create()` returns it.
    public struct Registration: Sendable {
        public let credentialID: Data
        public let clientDataJSON: Data
        public let attestationObject: Data
        /// The authenticator data inside the attestation object.
        public let authenticatorData: Data

        /// The `authenticatorRegistrationResponse` of `passkeyEnrollment:finalize`.
        public func json(_ format: ResponseFormat = .webAuthnJSON) -> JSONValue {
            SoftwareAuthenticator.response(id: credentialID, format, [
                "clientDataJSON": clientDataJSON, "attestationObject": attestationObject,
            ])
        }
    }

    /// A signature of a challenge, as `navigator.credentials.get()` returns it.
    public struct Assertion: Sendable {
        public let credentialID: Data
        public let clientDataJSON: Data
        public let authenticatorData: Data
        /// ECDSA P-256 with SHA-256 over the authenticator data followed by the SHA-256 of the client data, DER.
        public let signature: Data
        public let userHandle: Data

        /// The `authenticatorAuthenticationResponse` of `passkeySignIn:finalize`.
        public func json(_ format: ResponseFormat = .webAuthnJSON) -> JSONValue {
            SoftwareAuthenticator.response(id: credentialID, format, [
                "clientDataJSON": clientDataJSON, "authenticatorData": authenticatorData, "signature": signature,
                "userHandle": userHandle,
            ])
        }
    }

    public enum Failure: Error, CustomStringConvertible {
        /// The options lack the RP ID, the challenge or (to create a passkey) the user handle, or one is not base64.
        case unreadableOptions(JSONValue?)
        /// No passkey for the relying party (or none of those the request allows).
        case noCredential(relyingPartyID: String)
        /// `replayLastAssertion()` before any assertion.
        case nothingToReplay

        public var description: String {
            switch self {
            case .unreadableOptions(let options): "Unreadable WebAuthn options: \(String(describing: options))"
            case .noCredential(let relyingPartyID): "No passkey for \(relyingPartyID)"
            case .nothingToReplay: "No assertion to replay"
            }
        }
    }

    private struct State {
        var credentials: [Credential] = []
        var lastAssertion: Assertion?
    }

    /// The origin of the client data; nil gives `https://` and the RP ID, as an iOS app with an associated domain has.
    public let origin: String?
    public let attestation: Attestation
    /// The BE (backup eligible) and BS (backed up) flags: both set for a synced passkey such as iCloud Keychain's.
    public let backupEligible: Bool
    public let backedUp: Bool
    /// The authenticator's model, in the attested credential data (zeros, as iOS sends with `none`).
    public let aaguid: Data
    private let state = NIOLockedValueBox(State())

    public init(origin: String? = nil, attestation: Attestation = .none, backupEligible: Bool = false,
                backedUp: Bool = false, aaguid: Data = Data(count: 16)) {
        precondition(aaguid.count == 16, "An AAGUID is 16 bytes")
        self.origin = origin
        self.attestation = attestation
        self.backupEligible = backupEligible
        self.backedUp = backedUp
        self.aaguid = aaguid
    }

    /// The passkeys created so far, oldest first.
    public var credentials: [Credential] { state.withLockedValue { $0.credentials } }

    // MARK: Ceremonies

    /// Creates a passkey for `userHandle` at `relyingPartyID`, its registration signing over `challenge`.
    public func register(relyingPartyID: String, challenge: Data, userHandle: Data,
                         tampering: Tampering = Tampering()) throws -> Registration {
        let credential = Credential(id: Data((0..<20).map { _ in UInt8.random(in: 0...255) }), relyingPartyID: relyingPartyID,
                                    userHandle: userHandle, privateKey: P256.Signing.PrivateKey(), signCount: 0)
        let clientData = clientDataJSON(type: tampering.clientDataType ?? "webauthn.create", challenge: challenge,
                                        relyingPartyID: relyingPartyID, tampering: tampering)
        var authenticatorData = authenticatorDataPrefix(relyingPartyID: relyingPartyID, attestedCredential: true,
                                                        signCount: tampering.signCount ?? 0, tampering: tampering)
        authenticatorData.append(aaguid)
        authenticatorData.append(contentsOf: [UInt8(credential.id.count >> 8), UInt8(credential.id.count & 0xFF)])
        authenticatorData.append(credential.id)
        authenticatorData.append(Self.coseKey(credential.privateKey.publicKey).encoded)

        let format: String
        let statement: CBOR
        switch attestation {
        case .none:
            (format, statement) = ("none", .map([]))
        case .packedSelf:
            let signature = try Self.sign(authenticatorData, clientData, with: credential.privateKey)
            (format, statement) = ("packed", .map([(.text("alg"), .int(-7)), (.text("sig"), .bytes(signature))]))
        }
        let attestationObject = CBOR.map([
            (.text("fmt"), .text(format)),
            (.text("attStmt"), statement),
            (.text("authData"), .bytes(authenticatorData)),
        ]).encoded
        state.withLockedValue { $0.credentials.append(credential) }
        return Registration(credentialID: credential.id, clientDataJSON: clientData, attestationObject: attestationObject,
                            authenticatorData: authenticatorData)
    }

    /// Signs `challenge` for `relyingPartyID` with the passkey `credentialID`, or the newest passkey of the relying
    /// party among `allowedCredentials` (any if empty). The passkey's counter goes up by one.
    public func authenticate(relyingPartyID: String, challenge: Data, allowedCredentials: [Data] = [],
                             tampering: Tampering = Tampering()) throws -> Assertion {
        let credential = try state.withLockedValue { state -> Credential in
            guard let index = state.credentials.lastIndex(where: {
                $0.relyingPartyID == relyingPartyID && (allowedCredentials.isEmpty || allowedCredentials.contains($0.id))
            }) else { throw Failure.noCredential(relyingPartyID: relyingPartyID) }
            state.credentials[index].signCount += 1
            return state.credentials[index]
        }
        let clientData = clientDataJSON(type: tampering.clientDataType ?? "webauthn.get", challenge: challenge,
                                        relyingPartyID: relyingPartyID, tampering: tampering)
        let authenticatorData = authenticatorDataPrefix(relyingPartyID: relyingPartyID, attestedCredential: false,
                                                        signCount: tampering.signCount ?? credential.signCount,
                                                        tampering: tampering)
        let assertion = Assertion(credentialID: credential.id, clientDataJSON: clientData,
                                  authenticatorData: authenticatorData,
                                  signature: try Self.sign(authenticatorData, clientData, with: credential.privateKey),
                                  userHandle: credential.userHandle)
        state.withLockedValue { $0.lastAssertion = assertion }
        return assertion
    }

    /// The last assertion again, byte for byte: a replay the relying party must refuse.
    public func replayLastAssertion() throws -> Assertion {
        guard let assertion = state.withLockedValue({ $0.lastAssertion }) else { throw Failure.nothingToReplay }
        return assertion
    }

    // MARK: The server's JSON

    /// A registration for the `credentialCreationOptions` of `passkeyEnrollment:start` (`rp.id`, `user.id`,
    /// `challenge`; base64 or base64url).
    public func register(creationOptions options: JSONValue?, tampering: Tampering = Tampering()) throws -> Registration {
        let fields = options?.objectValue
        guard let relyingPartyID = fields?["rp"]?.objectValue?["id"]?.stringValue,
              let userHandle = fields?["user"]?.objectValue?["id"]?.stringValue.flatMap(Self.bytes),
              let challenge = fields?["challenge"]?.stringValue.flatMap(Self.bytes)
        else { throw Failure.unreadableOptions(options) }
        return try register(relyingPartyID: relyingPartyID, challenge: challenge, userHandle: userHandle, tampering: tampering)
    }

    /// An assertion for the `credentialRequestOptions` of `passkeySignIn:start` (`rpId`, `challenge`, and
    /// `allowCredentials` if any).
    public func authenticate(requestOptions options: JSONValue?, tampering: Tampering = Tampering()) throws -> Assertion {
        let fields = options?.objectValue
        guard let relyingPartyID = fields?["rpId"]?.stringValue,
              let challenge = fields?["challenge"]?.stringValue.flatMap(Self.bytes)
        else { throw Failure.unreadableOptions(options) }
        let allowed = (fields?["allowCredentials"]?.arrayValue ?? []).compactMap {
            $0.objectValue?["id"]?.stringValue.flatMap(Self.bytes)
        }
        return try authenticate(relyingPartyID: relyingPartyID, challenge: challenge, allowedCredentials: allowed,
                                tampering: tampering)
    }

    // MARK: Parts

    /// `{"type":…,"challenge":…,"origin":…,"crossOrigin":false}` in this order, the challenge base64url without
    /// padding, as browsers write it.
    private func clientDataJSON(type: String, challenge: Data, relyingPartyID: String, tampering: Tampering) -> Data {
        let origin = tampering.origin ?? origin ?? "https://\(relyingPartyID)"
        let json = #"{"type":\#(Self.quoted(type)),"challenge":"\#(Self.base64URL(challenge))","origin":\#(Self.quoted(origin)),"crossOrigin":false}"#
        return Data(json.utf8)
    }

    /// The RP ID hash, the flags and the counter; with `attestedCredential`, the AT flag (the caller appends the
    /// attested credential data).
    private func authenticatorDataPrefix(relyingPartyID: String, attestedCredential: Bool, signCount: UInt32,
                                         tampering: Tampering) -> Data {
        var data = tampering.relyingPartyIDHash ?? Data(SHA256.hash(data: Data(relyingPartyID.utf8)))
        var flags: UInt8 = 0x01  // UP
        if tampering.userVerified { flags |= 0x04 }
        if backupEligible { flags |= 0x08 }
        if backedUp { flags |= 0x10 }
        if attestedCredential { flags |= 0x40 }
        data.append(flags)
        data.append(contentsOf: withUnsafeBytes(of: signCount.bigEndian, Array.init))
        return data
    }

    /// The COSE_Key of an EC2 P-256 ES256 key: `{1: 2, 3: -7, -1: 1, -2: x, -3: y}`.
    private static func coseKey(_ key: P256.Signing.PublicKey) -> CBOR {
        let point = key.rawRepresentation  // x ‖ y
        return .map([
            (.int(1), .int(2)), (.int(3), .int(-7)), (.int(-1), .int(1)),
            (.int(-2), .bytes(point.prefix(32))), (.int(-3), .bytes(point.suffix(32))),
        ])
    }

    private static func sign(_ authenticatorData: Data, _ clientDataJSON: Data, with key: P256.Signing.PrivateKey) throws
        -> Data {
        let signed = authenticatorData + Data(SHA256.hash(data: clientDataJSON))
        // swift-crypto hashes `signed` with SHA-256 before signing, as ES256 requires.
        return try key.signature(for: signed).derRepresentation
    }

    fileprivate static func response(id: Data, _ format: ResponseFormat, _ fields: [String: Data]) -> JSONValue {
        switch format {
        case .webAuthnJSON:
            return [
                "id": .string(base64URL(id)), "rawId": .string(base64URL(id)), "type": "public-key",
                "response": .object(fields.mapValues { .string(base64URL($0)) }), "clientExtensionResults": [:],
            ]
        case .firebaseIOS:
            return ["id": .string(id.base64EncodedString()),
                    "response": .object(fields.mapValues { .string($0.base64EncodedString()) })]
        }
    }

    /// Base64url without padding.
    public static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// The bytes of base64 or base64url text, padded or not.
    static func bytes(_ text: String) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64)
    }

    /// `text` as a JSON string, `/` unescaped as browsers write it (origins and types have no control characters).
    private static func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}
