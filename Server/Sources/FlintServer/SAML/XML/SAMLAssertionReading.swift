#if canImport(CXMLSec)
import Foundation

extension SAMLAssertionData {
    /// The data of an assertion whose signature (or its Response's) is verified, read from its element.
    init(_ assertion: XMLElementView, id: String, isSigned: Bool, wasEncrypted: Bool) throws(SAMLError) {
        let saml = XMLNamespace.samlAssertion
        let subject = try assertion.requiredChild(saml, "Subject")
        let nameID = try subject.requiredChild(saml, "NameID")
        guard !nameID.text.isEmpty else { throw .malformed("the NameID is empty") }
        let conditions = try assertion.onlyChild(saml, "Conditions")
        let authnStatement = assertion.children(saml, "AuthnStatement").first
        var attributes: [String: [String]] = [:]
        for statement in assertion.children(saml, "AttributeStatement") {
            for attribute in statement.children(saml, "Attribute") {
                guard let name = attribute.attribute("Name") else { throw .malformed("an Attribute has no Name") }
                attributes[name, default: []] += attribute.children(saml, "AttributeValue").map(\.text)
            }
        }
        self.init(
            id: id, issuer: try assertion.requiredChild(saml, "Issuer").text, isSigned: isSigned,
            wasEncrypted: wasEncrypted, nameID: nameID.text, nameIDFormat: nameID.attribute("Format"),
            subjectConfirmations: try subject.children(saml, "SubjectConfirmation").map {
                (confirmation) throws(SAMLError) in try SAMLSubjectConfirmation(confirmation)
            },
            notBefore: try conditions?.date("NotBefore"), notOnOrAfter: try conditions?.date("NotOnOrAfter"),
            audienceRestrictions: conditions?.children(saml, "AudienceRestriction").map {
                $0.children(saml, "Audience").map(\.text)
            } ?? [],
            authnInstant: try authnStatement?.date("AuthnInstant"), sessionIndex: authnStatement?.attribute("SessionIndex"),
            attributes: attributes)
    }
}

extension SAMLSubjectConfirmation {
    init(_ confirmation: XMLElementView) throws(SAMLError) {
        guard let method = confirmation.attribute("Method") else { throw .malformed("a SubjectConfirmation has no Method") }
        let data = try confirmation.onlyChild(XMLNamespace.samlAssertion, "SubjectConfirmationData")
        self.init(
            method: method, recipient: data?.attribute("Recipient"), notBefore: try data?.date("NotBefore"),
            notOnOrAfter: try data?.date("NotOnOrAfter"), inResponseTo: data?.attribute("InResponseTo"))
    }
}

extension XMLElementView {
    /// The xs:dateTime attribute of that name, if present; present and not a UTC xs:dateTime is malformed.
    func date(_ name: String) throws(SAMLError) -> Date? {
        guard let text = attribute(name) else { return nil }
        guard let date = XMLDateTime.date(text) else { throw .malformed("\(localName)'s \(name) is not a UTC xs:dateTime") }
        return date
    }
}
#endif
