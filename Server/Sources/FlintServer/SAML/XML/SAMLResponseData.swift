import Foundation

/// What `SAMLResponseReader.read` found in a response whose assertion a verified signature covers. Nothing here is
/// checked against the SP's expectations yet (audience, times, InResponseTo, issuer): that is the SP flow's part.
struct SAMLResponseData: Sendable, Equatable {
    var responseID: String
    /// The Response's own `<Issuer>`, if any.
    var issuer: String?
    var destination: String?
    var inResponseTo: String?
    /// The top-level `StatusCode/@Value`.
    var statusCode: String
    /// Whether the Response carried a signature, verified (a failing one refuses the whole response).
    var isResponseSigned: Bool
    var assertion: SAMLAssertionData
}

struct SAMLAssertionData: Sendable, Equatable {
    var id: String
    var issuer: String
    /// Whether the assertion carried its own signature, verified.
    var isSigned: Bool
    /// Whether it came as an EncryptedAssertion.
    var wasEncrypted: Bool
    var nameID: String
    var nameIDFormat: String?
    var subjectConfirmations: [SAMLSubjectConfirmation]
    /// The Conditions' NotBefore and NotOnOrAfter.
    var notBefore: Date?
    var notOnOrAfter: Date?
    /// Each `<AudienceRestriction>`'s `<Audience>` values.
    var audienceRestrictions: [[String]]
    var authnInstant: Date?
    var sessionIndex: String?
    /// The AttributeStatement: each attribute's Name and the text of its AttributeValues, in order (an attribute
    /// named twice has both lists' values).
    var attributes: [String: [String]]
}

/// A `<SubjectConfirmation>`: its Method and its SubjectConfirmationData's attributes.
struct SAMLSubjectConfirmation: Sendable, Equatable {
    var method: String
    var recipient: String?
    var notBefore: Date?
    var notOnOrAfter: Date?
    var inResponseTo: String?
}
