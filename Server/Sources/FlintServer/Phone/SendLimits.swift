/// The budget for sending codes by SMS, counted in the shared store so it holds across nodes:
/// per project per minute (`QUOTA_EXCEEDED`), per client IP per minute and per hour, per number per
/// hour, and a shortest interval between two codes to one number (`TOO_MANY_ATTEMPTS_TRY_LATER`).
/// Fictional test numbers are held to the per-client budget only. Clients are counted by
/// `Caller.clientLimitKey` (an IPv6 client by its /64).
struct SendLimits: Sendable {
    let store: Store
    let clock: any FlintClock
    let limits: PhoneLimits

    /// Counts one send and throws if any budget is spent; nothing may be sent after a throw. The client's
    /// and the number's budgets are asked first: a pumping script they refuse takes none of the project's
    /// quota, which its real users need.
    func admit(phoneNumber: String, projectID: String, client: String?, purpose: String, regionDailyCap: Int64? = nil) async throws {
        let now = clock.seconds
        let minute = now - now % 60
        let hour = now - now % 3600

        if let last = try await store.lastVerificationCodeSent(projectID: projectID, phoneNumber: phoneNumber, purpose: purpose),
           clock.milliseconds - last < limits.resendIntervalSeconds * 1000 {
            throw FlintError(.tooManyAttempts, "Wait before asking for another code for this number.")
        }
        try await admit(client: client, projectID: projectID)
        if try await store.incrementCounter("sms:number:\(projectID):\(phoneNumber)", windowStart: hour) > limits.perNumberPerHour {
            throw FlintError(.tooManyAttempts, "Too many codes sent to this number.")
        }
        if let regionDailyCap {
            // Numbers are counted by the regions their calling code serves (+1: all of NANP at once).
            let region = PhoneRegions.regions(ofE164: phoneNumber).sorted().joined(separator: ",")
            if try await store.incrementCounter("sms:region-day:\(projectID):\(region)", windowStart: now - now % 86_400) > regionDailyCap {
                throw FlintError(.quotaExceeded, "The project's daily SMS cap for this region is used up.")
            }
        }
        if try await store.incrementCounter("sms:project:\(projectID)", windowStart: minute) > limits.perProjectPerMinute {
            throw FlintError(.quotaExceeded, "The project's SMS quota is used up; try again in a minute.")
        }
    }

    /// The client's budget alone: what fictional test numbers, which send nothing, are held to, so their
    /// codes cannot be requested (and guessed) without bound.
    func admit(client: String?, projectID: String) async throws {
        guard let client else { return }
        let now = clock.seconds
        let perMinute = try await store.incrementCounter("sms:ip-minute:\(projectID):\(client)", windowStart: now - now % 60)
        let perHour = try await store.incrementCounter("sms:ip-hour:\(projectID):\(client)", windowStart: now - now % 3600)
        if perMinute > limits.perIPPerMinute || perHour > limits.perIPPerHour {
            throw FlintError(.tooManyAttempts, "Too many codes requested from this address.")
        }
    }
}
