import FlintWire
import Hummingbird

/// Federated sign-in's addresses: `accounts:signInWithIdp` (v3 `verifyAssertion`) and v2 `accounts:revokeToken`.
extension FederatedService {
    var endpoints: [Endpoint] {
        [
            .json(Endpoint.accountPaths("signInWithIdp", legacy: "verifyAssertion")) {
                (body: SignInWithIdpRequest, caller) in
                var response = try await signInWithIdp(body, caller: caller)
                response.tenantId = caller.project.realm.tenantID
                return response
            },
            .json(Endpoint.identityToolkitPaths(version: "v2", "accounts:revokeToken")) {
                (body: RevokeTokenRequest, caller) in try await revokeToken(body, caller: caller)
            },
        ]
    }
}
