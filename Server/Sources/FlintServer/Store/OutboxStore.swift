/// Emails a node could not send before it stopped (`EmailOutbox`), sealed, until the next node takes them.
extension OutboxStore {
    /// Keeps `sealed` messages.
    func addPendingEmails(_ sealed: [String]) async throws {
        try await database.transaction { tx in
            for message in sealed { try await tx.query("INSERT INTO pending_emails (sealed) VALUES (?)", [.text(message)]) }
        }
    }

    /// Takes every kept message out of the store: each goes to exactly one caller, however many nodes start at once.
    func takePendingEmails() async throws -> [String] {
        try await database.query("DELETE FROM pending_emails RETURNING sealed").compactMap { $0.string("sealed") }
    }
}
