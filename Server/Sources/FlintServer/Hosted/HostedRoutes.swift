import FlintWire
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import NIOCore

/// The pages Firebase serves on an app's auth domain, under `/__/auth/`: the one the iOS SDK opens when it cannot
/// verify the app through APNs (`authType=verifyApp`): Flint's own captcha, a proof of work, whose token the app then
/// sends as `recaptchaToken` to `accounts:sendVerificationCode`; and the redirect flow's (`SignInHandler`).
///
/// - `GET /__/auth/handler?apiKey=…&authType=verifyApp&eventId=…&clientId=…|appId=…[&hl=…]`: the page.
/// - `GET /__/auth/handler?apiKey=…&authType=signInWithRedirect|signInViaRedirect|signInViaPopup&providerId=…&…`,
///   and the provider's return to it (a SAML IdP's: `POST /__/auth/handler` with `SAMLResponse`): see `SignInHandler`.
/// - `POST /__/auth/handler/verify?key=…` with `{"challenge", "nonce"}`: `{"token": "flint-pow.…"}`.
struct HostedRoutes: Sendable {
    let proofOfWork: ProofOfWork
    let signIn: SignInHandler
    let callers: CallerResolver
    /// The difficulty of a project's challenges in leading zero bits.
    let difficultyBits: @Sendable (Project) -> Int

    static let handlerPath = "/__/auth/handler"
    static let verifyPath = "/__/auth/handler/verify"

    init(proofOfWork: ProofOfWork, signIn: SignInHandler, callers: CallerResolver,
         difficultyBits: @escaping @Sendable (Project) -> Int = { $0.settings.phone.proofOfWorkBits }) {
        self.proofOfWork = proofOfWork
        self.signIn = signIn
        self.callers = callers
        self.difficultyBits = difficultyBits
    }

    var endpoints: [Endpoint] {
        let routes = self
        return [
            Endpoint(method: .get, paths: [Self.handlerPath],
                     contract: .page(query: ["apiKey", "authType", "eventId", "clientId", "appId", "hl", "ibi", "apn", "v", "providerId",
                                             "sessionId", "redirectUrl", "scopes", "customParameters", "tid", "code", "state",
                                             "error", "error_description"])) { request, _ in
                if SignInHandler.handles(request.uri.queryParameters) { return try await routes.signIn.page(request) }
                return try await routes.page(request)
            },
            // A SAML IdP's response (HTTP-POST binding), posted by the user's browser from the IdP's site.
            Endpoint(method: .post, paths: [Self.handlerPath], contract: .page(form: ["SAMLResponse", "RelayState"])) { request, _ in
                try await routes.signIn.samlReturned(request)
            },
            .json([Self.verifyPath]) { (body: VerifyRequest, caller) in
                try await routes.verify(body, caller: caller)
            },
        ]
    }

    struct VerifyRequest: Decodable, Sendable {
        var challenge: String?
        var nonce: String?
    }

    struct VerifyResponse: Codable, Sendable {
        var token: String
    }

    func verify(_ body: VerifyRequest, caller: Caller) async throws -> VerifyResponse {
        guard let challenge = body.challenge, !challenge.isEmpty else { throw FlintError(.invalidArgument, "challenge is required") }
        guard let nonce = body.nonce, !nonce.isEmpty else { throw FlintError(.invalidArgument, "nonce is required") }
        do {
            return VerifyResponse(token: try await proofOfWork.redeem(challenge: challenge, nonce: nonce, projectID: caller.project.realm.projectID))
        } catch let error as ProofOfWorkError {
            throw error.flintError
        }
    }

    /// The captcha page, or a 400 page saying what is wrong with the request.
    func page(_ request: Request) async throws -> Response {
        let query = request.uri.queryParameters
        let messages = CaptchaPage.messages(for: query.get("hl"))
        let verifyApp: VerifyAppRequest
        do {
            verifyApp = try VerifyAppRequest(
                apiKey: query.get("apiKey"), authType: query.get("authType"), eventID: query.get("eventId"),
                app: RegisteredApps.Claim(query))
        } catch {
            return Self.html(CaptchaPage.errorHTML(error.detail, messages: messages), status: .badRequest, scripts: false)
        }
        guard let project = try await callers.project(forAPIKey: verifyApp.apiKey) else {
            return Self.html(CaptchaPage.errorHTML("The API key is not valid.", messages: messages),
                             status: .badRequest, scripts: false)
        }
        let callbackScheme: String
        do {
            callbackScheme = try RegisteredApps.callbackScheme(for: verifyApp.app, in: project.settings.apps)
        } catch {
            return Self.html(CaptchaPage.errorHTML(error.detail, messages: messages), status: .badRequest, scripts: false)
        }
        let bits = difficultyBits(project)
        let configuration = CaptchaPage.Configuration(
            challenge: try proofOfWork.challenge(projectID: project.id, bits: bits),
            bits: min(max(bits, ProofOfWork.difficultyRange.lowerBound), ProofOfWork.difficultyRange.upperBound),
            verifyURL: Self.verifyPath + "?key=" + FormURLEncoding.escape(verifyApp.apiKey),
            callback: callbackScheme + "://firebaseauth/link", eventId: verifyApp.eventID,
            done: messages.done, failed: messages.failed)
        return Self.html(try CaptchaPage.html(configuration, messages: messages), status: .ok, scripts: true)
    }

    private static func html(_ text: String, status: HTTPResponse.Status, scripts: Bool) -> Response {
        HostedPage.response(text, status: status, contentSecurityPolicy: scripts
            ? CaptchaPage.contentSecurityPolicy : CaptchaPage.errorContentSecurityPolicy)
    }
}

/// The query of the page the iOS SDK opens for app verification, checked. Which scheme the page answers through is
/// decided once the project is known: a registered app's (`RegisteredApps`).
struct VerifyAppRequest {
    var apiKey: String
    var eventID: String
    /// The app the page answers.
    var app: RegisteredApps.Claim

    struct Invalid: Error {
        var detail: String
    }

    init(apiKey: String?, authType: String?, eventID: String?, app: RegisteredApps.Claim) throws(Invalid) {
        guard let apiKey, !apiKey.isEmpty, apiKey.utf8.count <= 256 else { throw Invalid(detail: "apiKey is required.") }
        guard authType == "verifyApp" else { throw Invalid(detail: "authType must be verifyApp.") }
        guard let eventID, Self.isValidEventID(eventID) else { throw Invalid(detail: "eventId is required (letters, digits, - and _).") }
        self.apiKey = apiKey
        self.eventID = eventID
        self.app = app
    }

    /// 1 to 64 letters, digits, `-` and `_`.
    static func isValidEventID(_ eventID: String) -> Bool {
        (1...64).contains(eventID.utf8.count)
            && eventID.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" || $0 == "_") }
    }
}

extension RegisteredApps.Claim {
    /// The app a hosted page's query names (`clientId`, `appId`, `ibi`, `apn`).
    init(_ query: FlatDictionary<Substring, Substring>) {
        self.init(clientID: query.get("clientId"), appID: query.get("appId"), bundleID: query.get("ibi"),
                  androidPackage: query.get("apn"))
    }
}
