import FlintWire
import Foundation

/// The project's Identity Platform config (`/v2/projects/{p}/config`): sign-in methods, email privacy, multi-factor,
/// password policy, SMS regions, … (firebase-admin's `ProjectConfig`), as the v2 API gives it.
public typealias ProjectConfig = FlintWire.ProjectConfig

extension AdminAuth {
    private func configPath() throws -> String {
        guard tenantID == nil else { throw AdminError(.invalidArgument, "the project config is managed by the project's client") }
        return "/v2/projects/\(FormURLEncoding.escape(projectID))/config"
    }

    public func projectConfig() async throws -> ProjectConfig {
        try await connection.call("GET", try configPath(), as: ProjectConfig.self)
    }

    /// Changes the fields `updateMask` names (dotted paths, `signIn.email.enabled`); without one, the fields `change`
    /// sets.
    public func updateProjectConfig(_ change: ProjectConfig, updateMask: [String]? = nil) async throws -> ProjectConfig {
        try await connection.call("PATCH", try configPath() + Self.query(updateMask: updateMask ?? change.presentFieldPaths),
                                  body: change, as: ProjectConfig.self)
    }
}
