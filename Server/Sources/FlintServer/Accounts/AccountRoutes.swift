import FlintWire
import Hummingbird

/// The account operations' addresses, user-facing and admin (`projects/{p}/…`).
extension AccountService {
    /// `federated` answers `createAuthUri` when it names a provider (the redirect flow).
    func endpoints(actionCodes: ActionCodeService, federated: FederatedService) -> [Endpoint] {
        [
            .json(Endpoint.accountPaths("signUp", legacy: "signupNewUser") + Endpoint.projectPaths("accounts"),
                  budgets: [.signUpsPerClient]) { (body: SignUpRequest, caller) in try await signUp(body, caller: caller) },
            .json(Endpoint.accountPaths("signInWithPassword", legacy: "verifyPassword"), budgets: [.passwordTries]) {
                (body: SignInWithPasswordRequest, caller) in try await signInWithPassword(body, caller: caller)
            },
            .json(Endpoint.accountPaths("lookup", legacy: "getAccountInfo")) { (body: LookupRequest, caller) in
                try await lookup(body, caller: caller)
            },
            .json(Endpoint.accountPaths("update", legacy: "setAccountInfo")) { (body: UpdateAccountRequest, caller) in
                // With an action code, `update` applies it (verify, change or recover an address).
                if body.oobCode != nil { return try await actionCodes.apply(oobCode: body.oobCode, caller: caller) }
                let outcome = try await updateAccount(body, caller: caller)
                if let change = outcome.addressChange {
                    try await actionCodes.addressChanged(from: change.previous, to: change.user, caller: caller)
                }
                return outcome.response
            },
            .json(Endpoint.accountPaths("delete", legacy: "deleteAccount")) { (body: DeleteAccountRequest, caller) in
                try await delete(body, caller: caller)
            },
            .json(Endpoint.accountPaths("createAuthUri", legacy: "createAuthUri")) {
                (body: CreateAuthURIRequest, caller) in
                if let provider = body.providerId, !provider.isEmpty { return try await federated.createAuthURI(body, caller: caller) }
                return try await createAuthURI(body, caller: caller)
            },
            .json(Endpoint.identityToolkitPaths("projects/{projectId}:createSessionCookie")
                  + Endpoint.identityToolkitPaths("projects/:projectId/tenants/{tenantId}:createSessionCookie"), access: .admin) {
                (body: CreateSessionCookieRequest, caller) in
                guard let duration = Int64(body.validDuration?.value ?? "1209600") else {
                    throw FlintError(.invalidDuration)
                }
                return CreateSessionCookieResponse(sessionCookie: try await tokens.createSessionCookie(
                    idToken: body.idToken, validDuration: duration, projectID: caller.projectID))
            },
            .json(Endpoint.projectPaths("accounts:batchCreate"), access: .admin) {
                (body: BatchCreateRequest, caller) in try await batchCreate(body, caller: caller)
            },
            .json(Endpoint.projectPaths("accounts:batchDelete"), access: .admin) {
                (body: BatchDeleteRequest, caller) in try await batchDelete(body, caller: caller)
            },
            .json(Endpoint.projectPaths("accounts:query"), access: .admin) {
                (body: QueryAccountsRequest, caller) in try await query(body, caller: caller)
            },
            .get(Endpoint.projectPaths("accounts:batchGet"), access: .admin) {
                request, caller in
                try await list(
                    maxResults: request.uri.queryParameters.get("maxResults").flatMap { Int($0) },
                    pageToken: request.uri.queryParameters.get("nextPageToken"), caller: caller)
            },
            .targetingProject(legacy: "uploadAccount") { (body: BatchCreateRequest, caller) in
                try await batchCreate(body, caller: caller)
            },
            .targetingProject(legacy: "downloadAccount") { (body: DownloadAccountRequest, caller) in
                try await list(
                    maxResults: body.maxResults.flatMap { Int($0.value) }, pageToken: body.nextPageToken, caller: caller)
            },
            .get(Endpoint.identityToolkitPaths("projects", legacy: "getProjectConfig")) { _, caller in
                ProjectConfigResponse(projectId: caller.project.realm.projectID, authorizedDomains: caller.project.settings.authorizedDomains)
            },
        ]
    }
}
