import Foundation

/// The verification codes an `Auth` has asked for recently, by phone number: a repeated
/// `verifyPhoneNumber` for a number whose code is being sent, or was sent less than `reuseInterval`
/// ago and not used since, shares that send and its verification ID instead of texting again.
final class PhoneVerificationCache: Sendable {
    /// How long a sent code's verification ID is handed out again. Codes live longer (Flint: 5 minutes).
    static let reuseInterval: TimeInterval = 120

    private struct Entry: Sendable {
        let id: UUID
        let send: Task<String, any Error>
        var sentAt: Date?
        var verificationID: String?
    }

    private let entries = Locked<[String: Entry]>([:])

    /// The verification ID of a send for `key` in flight or recent, else of a new `send()`.
    /// A failed send is forgotten, so the next call tries again.
    func verificationID(for key: String, send: @escaping @Sendable () async throws -> String) async throws -> String {
        let now = Date()
        let task = entries.withLock { entries -> Task<String, any Error> in
            if let entry = entries[key],
               entry.sentAt.map({ now.timeIntervalSince($0) < Self.reuseInterval }) ?? true {
                return entry.send
            }
            let id = UUID()
            let task = Task {
                do {
                    let verificationID = try await send()
                    self.entries.withLock { entries in
                        guard entries[key]?.id == id else { return }
                        entries[key]?.sentAt = Date()
                        entries[key]?.verificationID = verificationID
                    }
                    return verificationID
                } catch {
                    self.entries.withLock { entries in
                        if entries[key]?.id == id { entries[key] = nil }
                    }
                    throw error
                }
            }
            entries[key] = Entry(id: id, send: task)
            return task
        }
        return try await task.value
    }

    /// Stops handing out `verificationID`: its code was used, or the server no longer knows it.
    func forget(verificationID: String) {
        entries.withLock { entries in
            entries = entries.filter { $0.value.verificationID != verificationID }
        }
    }
}
