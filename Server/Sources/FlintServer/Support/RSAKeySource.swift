import Crypto
import _CryptoExtras

/// Where new RSA keys come from: the signing keys, service-account keys and SAML SP keys Flint makes.
///
/// A seam for tests: making an RSA-2048 key costs about as much CPU as a few hundred requests, and a test suite
/// starts hundreds of servers, each making its first signing key.
public protocol RSAKeySource: Sendable {
    /// A new RSA-2048 key.
    func makeKey() throws -> _RSA.Signing.PrivateKey
}

/// The production source: a fresh key from the system's generator each time.
public struct FreshRSAKeys: RSAKeySource {
    public init() {}

    public func makeKey() throws -> _RSA.Signing.PrivateKey {
        try _RSA.Signing.PrivateKey(keySize: .bits2048)
    }
}
