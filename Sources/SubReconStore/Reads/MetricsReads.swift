/// What the metrics file and the due policy read: each statement of `MetricsSQL` with its
/// bindings and columns.
extension SnapshotQuerying {
    /// When the last run of `kind` that exited 0 finished; nil when none did.
    public func lastSuccessfulRunFinishedAtMs(kind: String) async throws -> Int64? {
        try await integer(MetricsSQL.lastSuccessfulRun, [.text(kind)])
    }

    /// How many times each Apple status was answered in a run, by status.
    public func appleStatusCounts(ofRun runID: Int64) async throws -> [(status: Int64, count: Int64)] {
        try await all(MetricsSQL.appleStatusesOfRun, [.integer(runID)]) { row in
            (try row.requiredInteger("apple_status"), try row.requiredInteger("n"))
        }
    }

    /// How many receipts are due at `nowMs`.
    public func dueReceiptCount(at nowMs: Int64) async throws -> Int64 {
        try await integer(MetricsSQL.dueReceiptCount, [.integer(nowMs)]) ?? 0
    }

    /// How many notifications were delivered (by the receiver or a backfill, not an import) since `sinceMs`.
    public func deliveredNotificationCount(since sinceMs: Int64) async throws -> Int64 {
        try await integer(MetricsSQL.deliveredNotificationsSince, [.integer(sinceMs)]) ?? 0
    }
}
