import Foundation
import HTTPTypes
import Hummingbird

/// Who is calling: the project the request acts on, and whether it carries admin credentials.
public struct Caller: Sendable {
    public let project: Project
    /// True for Admin SDK calls (in emulator mode: `Authorization: Bearer owner`).
    public let isAdmin: Bool
    /// The client's IP address (the peer, or the first `X-Forwarded-For` hop when the server trusts it).
    public var clientIP: String? = nil
    /// The client's language (`X-Firebase-Locale`, the SDKs' `languageCode`).
    public var locale: String? = nil
    /// The API key the request carried, if any (emailed links name it, as Firebase's do).
    public var apiKey: String? = nil

    public var projectID: String { project.id }
}

/// How an endpoint may be called.
enum Access: Sendable {
    /// An API key of the project (any non-empty key in emulator mode) or admin credentials.
    case apiKey
    /// Admin credentials only; the project comes from the path.
    case admin
}

/// Resolves the caller of a request from its API key, bearer token and path.
struct CallerResolver: Sendable {
    let projects: ProjectDirectory
    let emulator: Bool
    let defaultProjectID: String
    var trustForwardedFor = false

    func resolve(_ request: Request, context: FlintRequestContext, access: Access) async throws -> Caller {
        let pathProjectID = context.parameters.get("projectId")
        let isAdmin = try adminCredentials(in: request)
        let key = request.uri.queryParameters.get("key") ?? request.headers[Self.apiKeyHeader]
        // Naming a project in the path is for admin callers only.
        if access == .admin || pathProjectID != nil, !isAdmin { throw FlintError.adminRequired }
        if !isAdmin, key?.isEmpty ?? true { throw FlintError.missingAPIKey }

        let projectID: String
        if let pathProjectID {
            projectID = pathProjectID
        } else if emulator || isAdmin {
            projectID = defaultProjectID
        } else {
            guard let key, let owner = try await projects.projectID(forAPIKey: key) else { throw FlintError.invalidAPIKey }
            projectID = owner
        }
        // The emulator serves any project id it is asked about, creating it on first use.
        let project = emulator ? try await projects.ensureProject(projectID) : try await projects.project(projectID)
        guard let project else { throw FlintError(.projectNotFound, status: .notFound) }
        return Caller(project: project, isAdmin: isAdmin, clientIP: clientIP(request, context),
                      locale: request.headers[Self.localeHeader], apiKey: key)
    }

    private func clientIP(_ request: Request, _ context: FlintRequestContext) -> String? {
        if trustForwardedFor, let forwarded = request.headers[Self.forwardedForHeader],
           let first = forwarded.split(separator: ",").first?.trimmingCharacters(in: .whitespaces), !first.isEmpty {
            return first
        }
        return context.remoteAddress?.ipAddress
    }

    /// Whether the request carries admin credentials. Emulator mode accepts `Bearer owner` (and Google
    /// OAuth tokens, `ya29.…`) as the official emulator does. Production admin credentials (service
    /// accounts) are not available yet, so any bearer token there is refused.
    private func adminCredentials(in request: Request) throws -> Bool {
        guard let authorization = request.headers[.authorization] else { return false }
        let parts = authorization.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { throw Self.unauthenticated }
        let token = parts[1]
        if emulator, token.lowercased() == "owner" || token.hasPrefix("ya29.") { return true }
        throw Self.unauthenticated
    }

    private static let apiKeyHeader = HTTPField.Name("x-goog-api-key")!
    private static let localeHeader = HTTPField.Name("x-firebase-locale")!
    private static let forwardedForHeader = HTTPField.Name("x-forwarded-for")!
    private static let unauthenticated = FlintError(
        sentence: "Request had invalid authentication credentials.", status: .unauthorized, reason: "unauthorized")
}
