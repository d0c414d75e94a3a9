/// Why a SAML response was refused by `SAMLResponseReader.read`. None of the messages repeat the response's data.
enum SAMLError: Error, Equatable, Sendable {
    /// More than `SAMLResponseReader.maximumSize` bytes.
    case tooLarge
    /// Not well-formed XML, or not the shape SAML requires (a required element or attribute missing, a bad
    /// xs:dateTime, a Signature or EncryptedData not as XML-DSig/XML-Enc define them). Says what.
    case malformed(String)
    /// The document has a DOCTYPE (a DTD): refused before any of it is read, against XXE and entity expansion.
    case doctypeRefused
    /// The root element is not a SAML 2.0 protocol `Response`.
    case notAResponse
    /// The assertion is not where a signature can vouch for it alone: no assertion or several, an assertion or a
    /// signature anywhere but their places, an ID held twice, a reference to another element than its signature's
    /// parent (XML signature wrapping). Says what.
    case wrappedOrAmbiguous(String)
    /// No verified signature covers the assertion: neither the Response nor the Assertion is signed.
    case unsigned
    /// A signature present does not verify with any of the trusted certificates (a forged, altered or
    /// other-key signature, or a key of the wrong type).
    case badSignature
    /// SHA-1 in a signature or digest, or RSA PKCS#1 v1.5 key transport: refused as broken. Names the algorithm.
    case weakAlgorithm(String)
    /// An algorithm or transform outside the ones accepted. Names it.
    case unsupportedAlgorithm(String)
    /// A configured IdP certificate is not a readable certificate (base64 DER or PEM), or none is configured.
    case certificateUnusable(String)
    /// An EncryptedAssertion, and no SP key to decrypt it with, or an SP key that is not a readable private key.
    case decryptionKeyUnusable
    /// The EncryptedAssertion does not decrypt with the SP key, or does not decrypt to one Assertion.
    case decryptionFailed
    /// xmlsec1 or libxml2 could not be started (or this platform builds without them).
    case libraryUnavailable

    var message: String {
        switch self {
        case .tooLarge: "The SAML response is too large."
        case .malformed(let detail): "The SAML response is malformed: \(detail)."
        case .doctypeRefused: "The SAML response has a DOCTYPE, which is not allowed."
        case .notAResponse: "The document is not a SAML 2.0 Response."
        case .wrappedOrAmbiguous(let detail): "The SAML response is ambiguous (possible signature wrapping): \(detail)."
        case .unsigned: "Neither the SAML response nor its assertion is signed."
        case .badSignature: "A signature of the SAML response does not verify with the IdP's certificates."
        case .weakAlgorithm(let algorithm): "The SAML response uses a weak algorithm: \(algorithm)."
        case .unsupportedAlgorithm(let algorithm): "The SAML response uses an unsupported algorithm: \(algorithm)."
        case .certificateUnusable(let detail): "An IdP certificate is unusable: \(detail)."
        case .decryptionKeyUnusable: "The assertion is encrypted and no usable SP private key is configured."
        case .decryptionFailed: "The encrypted assertion could not be decrypted with the SP key."
        case .libraryUnavailable: "The XML security library is unavailable."
        }
    }
}
