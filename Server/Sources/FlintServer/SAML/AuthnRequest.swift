import FlintWire
import _CryptoExtras
import Crypto
import Foundation

/// An SP-initiated sign-in's request to the IdP (SAML 2.0 `AuthnRequest`), sent over the HTTP-Redirect binding:
/// the XML, raw-DEFLATE'd and base64'd into `SAMLRequest`, with `RelayState`, and — when the provider's
/// `signRequest` is on — `SigAlg` and `Signature` over those query fields as they are sent (SAML bindings §3.4.4.1).
struct AuthnRequest: Sendable, Equatable {
    /// The request's ID: the IdP's response must name it as `InResponseTo`. XML IDs start with a letter or `_`.
    var id: String
    var issueInstant: Date
    /// The IdP's single sign-on URL.
    var destination: String
    /// Flint's entity ID (`Issuer`).
    var issuer: String
    /// Where the IdP posts its response (HTTP-POST binding).
    var assertionConsumerServiceURL: String

    static let rsaSHA256 = "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256"

    var xml: String {
        let instant = Self.timestamp(issueInstant)
        return """
            <samlp:AuthnRequest xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" \
            xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="\(HTML.escape(id))" Version="2.0" \
            IssueInstant="\(instant)" Destination="\(HTML.escape(destination))" \
            AssertionConsumerServiceURL="\(HTML.escape(assertionConsumerServiceURL))" \
            ProtocolBinding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST">\
            <saml:Issuer>\(HTML.escape(issuer))</saml:Issuer>\
            <samlp:NameIDPolicy AllowCreate="true"/>\
            </samlp:AuthnRequest>
            """
    }

    /// The URL that sends the browser to the IdP: `destination` with `SAMLRequest`, `RelayState` and, given a key,
    /// the signature.
    func redirectURL(relayState: String, signingKey: _RSA.Signing.PrivateKey?) throws -> String {
        var fields = [("SAMLRequest", Data(Self.deflateStored(Data(xml.utf8))).base64EncodedString()),
                      ("RelayState", relayState)]
        if let signingKey {
            fields.append(("SigAlg", Self.rsaSHA256))
            // The signed text is the query exactly as it goes out, so encode first and sign that.
            let signed = FormURLEncoding.encode(fields)
            let signature = try signingKey.signature(for: SHA256.hash(data: Data(signed.utf8)), padding: .insecurePKCS1v1_5)
            fields.append(("Signature", signature.rawRepresentation.base64EncodedString()))
        }
        let separator = destination.contains("?") ? "&" : "?"
        return destination + separator + FormURLEncoding.encode(fields)
    }

    /// `xs:dateTime` in UTC, whole seconds: what SAML messages carry.
    static func timestamp(_ date: Date) -> String {
        var format = Date.ISO8601FormatStyle()
        format.timeZone = TimeZone(identifier: "UTC")!
        return date.formatted(format)
    }

    /// `data` as a raw DEFLATE stream (RFC 1951) of stored blocks: valid DEFLATE that every inflater reads, without
    /// a compressor. An AuthnRequest is a few hundred bytes, so compressing it would save little.
    static func deflateStored(_ data: Data) -> [UInt8] {
        let maximumBlock = 65_535
        var output: [UInt8] = []
        var start = data.startIndex
        repeat {
            let end = min(start + maximumBlock, data.endIndex)
            let length = UInt16(end - start)
            // BFINAL in bit 0, BTYPE 00 (stored) in bits 1–2; the rest of the byte is padding to the boundary.
            output.append(end == data.endIndex ? 1 : 0)
            output += [UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8(~length >> 8)]
            output += data[start..<end]
            start = end
        } while start < data.endIndex
        return output
    }
}
