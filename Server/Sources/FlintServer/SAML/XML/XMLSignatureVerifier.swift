#if canImport(CXMLSec)
import CXMLSec

/// Rule 4 of `SAMLResponseReader`: an enveloped XML signature, checked by xmlsec with the configured certificates'
/// keys only.
enum XMLSignatureVerifier {
    /// The algorithms accepted, by URI, with xmlsec's transform for each. They are read from the signature first, to
    /// name a refused one (`weakAlgorithm`, `unsupportedAlgorithm`), and then xmlsec is allowed these and no other,
    /// its own enforcement. Exclusive C14N with comments is accepted too: comments never change what is read (see
    /// `XMLElementView.text`).
    static var canonicalizations: [String: xmlSecTransformId] {
        [
            "http://www.w3.org/2001/10/xml-exc-c14n#": xmlSecTransformExclC14NGetKlass(),
            "http://www.w3.org/2001/10/xml-exc-c14n#WithComments": xmlSecTransformExclC14NWithCommentsGetKlass(),
        ]
    }
    static let envelopedSignature = "http://www.w3.org/2000/09/xmldsig#enveloped-signature"
    static var signatureMethods: [String: xmlSecTransformId] {
        [
            "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256": xmlSecOpenSSLTransformRsaSha256GetKlass(),
            "http://www.w3.org/2001/04/xmldsig-more#rsa-sha384": xmlSecOpenSSLTransformRsaSha384GetKlass(),
            "http://www.w3.org/2001/04/xmldsig-more#rsa-sha512": xmlSecOpenSSLTransformRsaSha512GetKlass(),
            "http://www.w3.org/2001/04/xmldsig-more#ecdsa-sha256": xmlSecOpenSSLTransformEcdsaSha256GetKlass(),
            "http://www.w3.org/2001/04/xmldsig-more#ecdsa-sha384": xmlSecOpenSSLTransformEcdsaSha384GetKlass(),
            "http://www.w3.org/2001/04/xmldsig-more#ecdsa-sha512": xmlSecOpenSSLTransformEcdsaSha512GetKlass(),
        ]
    }
    static var digestMethods: [String: xmlSecTransformId] {
        [
            "http://www.w3.org/2001/04/xmlenc#sha256": xmlSecOpenSSLTransformSha256GetKlass(),
            "http://www.w3.org/2001/04/xmldsig-more#sha384": xmlSecOpenSSLTransformSha384GetKlass(),
            "http://www.w3.org/2001/04/xmlenc#sha512": xmlSecOpenSSLTransformSha512GetKlass(),
        ]
    }
    /// Broken algorithms, refused by name: SHA-1 and MD5 signatures and digests, RSA PKCS#1 v1.5 key transport.
    static let weakAlgorithms: Set<String> = [
        "http://www.w3.org/2000/09/xmldsig#rsa-sha1", "http://www.w3.org/2000/09/xmldsig#dsa-sha1",
        "http://www.w3.org/2000/09/xmldsig#hmac-sha1", "http://www.w3.org/2001/04/xmldsig-more#ecdsa-sha1",
        "http://www.w3.org/2000/09/xmldsig#sha1", "http://www.w3.org/2001/04/xmldsig-more#rsa-md5",
        "http://www.w3.org/2001/04/xmldsig-more#md5", "http://www.w3.org/2001/04/xmlenc#rsa-1_5",
    ]

    /// Verifies `signature`, a direct child of `element` whose registered XML ID is `id`, with the first of
    /// `certificates` (DER) that verifies it; throws if none does.
    static func verify(_ signature: XMLElementView, of element: XMLElementView, id: String, in document: xmlDocPtr,
                       certificates: [[UInt8]]) throws(SAMLError) {
        try checkShape(of: signature, id: id)
        for certificate in certificates {
            guard let context = xmlSecDSigCtxCreate(nil) else { throw .libraryUnavailable }
            defer { xmlSecDSigCtxDestroy(context) }
            // The key comes from the configured certificate alone: with `signKey` set and no keys manager, xmlsec
            // never looks at the signature's KeyInfo (an attacker's certificate there is inert).
            guard let key = certificate.withUnsafeBufferPointer({
                xmlSecOpenSSLAppKeyLoadMemory($0.baseAddress, XMLSecSize($0.count), xmlSecKeyDataFormatCertDer, nil, nil, nil)
            }) else { continue }  // a key xmlsec cannot use (say Ed25519) verifies nothing
            context.pointee.signKey = key  // the context owns it now
            try restrict(context)
            // And were it read, KeyInfo could yield a key name only: no X509Data, KeyValue or RetrievalMethod.
            let keyNamesOnly = withUnsafeMutablePointer(to: &context.pointee.keyInfoReadCtx.enabledKeyData) {
                xmlSecPtrListAdd($0, UnsafeMutableRawPointer(mutating: xmlSecKeyDataNameGetKlass()))
            }
            guard keyNamesOnly == 0 else { throw .libraryUnavailable }
            guard xmlSecDSigCtxVerify(context, signature.node) == 0,
                  context.pointee.status == xmlSecDSigStatusSucceeded
            else { continue }
            try confirmReference(of: context, isTo: element, id: id, in: document)
            return
        }
        throw .badSignature
    }

    /// The signature as SAML uses it, read before xmlsec sees it: one SignedInfo with one Reference to `#id` (the
    /// signature's parent), only accepted algorithms, no Object (where wrapping attacks hide signed copies).
    private static func checkShape(of signature: XMLElementView, id: String) throws(SAMLError) {
        let ds = XMLNamespace.signature
        for child in signature.children where !["SignedInfo", "SignatureValue", "KeyInfo"].contains(child.localName)
            || child.namespace != ds {
            throw .wrappedOrAmbiguous("a Signature holds a \(child.localName)")
        }
        _ = try signature.requiredChild(ds, "SignatureValue")
        let signedInfo = try signature.requiredChild(ds, "SignedInfo")
        try accept(signedInfo.requiredChild(ds, "CanonicalizationMethod"), among: canonicalizations)
        try accept(signedInfo.requiredChild(ds, "SignatureMethod"), among: signatureMethods)
        let references = signedInfo.children(ds, "Reference")
        guard references.count == 1, let reference = references.first else {
            throw .wrappedOrAmbiguous("a signature has \(references.count) references, not one")
        }
        if let transforms = try reference.onlyChild(ds, "Transforms") {
            for transform in transforms.children {
                guard transform.isElement(ds, "Transform") else { throw .malformed("Transforms holds a \(transform.localName)") }
                let algorithm = transform.attribute("Algorithm") ?? ""
                guard algorithm == envelopedSignature || canonicalizations[algorithm] != nil else {
                    throw .unsupportedAlgorithm(clipped(algorithm))
                }
            }
        }
        try accept(reference.requiredChild(ds, "DigestMethod"), among: digestMethods)
        guard reference.attribute("URI") == "#" + id else {
            throw .wrappedOrAmbiguous("a signature's reference is not to the element it is in")
        }
    }

    private static func accept(_ method: XMLElementView, among accepted: [String: xmlSecTransformId]) throws(SAMLError) {
        let algorithm = method.attribute("Algorithm") ?? ""
        if weakAlgorithms.contains(algorithm) { throw .weakAlgorithm(algorithm) }
        guard accepted[algorithm] != nil else { throw .unsupportedAlgorithm(clipped(algorithm)) }
    }

    /// xmlsec may use the accepted transforms only, resolve same-document references only (`#id`: no files, no
    /// URLs, not the whole document) and skips Manifests.
    private static func restrict(_ context: xmlSecDSigCtxPtr) throws(SAMLError) {
        context.pointee.enabledReferenceUris = xmlSecTransformUriType(xmlSecTransformUriTypeSameDocument)
        context.pointee.flags |= UInt32(XMLSEC_DSIG_FLAGS_IGNORE_MANIFESTS)
        let referenceTransforms = Array(canonicalizations.values) + [xmlSecTransformEnvelopedGetKlass()]
            + Array(digestMethods.values)
        let signatureTransforms = Array(canonicalizations.values) + Array(signatureMethods.values)
        for transform in referenceTransforms where xmlSecDSigCtxEnableReferenceTransform(context, transform) != 0 {
            throw .libraryUnavailable
        }
        for transform in signatureTransforms where xmlSecDSigCtxEnableSignatureTransform(context, transform) != 0 {
            throw .libraryUnavailable
        }
    }

    /// After xmlsec: its one reference verified, and the node it resolved `#id` to (the registered ID's owner) is the
    /// signature's parent. With IDs unique (rule 3) this holds by construction; it is checked anyway.
    private static func confirmReference(of context: xmlSecDSigCtxPtr, isTo element: XMLElementView, id: String,
                                         in document: xmlDocPtr) throws(SAMLError) {
        let confirmed = withUnsafeMutablePointer(to: &context.pointee.signedInfoReferences) { references in
            guard xmlSecPtrListGetSize(references) == 1,
                  let item = xmlSecPtrListGetItem(references, 0) else { return false }
            let reference = item.assumingMemoryBound(to: xmlSecDSigReferenceCtx.self).pointee
            guard reference.status == xmlSecDSigStatusSucceeded, let uri = reference.uri else { return false }
            return String(cString: uri) == "#" + id
        }
        guard confirmed, let owner = id.withXMLChars({ xmlGetID(document, $0) }), owner.pointee.parent == element.node
        else { throw .wrappedOrAmbiguous("the signed element is not the signature's parent") }
    }

    /// At most 100 characters of a value from the response, for a message.
    static func clipped(_ text: String) -> String {
        text.count > 100 ? String(text.prefix(100)) + "…" : text
    }
}
#endif
