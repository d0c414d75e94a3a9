#if canImport(CXMLSec)
import CXMLSec
import Foundation

/// Rule 1 of `SAMLResponseReader`: libxml2 reads the response, and refuses a DOCTYPE before reading any of it.
enum SAMLXMLParser {
    /// No network (`XML_PARSE_NONET`), and libxml2's own error printing off. Deliberately absent: `XML_PARSE_NOENT`
    /// (entity substitution), `XML_PARSE_DTDLOAD`/`DTDATTR`/`DTDVALID` (reading a DTD), `XML_PARSE_XINCLUDE`, and
    /// `XML_PARSE_HUGE` (which would lift libxml2's limits on depth and text size).
    static let options = Int32(XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue | XML_PARSE_NOWARNING.rawValue)

    /// The parsed document, which the caller frees (`xmlFreeDoc`).
    ///
    /// A DOCTYPE is refused from the SAX event that announces it, which libxml2 sends before it reads the internal
    /// subset or anything the DOCTYPE names: no entity of it (external ones like `/etc/passwd`, or the billion laughs'
    /// nested ones) is ever declared, let alone expanded.
    static func parse(_ xml: Data) throws(SAMLError) -> xmlDocPtr {
        silenceErrorsOnThisThread()
        guard !xml.isEmpty, xml.count <= Int(Int32.max) else { throw .malformed("not XML") }
        let parsed: Result<xmlDocPtr, SAMLError> = xml.withUnsafeBytes { buffer in
            guard let context = xmlCreateMemoryParserCtxt(
                buffer.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(buffer.count))
            else { return .failure(.malformed("not XML")) }
            defer { xmlFreeParserCtxt(context) }
            xmlCtxtUseOptions(context, options)
            // This context's own SAX handler (xmlCreateMemoryParserCtxt allocates one per context). libxml2 passes the
            // context as the callback's user data; stopping is the only way this parse ends with XML_ERR_USER_STOP.
            context.pointee.sax.pointee.internalSubset = { userData, _, _, _ in
                xmlStopParser(userData?.assumingMemoryBound(to: xmlParserCtxt.self))
            }
            let status = xmlParseDocument(context)
            let document = context.pointee.myDoc
            if context.pointee.errNo == Int32(XML_ERR_USER_STOP.rawValue) {
                xmlFreeDoc(document)
                return .failure(.doctypeRefused)
            }
            guard status == 0, context.pointee.wellFormed != 0, let document else {
                xmlFreeDoc(document)
                return .failure(.malformed("not well-formed XML"))
            }
            return .success(document)
        }
        return try parsed.get()
    }

    /// libxml2 prints errors no parser context catches (its C14N's, under xmlsec) to stderr, through a handler it
    /// keeps per thread. Each read routes this thread's to nothing first: failures come back as SAMLErrors.
    private static func silenceErrorsOnThisThread() {
        xmlSetStructuredErrorFunc(nil) { _, _ in }
    }
}
#endif
