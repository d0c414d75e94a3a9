import FlintAdmin
import Foundation
import Hummingbird

/// `GET /me`: the signed-in user as their token says. `/admin/users…` (admins only): create a user, set their claims,
/// sign them out everywhere, delete them.
func buildRouter(auth: AdminAuth) -> Router<AppRequestContext> {
    let router = Router(context: AppRequestContext.self)
    let signedIn = router.group().add(middleware: FlintAuthMiddleware(auth: auth))

    signedIn.get("me") { _, context -> Me in
        guard let user = context.user else { throw HTTPError(.unauthorized) }
        return Me(uid: user.uid, email: user.email, signInProvider: user.signInProvider, role: user["role"]?.stringValue)
    }

    let admin = signedIn.group("admin/users").add(middleware: AdminOnlyMiddleware())
    admin.post { request, context -> CreatedUser in
        let body = try await request.decode(as: NewUserBody.self, context: context)
        let user = try await auth.createUser(NewUser(email: body.email, password: body.password, displayName: body.displayName))
        return CreatedUser(uid: user.uid)
    }
    admin.put(":uid/role") { request, context -> HTTPResponse.Status in
        let body = try await request.decode(as: RoleBody.self, context: context)
        try await auth.setCustomUserClaims(uid: try context.parameters.require("uid"), body.role.map { ["role": .string($0)] })
        return .noContent
    }
    admin.post(":uid/revoke") { _, context -> HTTPResponse.Status in
        try await auth.revokeRefreshTokens(uid: try context.parameters.require("uid"))
        return .noContent
    }
    admin.delete(":uid") { _, context -> HTTPResponse.Status in
        try await auth.deleteUser(uid: try context.parameters.require("uid"))
        return .noContent
    }
    return router
}

struct Me: ResponseCodable {
    var uid: String
    var email: String?
    var signInProvider: String?
    var role: String?
}

struct NewUserBody: Decodable {
    var email: String
    var password: String
    var displayName: String?
}

struct CreatedUser: ResponseCodable {
    var uid: String
}

struct RoleBody: Decodable {
    /// Nil takes the role away.
    var role: String?
}
