/// Per-project, per-day usage counts (the console's usage page). Days are UTC epoch days.
extension UsageStore {
    /// Adds `count` to `metric` of `projectID` on `day`.
    public func addUsage(projectID: String, day: Int64, metric: String, count: Int64) async throws {
        try await database.query(
            """
            INSERT INTO usage_daily (project_id, day, metric, count) VALUES (?, ?, ?, ?)
            ON CONFLICT (project_id, day, metric) DO UPDATE SET count = usage_daily.count + excluded.count
            """,
            .text(projectID), .int(day), .text(metric), .int(count))
    }

    /// The counts of `projectID` from `firstDay` on, as (day, metric, count) rows.
    public func usage(projectID: String, fromDay firstDay: Int64) async throws -> [(day: Int64, metric: String, count: Int64)] {
        try await database.query(
            "SELECT day, metric, count FROM usage_daily WHERE project_id = ? AND day >= ? ORDER BY day DESC, metric",
            .text(projectID), .int(firstDay)
        ).compactMap { row in
            guard let day = row.int("day"), let metric = row.string("metric"), let count = row.int("count") else { return nil }
            return (day, metric, count)
        }
    }

    /// Deletes the counts of days before `day`.
    @discardableResult
    public func deleteUsage(before day: Int64) async throws -> Int {
        try await database.query("DELETE FROM usage_daily WHERE day < ? RETURNING project_id", .int(day)).count
    }
}
