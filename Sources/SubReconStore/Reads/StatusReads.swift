/// What `subrecon status` reads (and the metrics file and the dashboard, which count the same
/// things): each statement of `StatusSQL` with its bindings and columns.
extension SnapshotQuerying {
    /// How many subscriptions are stored in each status (statuses with none are absent).
    public func subscriptionCountsByStatus() async throws -> [String: Int64] {
        var counts: [String: Int64] = [:]
        try await forEachRow(StatusSQL.subscriptionsByStatus, []) { row in
            counts[try row.requiredText("status"), default: 0] += try row.requiredInteger("n")
        }
        return counts
    }

    /// How many receipts are in each verification state, and how many of them are due at `nowMs`
    /// (states with none are absent).
    public func receiptCountsByState(dueAt nowMs: Int64) async throws -> [(state: String, receipts: Int64, due: Int64)] {
        try await all(StatusSQL.receiptsByState, [.integer(nowMs)]) { row in
            (try row.requiredText("state"), try row.requiredInteger("n"), try row.integer("due") ?? 0)
        }
    }

    /// The latest `nightly` nightly runs and the latest `other` runs of other kinds, newest first.
    public func latestRuns(nightly: Int, other: Int) async throws -> [RunRecord] {
        try await all(StatusSQL.latestRuns, [.integer(Int64(nightly)), .integer(Int64(other))]) { try RunRecord($0) }
    }

    /// How many receipts failed at least `threshold` times in a row.
    public func failingReceiptCount(threshold: Int) async throws -> Int64 {
        try await integer(StatusSQL.failingReceiptCount, [.integer(Int64(threshold))]) ?? 0
    }

    /// The receipts that failed at least `threshold` times in a row, most failures first, at most `limit`.
    public func failingReceipts(threshold: Int, limit: Int) async throws -> [FailingReceiptRecord] {
        try await all(StatusSQL.failingReceipts, [.integer(Int64(threshold)), .integer(Int64(limit))]) {
            try FailingReceiptRecord($0)
        }
    }

    /// When the receiver last took a notification; nil when it never did.
    public func lastReceiverDeliveryMs() async throws -> Int64? {
        try await integer(StatusSQL.lastReceiverDelivery)
    }

    /// How many notifications are stored.
    public func notificationCount() async throws -> Int64 {
        try await integer(StatusSQL.notificationCount) ?? 0
    }

    /// How many stored notifications were last received at or after `sinceMs` (any source).
    public func notificationCount(lastReceivedSince sinceMs: Int64) async throws -> Int64 {
        try await integer(StatusSQL.notificationsSince, [.integer(sinceMs)]) ?? 0
    }

    /// How many notifications still wait for a receipt that knows their transaction.
    public func unmatchedNotificationCount() async throws -> Int64 {
        try await integer(StatusSQL.unmatchedNotificationCount) ?? 0
    }
}
