import FlintAdmin
import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
import Testing

/// FlintAdmin's calls of the protected resources of Flint's OpenID provider (RFC 8707) against a live production
/// server: the admin API's `v2/projects/{p}/oauthResources`, with the server's codes under FlintAdmin's names.
@Suite struct OAuthResourceAdminTests {
    static let uri = "https://mcp.example.com"

    @Test func aResourcesLifeThroughTheAdminSDK() async throws {
        try await LiveFlintTests.withProduction(.sqlite) { auth, server, _ in
            #expect(try await auth.oauthResources().isEmpty)
            let created = try await auth.createOAuthResource(OAuthResource(
                resource: Self.uri, displayName: "Example MCP", scopes: ["mcp:tools", "mcp:resources"], allowedClientIds: ["client-a"]))
            let resourceID = try #require(created.resourceId)
            #expect(created.name == "projects/\(server.projectID)/oauthResources/\(resourceID)")
            #expect(created.resource == Self.uri && created.displayName == "Example MCP" && created.createTime != nil)
            #expect(created.scopes == ["mcp:tools", "mcp:resources"] && created.allowedClientIds == ["client-a"])
            #expect(try await auth.oauthResource(resourceID) == created)
            #expect(try await auth.oauthResources() == [created])

            // Refused in the resources' own codes: a URI registered already, one that is not https, OpenID's scopes.
            await expectAdminError(.invalidOAuthResource) {
                try await auth.createOAuthResource(OAuthResource(resource: Self.uri, displayName: "Again"))
            }
            await expectAdminError(.invalidOAuthResource) {
                try await auth.createOAuthResource(OAuthResource(resource: "http://api.example.com", displayName: "Plain"))
            }
            await expectAdminError(.invalidOAuthResource) {
                try await auth.createOAuthResource(OAuthResource(resource: "https://api.example.com", displayName: "Own", scopes: ["openid"]))
            }

            // The mask names what changes: a named field left nil is cleared, an unnamed one set is not applied.
            let opened = try await auth.updateOAuthResource(resourceID, OAuthResource(displayName: "Ignored"),
                                                            updateMask: ["allowedClientIds"])
            #expect(opened.allowedClientIds == [] && opened.displayName == "Example MCP" && opened.scopes == created.scopes)
            // Without a mask, the fields the change sets.
            let renamed = try await auth.updateOAuthResource(resourceID, OAuthResource(displayName: "Renamed", scopes: ["mcp:tools"]))
            #expect(renamed.displayName == "Renamed" && renamed.scopes == ["mcp:tools"] && renamed.allowedClientIds == [])
            #expect(try await auth.oauthResource(resourceID).displayName == "Renamed")
            await expectAdminError(.invalidOAuthResource) {
                try await auth.updateOAuthResource(resourceID, OAuthResource(resource: "https://other.example.com"))
            }

            // A tenant's client acts on its project's resources.
            let tenantID = try #require(try await auth.createTenant(Tenant(displayName: "Acme")).tenantId)
            #expect(try await auth.tenant(tenantID).oauthResources().map(\.resourceId) == [resourceID])

            try await auth.deleteOAuthResource(resourceID)
            #expect(try await auth.oauthResources().isEmpty)
            await expectAdminError(.oauthResourceNotFound) { try await auth.oauthResource(resourceID) }
            await expectAdminError(.oauthResourceNotFound) { try await auth.deleteOAuthResource(resourceID) }
            await expectAdminError(.oauthResourceNotFound) {
                try await auth.updateOAuthResource(resourceID, OAuthResource(displayName: "x"))
            }
        }
    }
}
