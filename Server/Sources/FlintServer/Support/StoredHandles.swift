import Foundation

/// Short handles for values too long to travel in a URL: the value is sealed with the master key (bound to `purpose`)
/// and kept in the store until it expires, on every node, and a random handle of 32 bytes (43 characters of
/// base64url) travels instead. A SAML sign-in's sealed session goes to the IdP this way as its `RelayState` (the
/// bindings allow 80 bytes), and the IdP's whole response goes on to the app's web server (whose request line may
/// be 8 KB) as a handle in the link. Only the handle's SHA-256 is stored, so the store's contents name no live handle.
struct StoredHandles: Sendable {
    let codes: CodeStore
    let secrets: SecretBox
    let clock: any FlintClock
    let random: any RandomSource
    let purpose: String

    /// A new handle for `value`, live until `expiresAt` (epoch seconds).
    func make(_ value: String, expiresAt: Int64) async throws -> String {
        let handle = random.token(byteCount: 32)
        try await codes.insertHandle(hash: Hex.sha256(handle), purpose: purpose,
                                     sealedValue: try secrets.sealToken(value, context: purpose), expiresAt: expiresAt)
        return handle
    }

    /// The value of a live handle, which stays usable.
    func value(of handle: String) async throws -> String? {
        guard Self.isWellFormed(handle) else { return nil }
        return open(try await codes.handle(hash: Hex.sha256(handle), purpose: purpose, liveAt: clock.seconds))
    }

    /// The value of a live handle, which is then gone: it works once, on any node.
    func take(_ handle: String) async throws -> String? {
        guard Self.isWellFormed(handle) else { return nil }
        return open(try await codes.takeHandle(hash: Hex.sha256(handle), purpose: purpose, liveAt: clock.seconds))
    }

    private func open(_ sealed: String?) -> String? {
        sealed.flatMap { secrets.openToken($0, as: String.self, context: purpose) }
    }

    /// At most 128 characters: anything longer was never a handle, and is not hashed or looked up.
    private static func isWellFormed(_ handle: String) -> Bool { (1...128).contains(handle.utf8.count) }
}
