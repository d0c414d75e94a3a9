import FlintWire
import Foundation
import Hummingbird

/// Users' sessions one by one, where Firebase can only end them all (`revokeRefreshTokens`): a session is what one
/// sign-in began (its refresh token; its ID tokens carry its ID as `sid`). The signed-in user lists theirs and ends one,
/// or all but the one asking (`v2/accounts/sessions:list|revoke` with their ID token, Flint extensions in the v2 style);
/// admins do the same for any user (`v2/projects/{p}[/tenants/{t}]/accounts/{uid}/sessions[/{sessionId}]`). An ended
/// session's refresh token is refused at once, on every node, and its ID tokens wherever Flint verifies them.
struct SessionRoutes: Sendable {
    let sessions: SessionStore
    /// The sessions other features keep for users (the OpenID provider's clients'), listed and ended with the sign-ins.
    let external: [any ExternalSessions]
    let idTokens: TokenService
    let projects: ProjectDirectory
    let clock: any FlintClock

    var endpoints: [Endpoint] {
        let routes = self
        let userSessions = Endpoint.projectPaths(version: "v2", "accounts/:localId/sessions")
        let userSession = Endpoint.projectPaths(version: "v2", "accounts/:localId/sessions/:sessionId")
        return [
            .json(Endpoint.identityToolkitPaths(version: "v2", "accounts/sessions:list")) {
                (body: UserSessionsRequest, caller: Caller) -> ListUserSessionsResponse in
                let verified = try await routes.idTokens.verifyIDToken(body.idToken, projectID: caller.projectID)
                return try await routes.list(realm: caller.projectID, localID: verified.user.localID, current: verified.claims.sid)
            },
            .json(Endpoint.identityToolkitPaths(version: "v2", "accounts/sessions:revoke")) {
                (body: UserSessionsRequest, caller: Caller) -> RevokeUserSessionsResponse in
                let verified = try await routes.idTokens.verifyIDToken(body.idToken, projectID: caller.projectID)
                let selection: SessionSelection
                switch (body.sessionId.flatMap { $0.isEmpty ? nil : $0 }, body.allButCurrent == true) {
                case (let sessionID?, false):
                    selection = .only(sessionID)
                case (nil, true):
                    guard let current = verified.claims.sid else {
                        throw FlintError(.invalidArgument, "allButCurrent needs the ID token of a session (one with a sid).")
                    }
                    selection = .allBut(current)
                default:
                    throw FlintError(.invalidArgument, "Name a sessionId, or ask for allButCurrent.")
                }
                return try await routes.end(realm: caller.projectID, localID: verified.user.localID, selection)
            },
            Endpoint(method: .get, paths: userSessions,
                     contract: EndpointContract(credentials: .admin, response: .json(ListUserSessionsResponse.self))) {
                request, context, callers in
                let caller = try await callers.resolve(request, context: context, access: .admin)
                return try JSONBody.response(try await routes.list(realm: caller.projectID,
                                                                   localID: context.parameters.get("localId") ?? "", current: nil))
            },
            Endpoint(method: .delete, paths: userSession,
                     contract: EndpointContract(credentials: .admin, response: .json(RevokeUserSessionsResponse.self))) {
                request, context, callers in
                let caller = try await callers.resolve(request, context: context, access: .admin)
                return try JSONBody.response(try await routes.end(
                    realm: caller.projectID, localID: context.parameters.get("localId") ?? "",
                    .only(context.parameters.get("sessionId") ?? "")))
            },
        ]
    }

    /// The user's live sessions, the most recently used first (a sign-in's before another kind's of the same time), the
    /// one asking (`current`) marked.
    func list(realm: String, localID: String, current: String?) async throws -> ListUserSessionsResponse {
        let tenant = Realm(key: realm).tenantID
        let stored = try await sessions.sessions(realm: realm, localID: localID)
        let live = try await projects.project(realm)?.settings.sessionPolicy?.live(stored, now: clock.seconds) ?? stored
        var listed = live.map { record in
            UserSession(
                sessionId: record.sessionID, signInProvider: record.signInProvider, secondFactor: record.secondFactor?.kind,
                createTime: UserSession.time(record.createdAt), lastRefreshTime: UserSession.time(record.lastUsedAt),
                createIpAddress: record.createdFrom.ipAddress, createUserAgent: record.createdFrom.userAgent,
                lastRefreshIpAddress: record.lastUsedFrom.ipAddress, lastRefreshUserAgent: record.lastUsedFrom.userAgent,
                tenantId: tenant, current: current.map { $0 == record.sessionID })
        }
        for kind in external {
            for session in try await kind.sessions(realm: realm, localID: localID) {
                var session = session
                session.current = current.map { _ in false }
                // The times are RFC 3339 to the second, all in UTC: their text sorts as they do.
                let place = listed.firstIndex { $0.lastRefreshTime < session.lastRefreshTime } ?? listed.endIndex
                listed.insert(session, at: place)
            }
        }
        return ListUserSessionsResponse(sessions: listed)
    }

    /// Ends the sessions `selection` names, of every kind; a named session that is not the user's is `SESSION_NOT_FOUND`.
    func end(realm: String, localID: String, _ selection: SessionSelection) async throws -> RevokeUserSessionsResponse {
        var ended = try await sessions.endSessions(realm: realm, localID: localID, selection, at: clock.seconds)
        for kind in external {
            if case .only = selection, !ended.isEmpty { break }
            ended += try await kind.end(realm: realm, localID: localID, selection)
        }
        if case .only = selection, ended.isEmpty { throw FlintError(.sessionNotFound) }
        return RevokeUserSessionsResponse(revokedSessionIds: ended)
    }
}
