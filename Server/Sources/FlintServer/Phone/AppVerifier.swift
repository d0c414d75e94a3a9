import FlintWire
import Foundation
import Logging

/// Proof that a request for an SMS comes from the project's genuine app, not a script: the APNs
/// silent-push receipt and secret (iOS), or a captcha token (Flint's proof of work or a siteverify
/// service). Emulator mode accepts anything, as the official emulator does.
struct AppVerifier: Sendable {
    let store: CodeStore
    let clock: any FlintClock
    let random: any RandomSource
    let delivery: DeliveryServices
    let proofOfWork: ProofOfWork
    let policy: ModePolicy
    let logger: Logger

    init(core: ServerCore, delivery: DeliveryServices, proofOfWork: ProofOfWork) {
        store = core.store.codes
        clock = core.clock
        random = core.random
        self.delivery = delivery
        self.proofOfWork = proofOfWork
        policy = core.policy
        logger = core.logger
    }

    /// How long a pushed receipt and secret stay usable. They may be reused until then (the SDK caches
    /// them), which spares a push per code; the send limits still apply to every code.
    static let credentialLifetimeSeconds: Int64 = 3600
    /// How long the SDK should wait for the push before falling back to the captcha.
    static let suggestedTimeoutSeconds = 8

    // MARK: APNs

    /// `verifyClient`: records a receipt and its secret and pushes both to the device.
    func startPushVerification(_ request: VerifyClientRequest, caller: Caller) async throws -> VerifyClientResponse {
        guard let appToken = request.appToken, !appToken.isEmpty else { throw FlintError(.missingIOSAppToken) }
        let receipt = random.token(byteCount: 24)
        let secret = random.token(byteCount: 24)
        if policy.verifiesApps {
            guard caller.project.settings.phone.apnsEnabled, let push = delivery.push else {
                throw FlintError(.invalidAppCredential, "APNs app verification is not configured for this project.")
            }
            guard appToken.count <= 200, appToken.allSatisfy(\.isHexDigit) else { throw FlintError(.invalidAppCredential) }
            try await store.insertAppCredential(
                receiptHash: Hex.sha256(receipt), projectID: caller.projectID, secretHash: Hex.sha256(secret),
                expiresAt: clock.milliseconds + Self.credentialLifetimeSeconds * 1000)
            do {
                try await push.send(SilentPush(
                    deviceToken: appToken.lowercased(), sandbox: request.isSandbox ?? false,
                    credential: AppCredentialPush(receipt: receipt, secret: secret)))
            } catch {
                logger.warning("APNs push for app verification failed", metadata: ["error": "\(error)"])
                throw FlintError(.invalidAppCredential, "The push could not be delivered.")
            }
        }
        return VerifyClientResponse(receipt: receipt, suggestedTimeout: String(Self.suggestedTimeoutSeconds))
    }

    // MARK: Checking a send request

    /// Throws unless the request carries a valid app credential for a real number.
    func check(_ request: SendVerificationCodeRequest, caller: Caller) async throws {
        guard policy.verifiesApps else { return }
        let settings = caller.project.settings.phone
        if let receipt = request.iosReceipt, !receipt.isEmpty {
            guard settings.apnsEnabled, let secret = request.iosSecret, !secret.isEmpty else {
                throw FlintError(.missingAppCredential)
            }
            guard let stored = try await store.appCredential(receiptHash: Hex.sha256(receipt), projectID: caller.projectID),
                  stored.expiresAt > clock.milliseconds,
                  constantTimeEquals(Data(Hex.sha256(secret).utf8), Data(stored.secretHash.utf8))
            else { throw FlintError(.invalidAppCredential) }
            return
        }
        if let token = request.recaptchaToken, !token.isEmpty {
            guard try await verifyCaptcha(token, settings: settings, caller: caller) else {
                throw FlintError(.invalidAppCredential, "The captcha token was not accepted.")
            }
            return
        }
        if settings.appVerificationRequired { throw FlintError(.missingAppCredential) }
    }

    private func verifyCaptcha(_ token: String, settings: ProjectSettings.Phone, caller: Caller) async throws -> Bool {
        switch settings.captcha {
        case .disabled:
            return false
        case .proofOfWork:
            guard ProofOfWork.isProofOfWorkToken(token) else { return false }
            // Bound to the project, not the tenant: the captcha pages get their work checked under the API key's
            // project, and a tenant's app sends its code in the tenant.
            return try await proofOfWork.verifyToken(token, projectID: caller.project.realm.projectID)
        case .siteVerify:
            guard let captcha = delivery.captcha else {
                throw FlintError(.invalidAppCredential, "No captcha service is configured on the server.")
            }
            do {
                return try await captcha.verify(response: token, remoteIP: caller.clientIP)
            } catch {
                logger.warning("captcha verification failed", metadata: ["error": "\(error)"])
                throw FlintError(.captchaCheckFailed)
            }
        }
    }
}
