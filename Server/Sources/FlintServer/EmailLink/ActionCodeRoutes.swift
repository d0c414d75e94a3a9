import FlintWire
import Foundation
import Hummingbird

/// The email action codes' addresses: v1 names, the iOS SDK's v3 names, and the admin `projects/{p}/…` forms.
extension ActionCodeService {
    var endpoints: [Endpoint] {
        [
            .json(Endpoint.accountPaths("sendOobCode", legacy: "getOobConfirmationCode"),
                  budgets: [.emailsPerClient, .emailsPerAddress]) {
                (body: SendOobCodeRequest, caller) in try await sendOobCode(body, caller: caller)
            },
            .json(Endpoint.accountPaths("signInWithEmailLink", legacy: "emailLinkSignin")) {
                (body: SignInWithEmailLinkRequest, caller) in try await signInWithEmailLink(body, caller: caller)
            },
            .json(Endpoint.accountPaths("resetPassword", legacy: "resetPassword")) {
                (body: ResetPasswordRequest, caller) in try await resetPassword(body, caller: caller)
            },
        ]
    }
}

extension ActionCodeService {
    /// The official emulator's link page, `GET /emulator/action?mode=…&oobCode=…&apiKey=…[&continueUrl][&newPassword]`:
    /// applies the code and answers `{"authEmulator":{"success"|"error": …}}`, or for sign-in links (and
    /// any link with a `continueUrl`) redirects there with the link's parameters, which is how a link
    /// reaches the app.
    func emulatorActionEndpoint(defaultProjectID: String) -> Endpoint {
        Endpoint(method: .get, paths: ["/emulator/action"],
                 contract: .page(query: ["mode", "oobCode", "apiKey", "continueUrl", "lang", "tenantId"])) { request, _, callers in
            let query = request.uri.queryParameters
            let project = try await core.projects.ensureProject(defaultProjectID)
            let caller = try await callers.scoped(Caller(project: project, isAdmin: false, apiKey: query.get("apiKey")),
                                                  toTenant: query.get("tenantId").flatMap { $0.isEmpty ? nil : $0 })
            let continueURL = query.get("continueUrl").flatMap { $0.isEmpty ? nil : $0 }
            let message: String
            do {
                switch query.get("mode") {
                case "signIn":
                    _ = try await liveCode(query.get("oobCode"), caller: caller)
                    message = "Signing in with the link."
                case "resetPassword":
                    guard let newPassword = query.get("newPassword") else {
                        throw FlintError(.invalidArgument, "resetPassword needs &newPassword=")
                    }
                    _ = try await resetPassword(ResetPasswordRequest(oobCode: query.get("oobCode"), newPassword: newPassword),
                                                caller: caller)
                    message = "The password has been changed."
                case "verifyEmail", "verifyAndChangeEmail", "recoverEmail":
                    _ = try await apply(oobCode: query.get("oobCode"), caller: caller)
                    message = "The email address has been verified."
                default:
                    throw FlintError(.invalidArgument, "Unknown mode")
                }
            } catch let error as FlintError {
                let body: JSONValue = .object(["authEmulator": .object(["error": .string(error.message)])])
                var response = try JSONBody.response(body)
                response.status = .badRequest
                return response
            }
            if let continueURL, var target = URLComponents(string: continueURL) {
                // The link's own parameters travel on, so the page at continueUrl can finish the flow.
                let carried = (URLComponents(string: request.uri.description)?.queryItems ?? [])
                    .filter { $0.name != "continueUrl" && $0.name != "newPassword" }
                target.queryItems = (target.queryItems ?? []) + carried
                if let location = target.string {
                    return Response(status: .seeOther, headers: [.location: location])
                }
            }
            return try JSONBody.response(JSONValue.object(["authEmulator": .object(["success": .string(message)])]))
        }
    }
}
