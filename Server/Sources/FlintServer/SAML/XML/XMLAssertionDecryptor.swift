#if canImport(CXMLSec)
import CXMLSec

/// Rule 6 of `SAMLResponseReader`: an EncryptedAssertion decrypted with the SP's private key, in two explicit steps
/// so that each algorithm is checked: the EncryptedKey (RSA-OAEP only) gives the AES key, which decrypts the
/// EncryptedData (AES-CBC or AES-GCM). Neither KeyInfo is used to find a key: xmlsec is handed each key.
enum XMLAssertionDecryptor {
    /// The data algorithms accepted, with their key sizes in bytes (checked: xmlsec would take a longer key's prefix).
    static var dataAlgorithms: [String: (transform: xmlSecTransformId, keySize: Int)] {
        [
            "http://www.w3.org/2001/04/xmlenc#aes128-cbc": (xmlSecOpenSSLTransformAes128CbcGetKlass(), 16),
            "http://www.w3.org/2001/04/xmlenc#aes256-cbc": (xmlSecOpenSSLTransformAes256CbcGetKlass(), 32),
            "http://www.w3.org/2009/xmlenc11#aes128-gcm": (xmlSecOpenSSLTransformAes128GcmGetKlass(), 16),
            "http://www.w3.org/2009/xmlenc11#aes256-gcm": (xmlSecOpenSSLTransformAes256GcmGetKlass(), 32),
        ]
    }
    /// Key transport: RSA-OAEP (MGF1 with SHA-1, the SAML-wide default). PKCS#1 v1.5 is refused as weak (it is
    /// open to Bleichenbacher's padding oracle).
    static let keyTransport = "http://www.w3.org/2001/04/xmlenc#rsa-oaep-mgf1p"

    /// Replaces `encryptedAssertion` in the document by the element it decrypts to, and returns that element (the
    /// caller checks that it is one Assertion). `privateKeyDER`: the SP's private key.
    static func decrypt(_ encryptedAssertion: XMLElementView, privateKeyDER: [UInt8]) throws(SAMLError) -> XMLElementView {
        let xenc = XMLNamespace.encryption
        let encryptedData = try encryptedAssertion.requiredChild(xenc, "EncryptedData")
        // The EncryptedKey in the EncryptedData's KeyInfo, or beside the EncryptedData: exactly one.
        let encryptedKeys = (try encryptedData.onlyChild(XMLNamespace.signature, "KeyInfo"))
            .map { $0.children(xenc, "EncryptedKey") } ?? []
        let keys = encryptedKeys + encryptedAssertion.children(xenc, "EncryptedKey")
        guard keys.count == 1, let encryptedKey = keys.first else { throw .malformed("not one EncryptedKey") }

        let keyAlgorithm = try algorithm(of: encryptedKey)
        guard keyAlgorithm == keyTransport else {
            throw XMLSignatureVerifier.weakAlgorithms.contains(keyAlgorithm)
                ? .weakAlgorithm(keyAlgorithm) : .unsupportedAlgorithm(XMLSignatureVerifier.clipped(keyAlgorithm))
        }
        let dataAlgorithm = try algorithm(of: encryptedData)
        guard let data = dataAlgorithms[dataAlgorithm] else {
            throw .unsupportedAlgorithm(XMLSignatureVerifier.clipped(dataAlgorithm))
        }

        let spKey = privateKeyDER.withUnsafeBufferPointer {
            xmlSecOpenSSLAppKeyLoadMemory($0.baseAddress, XMLSecSize($0.count), xmlSecKeyDataFormatDer, nil, nil, nil)
        }
        guard let spKey else { throw .decryptionKeyUnusable }
        let sessionKey = try decryptToBytes(
            encryptedKey, key: spKey, transform: xmlSecOpenSSLTransformRsaOaepGetKlass(), mode: xmlEncCtxModeEncryptedKey)
        guard sessionKey.count == data.keySize else { throw .decryptionFailed }
        let aesKey = sessionKey.withUnsafeBufferPointer {
            xmlSecKeyReadMemory(xmlSecOpenSSLKeyDataAesGetKlass(), $0.baseAddress, XMLSecSize($0.count))
        }
        guard let aesKey else { throw .decryptionFailed }
        let plaintext = try decryptToBytes(encryptedData, key: aesKey, transform: data.transform, mode: xmlEncCtxModeEncryptedData)
        return try replace(encryptedAssertion, byParsing: plaintext)
    }

    private static func algorithm(of encrypted: XMLElementView) throws(SAMLError) -> String {
        let method = try encrypted.requiredChild(XMLNamespace.encryption, "EncryptionMethod")
        return method.attribute("Algorithm") ?? ""
    }

    /// Decrypts an EncryptedKey or EncryptedData with `key` (which the context then owns), xmlsec allowed `transform`
    /// only.
    private static func decryptToBytes(_ element: XMLElementView, key: xmlSecKeyPtr, transform: xmlSecTransformId,
                                       mode: xmlEncCtxMode) throws(SAMLError) -> [UInt8] {
        guard let context = xmlSecEncCtxCreate(nil) else {
            xmlSecKeyDestroy(key)
            throw .libraryUnavailable
        }
        defer { xmlSecEncCtxDestroy(context) }
        context.pointee.encKey = key
        context.pointee.mode = mode
        let enabled = withUnsafeMutablePointer(to: &context.pointee.transformCtx.enabledTransforms) {
            xmlSecPtrListAdd($0, UnsafeMutableRawPointer(mutating: transform))
        }
        guard enabled == 0 else { throw .libraryUnavailable }
        guard let result = xmlSecEncCtxDecryptToBuffer(context, element.node), let bytes = xmlSecBufferGetData(result)
        else { throw .decryptionFailed }
        return Array(UnsafeBufferPointer(start: bytes, count: Int(xmlSecBufferGetSize(result))))
    }

    /// Parses the plaintext where the EncryptedAssertion is (so that the namespaces in scope there apply), with the
    /// same options as the response, and puts its one element in the EncryptedAssertion's place.
    private static func replace(_ encryptedAssertion: XMLElementView, byParsing plaintext: [UInt8]) throws(SAMLError)
        -> XMLElementView {
        var parsed: xmlNodePtr?
        let status = plaintext.withUnsafeBufferPointer {
            $0.withMemoryRebound(to: CChar.self) {
                xmlParseInNodeContext(encryptedAssertion.node, $0.baseAddress, Int32($0.count), SAMLXMLParser.options, &parsed)
            }
        }
        var elements: [xmlNodePtr] = []
        var node = parsed
        while let current = node {
            if current.pointee.type == XML_ELEMENT_NODE { elements.append(current) }
            node = current.pointee.next
        }
        guard status == XML_ERR_OK, elements.count == 1, let element = elements.first else {
            xmlFreeNodeList(parsed)
            throw .decryptionFailed
        }
        // Out of the parsed list (whose other nodes, whitespace, are freed), into the tree. Namespaces the element
        // took from the EncryptedAssertion are declared again where it now is before that node is freed.
        let rest = parsed == element ? element.pointee.next : parsed
        xmlUnlinkNode(element)
        xmlFreeNodeList(rest)
        let replaced = xmlReplaceNode(encryptedAssertion.node, element)
        let reconciled = xmlReconciliateNs(element.pointee.doc, element)
        xmlFreeNode(replaced)
        guard reconciled >= 0 else { throw .decryptionFailed }
        return XMLElementView(element)
    }
}
#endif
