import FlintWire
import Foundation

/// The sign-in method of phone accounts in `Auth.fetchSignInMethods(forEmail:)` terms: `"phone"`.
public let PhoneAuthSignInMethod = ProviderID.phone
/// The provider ID of phone identities: `"phone"`.
public let PhoneAuthProviderID = ProviderID.phone

/// Phone-number sign-in: texts a verification code to a number, and turns the code into a credential.
///
/// ```swift
/// let provider = PhoneAuthProvider.provider()
/// let verificationID = try await provider.verifyPhoneNumber("+15555550100", uiDelegate: nil)
/// // … ask the user for the code …
/// let credential = provider.credential(withVerificationID: verificationID, verificationCode: code)
/// let result = try await Auth.auth().signIn(with: credential)
/// ```
///
/// Before sending, the app proves it is genuine as FirebaseAuth does: with a silent push (the app passes
/// its APNs token to `Auth.setAPNSToken(_:type:)` and the push to `Auth.canHandleNotification(_:)`), else
/// with a reCAPTCHA page shown through the `AuthUIDelegate` (the app passes the page's callback URL to
/// `Auth.canHandle(_:)`). `Auth.settings.isAppVerificationDisabledForTesting` (set by `useEmulator`) skips
/// both; servers then only accept their fictional test numbers (or, in emulator mode, any number).
public final class PhoneAuthProvider: NSObject, Sendable {
    /// The provider ID of phone identities: `"phone"`.
    public static let id = ProviderID.phone

    /// `authType` of the reCAPTCHA page and its callback.
    static let verifyAppAuthType = "verifyApp"
    /// The longest wait for the silent push, whatever the server suggests.
    static let maximumPushWait: TimeInterval = 60
    /// The wait for the silent push when the server's suggestion cannot be read.
    static let defaultPushWait: TimeInterval = 5

    let auth: Auth

    private init(auth: Auth) {
        self.auth = auth
    }

    /// The provider of the default app's `Auth`.
    public class func provider() -> PhoneAuthProvider {
        PhoneAuthProvider(auth: Auth.auth())
    }

    /// The provider of `auth`.
    public class func provider(auth: Auth) -> PhoneAuthProvider {
        PhoneAuthProvider(auth: auth)
    }

    /// Texts a verification code to `phoneNumber` (E.164, e.g. `+15555550100`) and returns the
    /// verification ID to pair with the code in `credential(withVerificationID:verificationCode:)`.
    ///
    /// Asking again for the same number while the first send is in flight, or within two minutes of it
    /// and before its code was used, sends nothing and returns the same verification ID.
    ///
    /// `uiDelegate` shows the reCAPTCHA page if the app cannot be verified with a silent push.
    ///
    /// With a `multiFactorSession` from `MultiFactor.session()`, the code enrolls `phoneNumber` as a second
    /// factor (`mfaEnrollment:start`): the credential of the code goes into
    /// `PhoneMultiFactorGenerator.assertion(with:)`. Such sends are never deduplicated. To sign in with an
    /// enrolled phone, use `verifyPhoneNumber(with:uiDelegate:multiFactorSession:)`.
    ///
    /// Errors include `missingPhoneNumber`, `invalidPhoneNumber`, `quotaExceeded`, `tooManyRequests`,
    /// `captchaCheckFailed`, `webContextCancelled`, `appNotVerified` and `missingAppCredential`.
    public func verifyPhoneNumber(
        _ phoneNumber: String,
        uiDelegate: AuthUIDelegate? = nil,
        multiFactorSession: MultiFactorSession? = nil
    ) async throws -> String {
        let presenter = makeWebPagePresenter(uiDelegate, callbackQueue: auth.callbackQueue)
        return try await verify(phoneNumber, presenter: presenter, multiFactorSession: multiFactorSession)
    }

    /// Completion-handler form of `verifyPhoneNumber(_:uiDelegate:multiFactorSession:)`; `completion`
    /// runs on the main actor.
    public func verifyPhoneNumber(
        _ phoneNumber: String,
        uiDelegate: AuthUIDelegate? = nil,
        completion: (@MainActor (String?, (any Error)?) -> Void)?
    ) {
        verifyPhoneNumber(phoneNumber, uiDelegate: uiDelegate, multiFactorSession: nil, completion: completion)
    }

    /// Completion-handler form of `verifyPhoneNumber(_:uiDelegate:multiFactorSession:)`; `completion`
    /// runs on the main actor.
    public func verifyPhoneNumber(
        _ phoneNumber: String,
        uiDelegate: AuthUIDelegate? = nil,
        multiFactorSession: MultiFactorSession? = nil,
        completion: (@MainActor (String?, (any Error)?) -> Void)?
    ) {
        let presenter = makeWebPagePresenter(uiDelegate, callbackQueue: auth.callbackQueue)
        completeOnMainActor(completion) {
            try await self.verify(phoneNumber, presenter: presenter, multiFactorSession: multiFactorSession)
        }
    }

    /// A credential of the code texted for `verificationID`, for `Auth.signIn(with:)`, `User.link(with:)`,
    /// `User.reauthenticate(with:)` or `User.updatePhoneNumber(_:)`.
    public func credential(withVerificationID verificationID: String, verificationCode: String) -> PhoneAuthCredential {
        PhoneAuthCredential(verificationID: verificationID, verificationCode: verificationCode,
                            issuer: auth.phoneAuth.verifications)
    }

    // MARK: Sending the code

    private func verify(
        _ phoneNumber: String,
        presenter: (any WebPagePresenter)?,
        multiFactorSession: MultiFactorSession?
    ) async throws -> String {
        guard !phoneNumber.isEmpty else {
            throw AuthErrorUtils.error(.missingPhoneNumber)
        }
        if let multiFactorSession {
            return try await sendEnrollmentCode(to: phoneNumber, session: multiFactorSession, presenter: presenter)
        }
        let key = (auth.tenantID ?? "") + "\n" + phoneNumber
        return try await auth.phoneAuth.verifications.verificationID(for: key) {
            try await self.sendCode(SendVerificationCodeRequest(phoneNumber: phoneNumber), presenter: presenter) {
                try await $0.sendVerificationCode($1)
            }
        }
    }

    /// The code send proper, for sign-in and second factors alike (`phoneEnrollmentInfo` and
    /// `phoneSignInInfo` have `sendVerificationCode`'s shape): app verification as configured puts its proof
    /// into `request`, which `send` sends and turns into the verification ID.
    func sendCode(
        _ request: SendVerificationCodeRequest,
        presenter: (any WebPagePresenter)?,
        send: (AuthBackend, SendVerificationCodeRequest) async throws -> String
    ) async throws -> String {
        let backend = auth.backend
        if auth.settings?.isAppVerificationDisabledForTesting == true {
            return try await send(backend, request)
        }
        var request = request
        switch try await backend.phoneRecaptchaEnforcement() {
        case "ENFORCE":
            throw AuthErrorUtils.error(
                .recaptchaSDKNotLinked,
                message: "The project enforces reCAPTCHA Enterprise for phone sign-in, which FlintAuth does not support.")
        case "AUDIT":
            // What FirebaseAuth sends when it cannot produce a reCAPTCHA Enterprise token.
            request.captchaResponse = "NO_RECAPTCHA"
            request.recaptchaVersion = "RECAPTCHA_ENTERPRISE"
        default:
            break
        }
        return try await sendWithAppVerification(request, presenter: presenter, retryOnInvalidAppCredential: true, send: send)
    }

    private enum AppProof {
        case appCredential(AuthAppCredential, cached: Bool)
        case recaptchaToken(String)
    }

    private func sendWithAppVerification(
        _ request: SendVerificationCodeRequest,
        presenter: (any WebPagePresenter)?,
        retryOnInvalidAppCredential: Bool,
        send: (AuthBackend, SendVerificationCodeRequest) async throws -> String
    ) async throws -> String {
        var proven = request
        let proof = try await appProof(presenter: presenter)
        switch proof {
        case .appCredential(let credential, _):
            proven.iosReceipt = credential.receipt
            proven.iosSecret = credential.secret
        case .recaptchaToken(let token):
            proven.recaptchaToken = token
        }
        do {
            return try await send(auth.backend, proven)
        } catch let error where AuthErrorCode(error) == .invalidAppCredential {
            // A kept credential the server no longer accepts: verify the app afresh, once.
            guard case .appCredential(_, cached: true) = proof, retryOnInvalidAppCredential else { throw error }
            auth.phoneAuth.appCredentials.clearCredential()
            return try await sendWithAppVerification(request, presenter: presenter, retryOnInvalidAppCredential: false,
                                                     send: send)
        }
    }

    /// The app credential kept from an earlier push, else a new one from a silent push, else a reCAPTCHA
    /// token from the web page (without an APNs token, or when no push arrives in time).
    private func appProof(presenter: (any WebPagePresenter)?) async throws -> AppProof {
        let manager = auth.phoneAuth.appCredentials
        if let credential = manager.credential {
            return .appCredential(credential, cached: true)
        }
        if let token = manager.token {
            let backend = auth.backend
            do {
                let credential = try await manager.verify {
                    try await backend.verifyClient(appToken: token.hexString, isSandbox: token.type == .sandbox)
                } receipt: {
                    $0.receipt
                } timeout: {
                    min(TimeInterval($0.suggestedTimeout) ?? Self.defaultPushWait, Self.maximumPushWait)
                }
                try Task.checkCancellation()
                if let credential {
                    return .appCredential(credential, cached: false)
                }
                // No push in time: the reCAPTCHA page instead, as FirebaseAuth does.
            } catch let error where [.invalidAppCredential, .missingAppToken].contains(AuthErrorCode(error)) {
                // The server will not push to this token: the reCAPTCHA page instead.
            }
        }
        return .recaptchaToken(try await recaptchaToken(presenter: presenter))
    }

    // MARK: The reCAPTCHA page

    /// Shows the reCAPTCHA page and returns the token its callback URL carries.
    private func recaptchaToken(presenter: (any WebPagePresenter)?) async throws -> String {
        guard let presenter else {
            throw AuthErrorUtils.error(
                .appNotVerified,
                message: "The app could not be verified with a silent push, and no AuthUIDelegate was given to show the reCAPTCHA page.")
        }
        let eventID = HandlerPage.randomID()
        let url = try await recaptchaPageURL(eventID: eventID)
        let callback = try await auth.phoneAuth.webFlows.run(
            url, eventID: eventID, authType: Self.verifyAppAuthType, callbackScheme: handlerApp.callbackScheme,
            presenter: presenter)
        return try Self.recaptchaToken(fromCallback: callback)
    }

    /// `{site}/__/auth/handler?apiKey=…&authType=verifyApp&ibi=…&v=…&eventId=…&clientId=…|appId=…[&hl=…]`,
    /// where the site is the Flint server (or emulator), or for Google's hosts the project's
    /// `firebaseapp.com` (else `web.app`) domain.
    func recaptchaPageURL(eventID: String) async throws -> URL {
        try HandlerPage.url(try await HandlerPage.site(of: auth.backend) + HandlerPage.path, auth: auth,
                            authType: Self.verifyAppAuthType, eventID: eventID, app: handlerApp)
    }

    /// How the reCAPTCHA page knows the app. Flint: an app configured without a Google App ID goes by
    /// `flint:<projectID>`.
    private var handlerApp: HandlerPage.App {
        let options = auth.app?.configuration
        let googleAppID = options?.googleAppID ?? ""
        return HandlerPage.App.of(clientID: options?.clientID,
                                  appID: googleAppID.isEmpty ? "flint:" + (options?.projectID ?? "app") : googleAppID)
    }

    /// The `recaptchaToken` of a callback URL; its `firebaseError` as the matching `AuthErrorCode`.
    static func recaptchaToken(fromCallback url: URL) throws -> String {
        try WebFlowCoordinator.deepLinkValue("recaptchaToken", of: url, failure: AuthErrorUtils.appVerificationFailure)
    }
}
