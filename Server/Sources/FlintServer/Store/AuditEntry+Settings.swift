import FlintWire
import Foundation

/// The events of changes to realms' settings, made from the stored JSON before and after.
extension AuditEntry {
    /// A project or tenant made: a tenant's event is its project's.
    static func created(realm key: String) -> AuditEntry {
        let realm = Realm(key: key)
        guard let tenantID = realm.tenantID else { return AuditEntry(.projectCreated, realm: key) }
        return AuditEntry(.tenantCreated, realm: realm.projectID, detail: ["tenantId": tenantID])
    }

    static func deleted(realm key: String) -> AuditEntry {
        let realm = Realm(key: key)
        return AuditEntry(.tenantDeleted, realm: realm.projectID, detail: realm.tenantID.map { ["tenantId": $0] })
    }

    /// A change of `realm`'s settings from `old` to `new` (JSON objects), naming the fields that differ: a top-level
    /// key, or `key.member` for a member of an object that changed (`signIn.email`, `mfa.state`), never a value.
    static func configChanged(realm: String, from old: String?, to new: String) -> AuditEntry {
        AuditEntry(.configChanged, realm: realm, fields: changedFields(old.flatMap(object) ?? [:], object(new) ?? [:]))
    }

    /// Compared as `JSONValue`s, not as Foundation's objects: on Linux, `NSDictionary` equality holds no two booleans
    /// equal, which named every boolean setting as changed.
    static func changedFields(_ old: [String: JSONValue], _ new: [String: JSONValue], depth: Int = 2, prefix: String = "") -> [String] {
        Set(old.keys).union(new.keys).sorted().flatMap { key -> [String] in
            let (before, after) = (old[key], new[key])
            if let before = before?.objectValue, let after = after?.objectValue, depth > 1 {
                return changedFields(before, after, depth: depth - 1, prefix: prefix + key + ".")
            }
            return before == after ? [] : [prefix + key]
        }
    }

    private static func object(_ json: String) -> [String: JSONValue]? {
        (try? JSONDecoder().decode(JSONValue.self, from: Data(json.utf8)))?.objectValue
    }
}
