import FlintWire
import Hummingbird

/// The account operations' addresses, user-facing and admin (`projects/{p}/…`).
extension AccountService {
    /// `federated` answers `createAuthUri` when it names a provider (the redirect flow).
    func endpoints(callers: CallerResolver, actionCodes: ActionCodeService, federated: FederatedService) -> [Endpoint] {
        [
            .json(Endpoint.accountPaths("signUp", legacy: "signupNewUser") + Endpoint.projectPaths("accounts"),
                  callers: callers) { (body: SignUpRequest, caller) in try await signUp(body, caller: caller) },
            .json(Endpoint.accountPaths("signInWithPassword", legacy: "verifyPassword"), callers: callers) {
                (body: SignInWithPasswordRequest, caller) in try await signInWithPassword(body, caller: caller)
            },
            .json(Endpoint.accountPaths("lookup", legacy: "getAccountInfo"), callers: callers) { (body: LookupRequest, caller) in
                try await lookup(body, caller: caller)
            },
            .json(Endpoint.accountPaths("update", legacy: "setAccountInfo"), callers: callers) { (body: UpdateAccountRequest, caller) in
                // With an action code, `update` applies it (verify, change or recover an address).
                if body.oobCode != nil { return try await actionCodes.apply(oobCode: body.oobCode, caller: caller) }
                let outcome = try await updateAccount(body, caller: caller)
                if let replaced = outcome.replacedEmail {
                    try await actionCodes.sendRecovery(to: replaced.previous, undoing: replaced.user.email ?? "", user: replaced.user, caller: caller)
                }
                return outcome.response
            },
            .json(Endpoint.accountPaths("delete", legacy: "deleteAccount"), callers: callers) { (body: DeleteAccountRequest, caller) in
                try await delete(body, caller: caller)
            },
            .json(Endpoint.accountPaths("createAuthUri", legacy: "createAuthUri"), callers: callers) {
                (body: CreateAuthURIRequest, caller) in
                if let provider = body.providerId, !provider.isEmpty { return try await federated.createAuthURI(body, caller: caller) }
                return try await createAuthURI(body, caller: caller)
            },
            .json(Endpoint.identityToolkitPaths("projects/{projectId}:createSessionCookie")
                  + Endpoint.identityToolkitPaths("projects/:projectId/tenants/{tenantId}:createSessionCookie"), access: .admin, callers: callers) {
                (body: CreateSessionCookieRequest, caller) in
                guard let duration = Int64(body.validDuration?.value ?? "1209600") else {
                    throw FlintError(.invalidDuration)
                }
                return CreateSessionCookieResponse(sessionCookie: try await tokens.createSessionCookie(
                    idToken: body.idToken, validDuration: duration, projectID: caller.projectID))
            },
            .json(Endpoint.projectPaths("accounts:batchCreate"), access: .admin, callers: callers) {
                (body: BatchCreateRequest, caller) in try await batchCreate(body, caller: caller)
            },
            .json(Endpoint.projectPaths("accounts:batchDelete"), access: .admin, callers: callers) {
                (body: BatchDeleteRequest, caller) in try await batchDelete(body, caller: caller)
            },
            .json(Endpoint.projectPaths("accounts:query"), access: .admin, callers: callers) {
                (body: QueryAccountsRequest, caller) in try await query(body, caller: caller)
            },
            .get(Endpoint.projectPaths("accounts:batchGet"), access: .admin, callers: callers) {
                request, caller in
                try await list(
                    maxResults: request.uri.queryParameters.get("maxResults").flatMap { Int($0) },
                    pageToken: request.uri.queryParameters.get("nextPageToken"), caller: caller)
            },
            .targetingProject(legacy: "uploadAccount", callers: callers) { (body: BatchCreateRequest, caller) in
                try await batchCreate(body, caller: caller)
            },
            .targetingProject(legacy: "downloadAccount", callers: callers) { (body: DownloadAccountRequest, caller) in
                try await list(
                    maxResults: body.maxResults.flatMap { Int($0.value) }, pageToken: body.nextPageToken, caller: caller)
            },
            .get(Endpoint.identityToolkitPaths("projects", legacy: "getProjectConfig"), callers: callers) { _, caller in
                ProjectConfigResponse(projectId: caller.project.realm.projectID, authorizedDomains: caller.project.settings.authorizedDomains)
            },
        ]
    }
}
