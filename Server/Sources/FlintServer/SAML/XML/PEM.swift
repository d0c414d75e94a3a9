import Foundation

/// PEM armour (RFC 7468), as the SAML configuration carries certificates and the SP key.
enum PEM {
    /// The DER of the first `-----BEGIN <label>-----` block of `text`, if there is one and its base64 is valid.
    static func der(_ text: String, label: String) -> [UInt8]? {
        let begin = "-----BEGIN \(label)-----", end = "-----END \(label)-----"
        guard let start = text.range(of: begin), let stop = text.range(of: end, range: start.upperBound ..< text.endIndex),
              let der = Data(base64Encoded: String(text[start.upperBound ..< stop.lowerBound]),
                             options: .ignoreUnknownCharacters)
        else { return nil }
        return Array(der)
    }

    /// The DER of a certificate as Firebase's SAML configs carry one: PEM (`-----BEGIN CERTIFICATE-----`), or base64
    /// DER with any whitespace. The admin API's checks and the response reader both read certificates this way.
    static func certificateDER(_ text: String) -> [UInt8]? {
        der(text, label: "CERTIFICATE") ?? Data(base64Encoded: text, options: .ignoreUnknownCharacters).map(Array.init)
    }
}
