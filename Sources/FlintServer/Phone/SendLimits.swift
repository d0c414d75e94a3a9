/// The budget for sending codes by SMS, counted in the shared store so it holds across nodes:
/// per project per minute (`QUOTA_EXCEEDED`), per client IP per minute and per hour, per number per
/// hour, and a shortest interval between two codes to one number (`TOO_MANY_ATTEMPTS_TRY_LATER`).
/// Fictional test numbers never reach this type.
struct SendLimits: Sendable {
    let store: Store
    let clock: any FlintClock
    let limits: PhoneLimits

    /// Counts one send and throws if any budget is spent; nothing may be sent after a throw.
    func admit(phoneNumber: String, projectID: String, clientIP: String?, purpose: String) async throws {
        let now = clock.seconds
        let minute = now - now % 60
        let hour = now - now % 3600

        if let last = try await store.lastVerificationCodeSent(projectID: projectID, phoneNumber: phoneNumber, purpose: purpose),
           clock.milliseconds - last < limits.resendIntervalSeconds * 1000 {
            throw FlintError(.tooManyAttempts, "Wait before asking for another code for this number.")
        }
        if try await store.incrementCounter("sms:project:\(projectID)", windowStart: minute) > limits.perProjectPerMinute {
            throw FlintError(.quotaExceeded, "The project's SMS quota is used up; try again in a minute.")
        }
        if let clientIP {
            let perMinute = try await store.incrementCounter("sms:ip-minute:\(projectID):\(clientIP)", windowStart: minute)
            let perHour = try await store.incrementCounter("sms:ip-hour:\(projectID):\(clientIP)", windowStart: hour)
            if perMinute > limits.perIPPerMinute || perHour > limits.perIPPerHour {
                throw FlintError(.tooManyAttempts, "Too many codes requested from this address.")
            }
        }
        if try await store.incrementCounter("sms:number:\(projectID):\(phoneNumber)", windowStart: hour) > limits.perNumberPerHour {
            throw FlintError(.tooManyAttempts, "Too many codes sent to this number.")
        }
    }
}
