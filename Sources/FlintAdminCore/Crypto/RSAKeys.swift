import Foundation

/// Why a key could not be read or used.
struct RSAKeyError: Error, CustomStringConvertible {
    let description: String
}

/// The smallest RSA modulus accepted, in bits: Google's and Flint's keys are 2048-bit, and anything shorter is weak.
let minimumRSAKeyBits = 2048

/// An RSA public key that checks RS256 signatures (RSASSA-PKCS1-v1_5 with SHA-256), read from an X.509 certificate
/// (Google's key map) or a JWK's `n` and `e` (a JWKS). `RSAKeys+OpenSSL.swift` (Linux) and `RSAKeys+Security.swift`
/// (Apple platforms) hold the platform halves.
struct RSAPublicKey: Sendable {
    let platformKey: PlatformRSAKey

    /// The key of a PEM certificate (`-----BEGIN CERTIFICATE-----`).
    init(certificatePEM: String) throws {
        guard let der = PEM.der(certificatePEM, label: "CERTIFICATE") else {
            throw RSAKeyError(description: "not a PEM certificate")
        }
        platformKey = try PlatformRSAKey(certificateDER: der)
    }

    /// The key of a JWK's base64url `n` (modulus) and `e` (exponent).
    init(modulus: Data, exponent: Data) throws {
        platformKey = try PlatformRSAKey(publicPKCS1: DER.rsaPublicKey(modulus: modulus, exponent: exponent))
    }

    func isValidSignature(_ signature: Data, for message: Data) -> Bool {
        platformKey.isValidSignature(signature, for: message)
    }
}

/// An RSA private key that makes RS256 signatures: a service account's `private_key`.
struct RSAPrivateKey: Sendable {
    let platformKey: PlatformRSAKey

    /// PKCS#8 (`-----BEGIN PRIVATE KEY-----`, what service-account files hold) or PKCS#1 (`RSA PRIVATE KEY`).
    init(pem: String) throws {
        if let pkcs8 = PEM.der(pem, label: "PRIVATE KEY") {
            guard let pkcs1 = DER.pkcs1PrivateKey(fromPKCS8: pkcs8) else {
                throw RSAKeyError(description: "the private key is not PKCS#8")
            }
            platformKey = try PlatformRSAKey(privatePKCS1: pkcs1)
        } else if let pkcs1 = PEM.der(pem, label: "RSA PRIVATE KEY") {
            platformKey = try PlatformRSAKey(privatePKCS1: pkcs1)
        } else {
            throw RSAKeyError(description: "the private key is not a PEM RSA key")
        }
    }

    func signature(for message: Data) throws -> Data {
        try platformKey.signature(for: message)
    }
}
