/// A REST method, named by the Google host and path it has in production. A Flint server (and the
/// Firebase emulator) serves the same path under its own base URL: `{base}/{host}/{path}`.
struct Endpoint: Sendable, Equatable {
    /// `host/path`, e.g. `identitytoolkit.googleapis.com/v1/accounts:signUp`.
    let hostAndPath: String

    private static func identityToolkit(_ method: String) -> Endpoint {
        Endpoint(hostAndPath: "identitytoolkit.googleapis.com/v1/\(method)")
    }

    static let signUp = identityToolkit("accounts:signUp")
    static let signInWithPassword = identityToolkit("accounts:signInWithPassword")
    static let signInWithCustomToken = identityToolkit("accounts:signInWithCustomToken")
    static let lookup = identityToolkit("accounts:lookup")
    static let update = identityToolkit("accounts:update")
    static let delete = identityToolkit("accounts:delete")
    static let createAuthURI = identityToolkit("accounts:createAuthUri")
    static let sendOobCode = identityToolkit("accounts:sendOobCode")
    static let signInWithEmailLink = identityToolkit("accounts:signInWithEmailLink")
    static let resetPassword = identityToolkit("accounts:resetPassword")
    static let sendVerificationCode = identityToolkit("accounts:sendVerificationCode")
    static let signInWithPhoneNumber = identityToolkit("accounts:signInWithPhoneNumber")
    static let verifyClient = identityToolkit("accounts:verifyClient")
    /// GET: the project's ID and authorized domains (v3 `getProjectConfig`).
    static let projectConfig = identityToolkit("projects")
    /// GET: which providers enforce reCAPTCHA Enterprise.
    static let recaptchaConfig = Endpoint(hostAndPath: "identitytoolkit.googleapis.com/v2/recaptchaConfig")
    /// GET: the password policy of the project or of a tenant.
    static let passwordPolicy = Endpoint(hostAndPath: "identitytoolkit.googleapis.com/v2/passwordPolicy")
    static let secureToken = Endpoint(hostAndPath: "securetoken.googleapis.com/v1/token")
}
