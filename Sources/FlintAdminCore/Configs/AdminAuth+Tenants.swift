import FlintWire
import Foundation

/// A tenant of the project (Identity Platform's multi-tenancy), as the v2 API gives it: `tenantId`, `displayName`,
/// `allowPasswordSignup`, `enableEmailLinkSignin`, `mfaConfig`, `testPhoneNumbers`, … (firebase-admin's `Tenant`), and
/// Flint's `sessionPolicy`, the tenant's own (nil: its project's applies; an empty one given to `updateTenant` clears it).
public typealias Tenant = TenantConfig

extension AdminAuth {
    /// `/v2/projects/{p}/tenants`; tenants are the project's, so a tenant's client has none.
    private func tenantsPath() throws -> String {
        guard tenantID == nil else { throw AdminError(.invalidArgument, "tenants are managed by the project's client") }
        return "/v2/projects/\(FormURLEncoding.escape(projectID))/tenants"
    }

    public func tenant(id: String) async throws -> Tenant {
        try await connection.call("GET", try tenantPath(id), as: Tenant.self)
    }

    /// `/v2/projects/{p}/tenants/{id}`, for an ID that is not empty.
    private func tenantPath(_ id: String) throws -> String {
        try Check.tenantID(id)
        return try tenantsPath() + "/" + FormURLEncoding.escape(id)
    }

    /// A new tenant; the server picks its id.
    public func createTenant(_ tenant: Tenant) async throws -> Tenant {
        try await connection.call("POST", try tenantsPath(), body: tenant, as: Tenant.self)
    }

    /// Changes the fields `change` sets (and, with `updateMask`, exactly those it names).
    public func updateTenant(id: String, _ change: Tenant, updateMask: [String]? = nil) async throws -> Tenant {
        let path = try tenantPath(id) + Self.query(updateMask: updateMask ?? change.setFields)
        return try await connection.call("PATCH", path, body: change, as: Tenant.self)
    }

    public func deleteTenant(id: String) async throws {
        _ = try await connection.call("DELETE", try tenantPath(id), as: JSONValue.self)
    }

    /// The tenants in pages of up to `pageSize` (1 to 1,000; out of range is `invalidArgument`, thrown by the first
    /// page before anything is sent).
    public func listTenants(pageSize: Int = AdminAuth.maximumBatch) -> Pages<Tenant> {
        Pages { pageToken in
            try Check.pageSize(pageSize, atMost: Self.maximumBatch)
            let query = Self.pageQuery(pageSize: pageSize, pageToken: pageToken)
            let page = try await self.connection.call("GET", try self.tenantsPath() + query, as: ListTenantsResponse.self)
            return (page.tenants, page.nextPageToken)
        }
    }

    /// `?pageSize=n[&pageToken=t]`, the v2 API's paging.
    static func pageQuery(pageSize: Int, pageToken: String?) -> String {
        "?pageSize=\(pageSize)" + (pageToken.map { "&pageToken=" + FormURLEncoding.escape($0) } ?? "")
    }

    /// `?updateMask=a,b` (nothing for no fields).
    static func query(updateMask fields: [String]) -> String {
        fields.isEmpty ? "" : "?updateMask=" + FormURLEncoding.escape(fields.joined(separator: ","))
    }
}

extension Encodable {
    /// The dotted paths of the fields this value sets (`displayName`, `mfaConfig.state`): the update mask of a change
    /// that names none, as firebase-admin makes it. Objects are followed down to their leaves, except maps keyed by
    /// data (`testPhoneNumbers`), which are replaced whole; the resource's `name` is no field to change.
    var setFields: [String] {
        guard let data = try? JSONEncoder().encode(self), case .object(let fields)? = try? JSONDecoder().decode(JSONValue.self, from: data)
        else { return [] }
        func paths(_ fields: [String: JSONValue], under prefix: String) -> [String] {
            fields.flatMap { name, value -> [String] in
                let path = prefix + name
                if case .object(let members) = value, !members.isEmpty, name != "testPhoneNumbers" {
                    return paths(members, under: path + ".")
                }
                return [path]
            }
        }
        return paths(fields.filter { $0.key != "name" }, under: "").sorted()
    }
}
