import FlintWire
import Foundation

/// Where an email action link leads after the action, and whether an app opens it (firebase-admin's
/// `ActionCodeSettings`). The link calls check them as firebase-admin does: `url` an http or https URL
/// (`invalidContinueURI`), `linkDomain` not empty (`invalidHostingLinkDomain`), the Android settings with a package
/// name (`missingAndroidPackageName`), and no empty bundle ID, package name or minimum version (`invalidArgument`).
public struct ActionCodeSettings: Sendable {
    /// The continue URL; its domain must be authorized.
    public var url: String
    public var handleCodeInApp: Bool
    public var iOSBundleID: String?
    public var androidPackageName: String?
    public var androidInstallApp: Bool?
    public var androidMinimumVersion: String?
    /// A custom domain for the link (Firebase Hosting's).
    public var linkDomain: String?

    public init(url: String, handleCodeInApp: Bool = false, iOSBundleID: String? = nil, androidPackageName: String? = nil,
                androidInstallApp: Bool? = nil, androidMinimumVersion: String? = nil, linkDomain: String? = nil) {
        self.url = url
        self.handleCodeInApp = handleCodeInApp
        self.iOSBundleID = iOSBundleID
        self.androidPackageName = androidPackageName
        self.androidInstallApp = androidInstallApp
        self.androidMinimumVersion = androidMinimumVersion
        self.linkDomain = linkDomain
    }
}

extension AdminAuth {
    /// A link that verifies `email`, for the app to send in its own mail.
    public func generateEmailVerificationLink(email: String, settings: ActionCodeSettings? = nil) async throws -> String {
        try await actionLink(.verifyEmail, email: email, settings: settings)
    }

    /// A link that lets the user of `email` choose a new password.
    public func generatePasswordResetLink(email: String, settings: ActionCodeSettings? = nil) async throws -> String {
        try await actionLink(.passwordReset, email: email, settings: settings)
    }

    /// A link that signs the user of `email` in (email-link sign-in); `settings.handleCodeInApp` must be true.
    public func generateSignInWithEmailLink(email: String, settings: ActionCodeSettings) async throws -> String {
        guard settings.handleCodeInApp else {
            throw AdminError(.invalidArgument, "a sign-in link is opened by the app: handleCodeInApp must be true")
        }
        return try await actionLink(.emailSignIn, email: email, settings: settings)
    }

    private func actionLink(_ type: OobRequestType, email: String, settings: ActionCodeSettings?) async throws -> String {
        try settings?.check()
        try Check.email(email)
        var request = SendOobCodeRequest(requestType: type, email: email, continueUrl: settings?.url,
                                         canHandleCodeInApp: settings?.handleCodeInApp)
        request.iOSBundleId = settings?.iOSBundleID
        request.androidPackageName = settings?.androidPackageName
        request.androidInstallApp = settings?.androidInstallApp
        request.androidMinimumVersion = settings?.androidMinimumVersion
        request.linkDomain = settings?.linkDomain
        request.returnOobLink = true
        let answer = try await connection.call("POST", resource + "/accounts:sendOobCode", body: request,
                                               as: SendOobCodeResponse.self)
        guard let link = answer.oobLink else {
            // The one case a server answers without a link: a reset for an address nobody has, under email
            // enumeration protection (which answers as if the mail went).
            if type == .passwordReset { throw AdminError(.emailNotFound, "no user has the address \(email)") }
            throw AdminError(.internalError, "the server made no link")
        }
        return link
    }
}
