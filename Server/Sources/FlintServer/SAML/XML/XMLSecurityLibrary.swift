#if canImport(CXMLSec)
import CXMLSec

/// libxml2, xmlsec and xmlsec's OpenSSL engine, started once per process: the one global of SAML/XML.
///
/// It is a global because these libraries want it so: `xmlInitParser`, `xmlSecInit` and `xmlSecOpenSSLAppInit` /
/// `xmlSecOpenSSLInit` fill process-wide tables (libxml2's parser globals, xmlsec's registries of transforms and key
/// data) and are to be called once, before threads use the libraries. Afterwards both are safe to use from
/// concurrent requests as long as no document or context is shared, which `SAMLResponseReader` never does (each
/// call parses its own document and makes its own contexts and keys); OpenSSL 3, under xmlsec's OpenSSL engine, needs
/// no locking callbacks. A Swift static's initializer runs exactly once, whichever thread asks first.
enum XMLSecurityLibrary {
    /// Throws `libraryUnavailable` when the libraries could not be started.
    static func ready() throws(SAMLError) {
        guard started else { throw .libraryUnavailable }
    }

    private static let started: Bool = {
        xmlInitParser()
        guard xmlSecInit() == 0 else { return false }
        // The headers this was compiled with and the library loaded agree (the layout of xmlsec's structures).
        guard xmlSecCheckVersionExt(
            XMLSEC_VERSION_MAJOR, XMLSEC_VERSION_MINOR, XMLSEC_VERSION_SUBMINOR, xmlSecCheckVersionABICompatible) == 1
        else { return false }
        guard agreesOnLayout() else { return false }
        // Failures come back as SAMLErrors; xmlsec's default error callback would also print each one to stderr.
        xmlSecErrorsDefaultCallbackEnableOutput(0)
        return xmlSecOpenSSLAppInit(nil) == 0 && xmlSecOpenSSLInit() == 0
    }()

    /// Whether xmlsec's structures as compiled here (CXMLSec's shim sets XMLSEC_NO_SIZE_T) are the library's: a
    /// buffer's `size` field, read through the headers, is the size the library reports.
    private static func agreesOnLayout() -> Bool {
        guard let buffer = xmlSecBufferCreate(0) else { return false }
        defer { xmlSecBufferDestroy(buffer) }
        let bytes: [UInt8] = [1, 2, 3, 4, 5]
        return xmlSecBufferSetData(buffer, bytes, XMLSecSize(bytes.count)) == 0
            && buffer.pointee.size == xmlSecBufferGetSize(buffer) && xmlSecBufferGetSize(buffer) == 5
    }
}

/// xmlsec's `xmlSecSize`, a macro Swift cannot import: `unsigned int` with XMLSEC_NO_SIZE_T (see CXMLSec's shim).
typealias XMLSecSize = UInt32
#endif
