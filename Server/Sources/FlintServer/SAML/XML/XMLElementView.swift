#if canImport(CXMLSec)
import CXMLSec

/// The XML namespaces of SAML 2.0, XML-DSig and XML-Enc.
enum XMLNamespace {
    static let samlProtocol = "urn:oasis:names:tc:SAML:2.0:protocol"
    static let samlAssertion = "urn:oasis:names:tc:SAML:2.0:assertion"
    static let signature = "http://www.w3.org/2000/09/xmldsig#"
    static let encryption = "http://www.w3.org/2001/04/xmlenc#"
}

/// A read-only view of an element of a libxml2 document, valid while the document is: what SAMLResponseReader needs
/// of the tree, without copying it.
struct XMLElementView {
    let node: xmlNodePtr

    init(_ node: xmlNodePtr) { self.node = node }

    var localName: String { String(cString: node.pointee.name) }
    var namespace: String? { node.pointee.ns.flatMap { $0.pointee.href }.map { String(cString: $0) } }

    func isElement(_ namespace: String, _ localName: String) -> Bool {
        self.localName == localName && self.namespace == namespace
    }

    /// The parent, when it is an element (not the document).
    var parent: XMLElementView? {
        guard let parent = node.pointee.parent, parent.pointee.type == XML_ELEMENT_NODE else { return nil }
        return XMLElementView(parent)
    }

    /// The element children, in order.
    var children: [XMLElementView] {
        var children: [XMLElementView] = []
        var child = node.pointee.children
        while let current = child {
            if current.pointee.type == XML_ELEMENT_NODE { children.append(XMLElementView(current)) }
            child = current.pointee.next
        }
        return children
    }

    func children(_ namespace: String, _ localName: String) -> [XMLElementView] {
        children.filter { $0.isElement(namespace, localName) }
    }

    /// The child of that name, if any; more than one is malformed.
    func onlyChild(_ namespace: String, _ localName: String) throws(SAMLError) -> XMLElementView? {
        let found = children(namespace, localName)
        guard found.count <= 1 else { throw .malformed("more than one \(localName) in \(self.localName)") }
        return found.first
    }

    func requiredChild(_ namespace: String, _ localName: String) throws(SAMLError) -> XMLElementView {
        guard let child = try onlyChild(namespace, localName) else {
            throw .malformed("\(self.localName) has no \(localName)")
        }
        return child
    }

    /// This element and every element under it, in document order (iterative: no recursion on hostile depth).
    var subtree: [XMLElementView] {
        var elements: [XMLElementView] = []
        var stack = [self]
        while let element = stack.popLast() {
            elements.append(element)
            stack.append(contentsOf: element.children.reversed())
        }
        return elements
    }

    /// The value of the attribute of that name in no namespace (`xmlGetNoNsProp`'s rule: a prefixed `x:ID` is
    /// another attribute), read from its text nodes.
    func attribute(_ name: String) -> String? {
        var attribute = node.pointee.properties
        while let current = attribute {
            if current.pointee.ns == nil, String(cString: current.pointee.name) == name {
                return Self.text(of: current.pointee.children)
            }
            attribute = current.pointee.next
        }
        return nil
    }

    /// Every attribute as (name, value), namespaced ones (`xml:id`) included: for the check that an ID is unique.
    var attributes: [(name: String, value: String)] {
        var attributes: [(name: String, value: String)] = []
        var attribute = node.pointee.properties
        while let current = attribute {
            attributes.append((String(cString: current.pointee.name), Self.text(of: current.pointee.children)))
            attribute = current.pointee.next
        }
        return attributes
    }

    /// The element's whole text: all its text and CDATA children concatenated, comments skipped, never only the
    /// first text node. This defeats the 2018 comment truncation attack: `user@victim.com<!---->.evil.com`, which
    /// canonicalization without comments signs as `user@victim.com.evil.com`, reads as that too. Leading and
    /// trailing whitespace is dropped (pretty-printed IdP output).
    var text: String {
        Self.text(of: node.pointee.children).trimmingXMLWhitespace()
    }

    private static func text(of first: xmlNodePtr?) -> String {
        var bytes: [UInt8] = []
        var child = first
        while let current = child {
            if current.pointee.type == XML_TEXT_NODE || current.pointee.type == XML_CDATA_SECTION_NODE,
               let content = current.pointee.content {
                bytes.append(contentsOf: UnsafeBufferPointer(start: content, count: Int(xmlStrlen(content))))
            }
            child = current.pointee.next
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension String {
    /// The string as libxml2's `xmlChar*` (UTF-8, NUL-terminated), for the duration of `body`.
    func withXMLChars<Result>(_ body: (UnsafePointer<xmlChar>) -> Result) -> Result {
        withCString { body(UnsafeRawPointer($0).assumingMemoryBound(to: xmlChar.self)) }
    }

    /// Without XML's whitespace (space, tab, CR, LF) at either end.
    func trimmingXMLWhitespace() -> String {
        let whitespace: Set<Character> = [" ", "\t", "\n", "\r", "\r\n"]
        let isText = { (character: Character) in !whitespace.contains(character) }
        guard let first = firstIndex(where: isText), let last = lastIndex(where: isText) else { return "" }
        return String(self[first ... last])
    }
}
#endif
