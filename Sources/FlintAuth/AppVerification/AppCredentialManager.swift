import Foundation

/// The proof that this app instance received a silent push: the receipt `verifyClient` returned and the
/// secret the push carried. Sent as `iosReceipt` + `iosSecret` with `sendVerificationCode`.
struct AuthAppCredential: Sendable, Equatable {
    let receipt: String
    let secret: String
}

/// An APNs device token and its environment.
struct APNSToken: Sendable, Equatable {
    let data: Data
    let type: AuthAPNSTokenType

    /// The token as the server expects it: hexadecimal, two digits per byte.
    var hexString: String {
        data.map { String(format: "%02X", $0) }.joined()
    }
}

/// The APNs side of an `Auth`'s app verification: the device token the app passed in, the app
/// credential once a push delivered it (kept for later sends, in memory only), and the receipts
/// waiting for their push.
final class AppCredentialManager: Sendable {
    /// How many early pushes (secrets that arrive before `verifyClient` answered) are kept.
    static let maximumEarlyPushes = 16

    private struct State: Sendable {
        var token: APNSToken?
        var credential: AuthAppCredential?
        /// Receipts waiting for their push.
        var pending: [String: OneShot<AuthAppCredential?>] = [:]
        /// `verifyClient` calls whose receipt is not yet known: a push may overtake their answer.
        var clientVerificationsInFlight = 0
        /// Pushes that arrived while a receipt was unknown, oldest first.
        var early: [AuthAppCredential] = []
        /// Test hook: told each receipt that starts waiting.
        var receiptObserver: (@Sendable (String) -> Void)?
    }

    private let state = Locked(State())

    var token: APNSToken? {
        get { state[\.token] }
        set { state[\.token] = newValue }
    }

    /// The app credential a push delivered, reused until the server rejects it.
    var credential: AuthAppCredential? { state[\.credential] }

    func clearCredential() {
        state[\.credential] = nil
    }

    /// Test hook: `observer` is told the receipt of each wait as it starts.
    func observeReceipts(_ observer: (@Sendable (String) -> Void)?) {
        state[\.receiptObserver] = observer
    }

    /// Runs `verifyClient`, during which pushes for a receipt not yet known are kept, then waits up to
    /// `timeout(response)` for the push of the receipt `verifyClient` returned (`receipt(response)`).
    /// Returns the credential, or nil if no push arrived in time.
    func verify<Response>(
        _ verifyClient: () async throws -> Response,
        receipt: (Response) -> String,
        timeout: (Response) -> TimeInterval
    ) async throws -> AuthAppCredential? {
        state.withLock { $0.clientVerificationsInFlight += 1 }
        let response: Response
        do {
            response = try await verifyClient()
        } catch {
            finishClientVerification()
            throw error
        }
        return await waitForPush(receipt: receipt(response), timeout: timeout(response))
    }

    private func finishClientVerification() {
        state.withLock { state in
            state.clientVerificationsInFlight -= 1
            if state.clientVerificationsInFlight == 0 {
                state.early.removeAll()
            }
        }
    }

    private func waitForPush(receipt: String, timeout: TimeInterval) async -> AuthAppCredential? {
        let shot = OneShot<AuthAppCredential?>()
        let (early, observer) = state.withLock { state -> (AuthAppCredential?, (@Sendable (String) -> Void)?) in
            if let index = state.early.firstIndex(where: { $0.receipt == receipt }) {
                let credential = state.early.remove(at: index)
                state.credential = credential
                return (credential, nil)
            }
            state.pending[receipt] = shot
            return (nil, state.receiptObserver)
        }
        finishClientVerification()
        if let early {
            return early
        }
        observer?(receipt)
        let timer = Task {
            try? await Task.sleep(nanoseconds: UInt64(max(0, timeout) * 1_000_000_000))
            shot.resolve(nil)
        }
        let credential = await withTaskCancellationHandler {
            await shot.wait()
        } onCancel: {
            shot.resolve(nil)
        }
        timer.cancel()
        state.withLock { _ = $0.pending.removeValue(forKey: receipt) }
        return credential
    }

    /// A push carrying `receipt` and `secret`: completes the wait for `receipt`, or is kept for a
    /// `verifyClient` still in flight. Returns false if nothing is waiting for it.
    func handlePush(receipt: String, secret: String) -> Bool {
        let credential = AuthAppCredential(receipt: receipt, secret: secret)
        let shot: OneShot<AuthAppCredential?>? = state.withLock { state in
            if let shot = state.pending.removeValue(forKey: receipt) {
                state.credential = credential
                return shot
            }
            return nil
        }
        if let shot {
            shot.resolve(credential)
            return true
        }
        return state.withLock { state in
            guard state.clientVerificationsInFlight > 0 else { return false }
            state.early.removeAll { $0.receipt == receipt }
            state.early.append(credential)
            if state.early.count > Self.maximumEarlyPushes {
                state.early.removeFirst()
            }
            return true
        }
    }
}
