import Foundation
#if canImport(CXMLSec)
import CXMLSec
#endif

/// Reads a SAML 2.0 Response (the XML, already base64-decoded) whose data is covered by a valid signature of one of
/// `trustedCertificates` (base64 DER or PEM). `decryptionKeyPEM`: the SP's RSA private key (PKCS#8 PEM) for
/// EncryptedAssertion.
///
/// The rules, each marked where it is enforced:
/// 1. At most 256 KiB; libxml2 without network, entity substitution, DTD loading or XInclude; any DOCTYPE refused
///    before anything else (`SAMLXMLParser`).
/// 2. The root is a `samlp:Response` with exactly one `saml:Assertion` or `saml:EncryptedAssertion` as a direct
///    child, and no other element named Assertion or EncryptedAssertion anywhere.
/// 3. Only the Response's and the Assertion's `ID` are registered as XML IDs, each held by no other element.
/// 4. A `ds:Signature` only as a direct child of the Response or the Assertion, at most one each, with one Reference
///    to `#` + its parent's ID, accepted algorithms only (SHA-1 refused), verified by xmlsec with a configured
///    certificate's key, never one from the document (`XMLSignatureVerifier`).
/// 5. A Response signature that fails refuses the response, whatever the assertion's; one verified signature must
///    cover the assertion: the Response's or its own.
/// 6. An EncryptedAssertion: the Response's signature first, then decryption with the SP key (RSA-OAEP, AES-CBC or
///    AES-GCM) in the tree, then rules 2–5 for the Assertion it held (`XMLAssertionDecryptor`).
/// 7. Every text read is the element's whole text (`XMLElementView.text`).
/// 8. Every failure is a `SAMLError`; each call has its own document, freed on return.
enum SAMLResponseReader {
    static let maximumSize = 256 * 1024

    static func read(_ xml: Data, trustedCertificates: [String], decryptionKeyPEM: String?) throws(SAMLError)
        -> SAMLResponseData {
        #if canImport(CXMLSec)
        // Rule 1.
        guard xml.count <= maximumSize else { throw .tooLarge }
        try XMLSecurityLibrary.ready()
        let document = try SAMLXMLParser.parse(xml)
        defer { xmlFreeDoc(document) }
        let certificates = try trustedCertificates.enumerated().map { (index, text) throws(SAMLError) in
            try certificateDER(text, position: index + 1)
        }
        guard !certificates.isEmpty else { throw .certificateUnusable("none is configured") }
        return try read(document, certificates: certificates, decryptionKeyPEM: decryptionKeyPEM)
        #else
        throw .libraryUnavailable
        #endif
    }

    #if canImport(CXMLSec)
    private static func read(_ document: xmlDocPtr, certificates: [[UInt8]], decryptionKeyPEM: String?) throws(SAMLError)
        -> SAMLResponseData {
        guard let root = xmlDocGetRootElement(document) else { throw .malformed("no root element") }
        let response = XMLElementView(root)
        guard response.isElement(XMLNamespace.samlProtocol, "Response") else { throw .notAResponse }
        var assertion = try onlyAssertion(of: response)
        let responseID = try registerID(of: response, in: document)
        try checkSignaturePlacement(in: response, assertion: assertion)

        // Rule 5: a Response signature must verify, whatever the assertion's.
        var isResponseSigned = false
        if let signature = try signature(of: response) {
            try XMLSignatureVerifier.verify(signature, of: response, id: responseID, in: document, certificates: certificates)
            isResponseSigned = true
        }

        // Rule 6: decrypted after the Response's signature (which covers the ciphertext) is verified; then rules 2–4
        // again, for the Assertion now in the tree.
        let wasEncrypted = assertion.localName == "EncryptedAssertion"
        if wasEncrypted {
            // The SP key: an unencrypted PKCS#8 (or PKCS#1) PEM, read as DER: never a password prompt.
            guard let decryptionKeyPEM, let key = PEM.der(decryptionKeyPEM, label: "PRIVATE KEY")
                ?? PEM.der(decryptionKeyPEM, label: "RSA PRIVATE KEY")
            else { throw .decryptionKeyUnusable }
            guard try XMLAssertionDecryptor.decrypt(assertion, privateKeyDER: key)
                .isElement(XMLNamespace.samlAssertion, "Assertion")
            else { throw .decryptionFailed }
            assertion = try onlyAssertion(of: response)
            try checkSignaturePlacement(in: response, assertion: assertion)
        }
        let assertionID = try registerID(of: assertion, in: document)

        var isAssertionSigned = false
        if let signature = try signature(of: assertion) {
            try XMLSignatureVerifier.verify(signature, of: assertion, id: assertionID, in: document, certificates: certificates)
            isAssertionSigned = true
        }
        guard isResponseSigned || isAssertionSigned else { throw .unsigned }

        return SAMLResponseData(
            responseID: responseID, issuer: try response.onlyChild(XMLNamespace.samlAssertion, "Issuer")?.text,
            destination: response.attribute("Destination"), inResponseTo: response.attribute("InResponseTo"),
            statusCode: try statusCode(of: response), isResponseSigned: isResponseSigned,
            assertion: try SAMLAssertionData(
                assertion, id: assertionID, isSigned: isAssertionSigned, wasEncrypted: wasEncrypted))
    }

    /// Rule 2: the one Assertion or EncryptedAssertion, a direct child of the Response, and no element of either name
    /// (in any namespace) elsewhere: wrapping attacks hide a signed assertion somewhere and put theirs in its place.
    private static func onlyAssertion(of response: XMLElementView) throws(SAMLError) -> XMLElementView {
        let saml = XMLNamespace.samlAssertion
        let placed = response.children.filter { $0.isElement(saml, "Assertion") || $0.isElement(saml, "EncryptedAssertion") }
        let named = response.subtree.filter { $0.localName == "Assertion" || $0.localName == "EncryptedAssertion" }
        guard placed.count == 1, named.count == 1, let assertion = placed.first else {
            throw .wrappedOrAmbiguous("not exactly one assertion, in the Response")
        }
        return assertion
    }

    /// Rule 3: registers `element`'s `ID` as the document's XML ID for it, after checking that no other element
    /// holds that value in an ID-like attribute (`ID`, `Id`, `id`, `xml:id`, which libxml2 registers itself).
    private static func registerID(of element: XMLElementView, in document: xmlDocPtr) throws(SAMLError) -> String {
        guard let id = element.attribute("ID"), !id.isEmpty else { throw .malformed("\(element.localName) has no ID") }
        guard let root = xmlDocGetRootElement(document) else { throw .malformed("no root element") }
        for other in XMLElementView(root).subtree where other.node != element.node {
            for attribute in other.attributes where ["ID", "Id", "id"].contains(attribute.name) && attribute.value == id {
                throw .wrappedOrAmbiguous("an ID is held by two elements")
            }
        }
        var attribute = element.node.pointee.properties
        while let current = attribute, current.pointee.ns != nil || String(cString: current.pointee.name) != "ID" {
            attribute = current.pointee.next
        }
        guard id.withXMLChars({ xmlGetID(document, $0) }) == nil,
              id.withXMLChars({ xmlAddID(nil, document, $0, attribute) }) != nil
        else { throw .wrappedOrAmbiguous("an ID is held by two elements") }
        return id
    }

    /// The signature enveloped in `element`, if any: at most one.
    private static func signature(of element: XMLElementView) throws(SAMLError) -> XMLElementView? {
        let signatures = element.children(XMLNamespace.signature, "Signature")
        guard signatures.count <= 1 else { throw .wrappedOrAmbiguous("\(element.localName) has several signatures") }
        return signatures.first
    }

    /// Rule 4's placement: every `ds:Signature` in the document is a direct child of the Response or of the
    /// assertion (at most one each: `signature(of:)`).
    private static func checkSignaturePlacement(in response: XMLElementView, assertion: XMLElementView) throws(SAMLError) {
        for element in response.subtree where element.isElement(XMLNamespace.signature, "Signature") {
            guard let parent = element.parent, parent.node == response.node || parent.node == assertion.node else {
                throw .wrappedOrAmbiguous("a Signature is neither the Response's nor the assertion's")
            }
        }
    }

    /// A configured certificate as DER (PEM, or base64 DER with any whitespace), checked by loading it as xmlsec will.
    private static func certificateDER(_ text: String, position: Int) throws(SAMLError) -> [UInt8] {
        guard let der = PEM.certificateDER(text), let key = der.withUnsafeBufferPointer({
                xmlSecOpenSSLAppKeyLoadMemory($0.baseAddress, XMLSecSize($0.count), xmlSecKeyDataFormatCertDer, nil, nil, nil)
            })
        else { throw .certificateUnusable("certificate \(position) is not a base64 DER or PEM certificate xmlsec can use") }
        xmlSecKeyDestroy(key)
        return der
    }

    private static func statusCode(of response: XMLElementView) throws(SAMLError) -> String {
        let status = try response.requiredChild(XMLNamespace.samlProtocol, "Status")
        guard let code = try status.requiredChild(XMLNamespace.samlProtocol, "StatusCode").attribute("Value") else {
            throw .malformed("StatusCode has no Value")
        }
        return code
    }
    #endif
}
