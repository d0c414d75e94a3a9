import FlintWire
import Hummingbird

/// Phone sign-in's addresses: v1 names, the iOS SDK's v3 names, and the v2 reCAPTCHA config the SDKs
/// fetch before app verification.
extension PhoneService {
    func endpoints(appVerifier: AppVerifier) -> [Endpoint] {
        var endpoints: [Endpoint] = [
            .json(Endpoint.identityToolkitPaths("accounts:sendVerificationCode", legacy: "sendVerificationCode"),
                  budgets: Budget.smsSends) { (body: SendVerificationCodeRequest, caller) in
                try await sendVerificationCode(body, caller: caller)
            },
            .json(Endpoint.identityToolkitPaths("accounts:signInWithPhoneNumber", legacy: "verifyPhoneNumber")) { (body: SignInWithPhoneNumberRequest, caller) in
                try await signInWithPhoneNumber(body, caller: caller)
            },
            .json(Endpoint.identityToolkitPaths("accounts:verifyClient", legacy: "verifyClient")
                    + Endpoint.identityToolkitPaths("accounts:verifyIosClient")) { (body: VerifyClientRequest, caller) in
                try await appVerifier.startPushVerification(body, caller: caller)
            },
            // Flint uses no reCAPTCHA Enterprise: every provider is OFF, so the SDKs take the classic path.
            .get(Endpoint.identityToolkitPaths(version: "v2", "recaptchaConfig")) { _, _ in
                RecaptchaConfigResponse(recaptchaEnforcementState: [
                    .init(provider: "EMAIL_PASSWORD_PROVIDER", enforcementState: "OFF"),
                    .init(provider: "PHONE_PROVIDER", enforcementState: "OFF"),
                ])
            },
        ]
        if policy.servesEmulatorEndpoints {
            // Placeholders, as the official emulator answers: web SDKs render no real reCAPTCHA against an emulator.
            endpoints.append(.get(Endpoint.identityToolkitPaths("recaptchaParams", legacy: "getRecaptchaParam")) { _, _ in
                RecaptchaParamsResponse(
                    recaptchaStoken: "flint-emulator-placeholder-stoken_not-for-recaptcha",
                    recaptchaSiteKey: "flint-emulator-placeholder-site-key")
            })
        }
        return endpoints
    }
}
