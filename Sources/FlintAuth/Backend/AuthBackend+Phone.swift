import FlintWire
import Foundation

/// The RPCs of phone-number sign-in and of app verification.
extension AuthBackend {
    /// `accounts:sendVerificationCode`: texts a code to `request.phoneNumber`; returns its verification ID.
    /// An answer without `sessionInfo` is an `invalidVerificationID`, as in FirebaseAuth.
    func sendVerificationCode(_ request: SendVerificationCodeRequest) async throws -> String {
        let response: LenientSendVerificationCodeResponse = try await post(.sendVerificationCode, request)
        guard let sessionInfo = response.sessionInfo, !sessionInfo.isEmpty else {
            throw AuthErrorUtils.error(.invalidVerificationID, message: "The server sent no verification ID.")
        }
        return sessionInfo
    }

    /// `SendVerificationCodeResponse` with `sessionInfo` optional, so that its absence gets its own error.
    private struct LenientSendVerificationCodeResponse: Decodable {
        var sessionInfo: String?
    }

    /// `accounts:signInWithPhoneNumber` (v3 `verifyPhoneNumber`).
    func signInWithPhoneNumber(_ request: SignInWithPhoneNumberRequest) async throws -> SignInWithPhoneNumberResponse {
        return try await postFirstFactor(.signInWithPhoneNumber, request)
    }

    /// `accounts:verifyClient`: asks for a silent push carrying a secret to the device of `appToken`.
    func verifyClient(appToken: String, isSandbox: Bool) async throws -> VerifyClientResponse {
        try await post(.verifyClient, VerifyClientRequest(appToken: appToken, isSandbox: isSandbox))
    }

    /// v2 `GET recaptchaConfig` for iOS clients: the enforcement state (`OFF`, `AUDIT`, `ENFORCE`) of
    /// phone sign-in; `OFF` when the answer does not name the phone provider (`{}` included).
    func phoneRecaptchaEnforcement() async throws -> String {
        let query = [URLQueryItem(name: "clientType", value: "CLIENT_TYPE_IOS"),
                     URLQueryItem(name: "version", value: "RECAPTCHA_ENTERPRISE")] + tenantQuery
        let response: LenientRecaptchaConfig = try await get(.recaptchaConfig, query: query)
        return response.recaptchaEnforcementState?.first { $0.provider == "PHONE_PROVIDER" }?.enforcementState ?? "OFF"
    }

    /// `RecaptchaConfigResponse` with every field optional: a server without reCAPTCHA may answer `{}`.
    private struct LenientRecaptchaConfig: Decodable {
        struct State: Decodable {
            var provider: String?
            var enforcementState: String?
        }

        var recaptchaEnforcementState: [State]?
    }

    /// `GET projects` (v3 `getProjectConfig`): the project's authorized domains.
    func authorizedDomains() async throws -> [String] {
        let response: ProjectConfigResponse = try await get(.projectConfig)
        return response.authorizedDomains
    }
}
