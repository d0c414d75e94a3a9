/// Where accounts live: a project, or one of its tenants (Identity Platform's multi-tenancy).
///
/// Everything a project owns in the store (users, identities, sessions, codes, settings, limits) is keyed by one string,
/// the realm's `key`: the project's ID, or `{project}/tenants/{tenant}` for a tenant. A tenant is thereby a key in front
/// of what the project key scopes, and the store needs no tenant column: the same email or uid in two tenants is two
/// rows under two keys, and no query of one can reach the other. Project and tenant IDs never contain `/`.
public struct Realm: Hashable, Sendable, CustomStringConvertible {
    public let projectID: String
    /// The tenant, or nil for the project's own (default) realm.
    public let tenantID: String?

    public init(projectID: String, tenantID: String? = nil) {
        self.projectID = projectID
        self.tenantID = tenantID
    }

    /// The realm a store key names.
    public init(key: String) {
        // A project's key has no "/" (the common case, on every request): found on UTF-8 bytes, not Characters.
        guard key.utf8.contains(UInt8(ascii: "/")) else {
            self.init(projectID: key)
            return
        }
        let parts = key.split(separator: "/", maxSplits: 2, omittingEmptySubsequences: false)
        if parts.count == 3, parts[1] == Self.tenantsSegment {
            self.init(projectID: String(parts[0]), tenantID: String(parts[2]))
        } else {
            self.init(projectID: key)
        }
    }

    /// The key the realm's records are stored under.
    public var key: String { tenantID.map { "\(projectID)/\(Self.tenantsSegment)/\($0)" } ?? projectID }

    /// The resource name of a tenant (`projects/{p}/tenants/{t}`), as the v2 API names it.
    public var resourceName: String { "projects/\(key)" }

    /// The prefix every tenant key of `projectID` starts with.
    static func tenantKeyPrefix(of projectID: String) -> String { "\(projectID)/\(tenantsSegment)/" }

    private static let tenantsSegment = "tenants"

    public var description: String { key }

    /// Whether `id` may name a tenant: letters, digits and hyphens, starting with a letter, at most 64 characters
    /// (Identity Platform's IDs are of this shape; the check also keeps `/` out of store keys).
    static func isValidTenantID(_ id: String) -> Bool {
        guard let first = id.unicodeScalars.first, (1...64).contains(id.utf8.count), first.isASCIILetter else { return false }
        return id.unicodeScalars.allSatisfy { $0.isASCIILetter || ("0"..."9").contains($0) || $0 == "-" }
    }
}

private extension Unicode.Scalar {
    var isASCIILetter: Bool { ("a"..."z").contains(self) || ("A"..."Z").contains(self) }
}
