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

    static func changedFields(_ old: [String: Any], _ new: [String: Any], depth: Int = 2, prefix: String = "") -> [String] {
        Set(old.keys).union(new.keys).sorted().flatMap { key -> [String] in
            let (before, after) = (old[key], new[key])
            if let before = before as? [String: Any], let after = after as? [String: Any], depth > 1 {
                let inner = changedFields(before, after, depth: depth - 1, prefix: prefix + key + ".")
                return inner
            }
            return same(before, after) ? [] : [prefix + key]
        }
    }

    private static func same(_ lhs: Any?, _ rhs: Any?) -> Bool {
        switch (lhs, rhs) {
        case (nil, nil): true
        case (let lhs?, let rhs?): NSDictionary(dictionary: ["v": lhs]).isEqual(to: ["v": rhs])
        default: false
        }
    }

    private static func object(_ json: String) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(json.utf8))) as? [String: Any]
    }
}
