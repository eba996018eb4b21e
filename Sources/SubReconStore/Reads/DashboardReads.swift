/// What the dashboard page reads beyond the reports' rows: each statement of `DashboardSQL` with
/// its bindings and columns. The `byApp` variants read each row's app for the caller to keep the
/// apps `--app` asks for; without it, no app column is read at all.
extension SnapshotQuerying {
    /// How many subscriptions are stored in each status, per app of their receipt.
    public func subscriptionCountsByStatusAndApp() async throws -> [(status: String, bundleID: String?, count: Int64)] {
        try await all(DashboardSQL.subscriptionsByStatusAndApp) { row in
            (try row.requiredText("status"), try row.text("bundle_id"), try row.requiredInteger("value"))
        }
    }

    /// Runs started at or after `sinceMs`, by id.
    public func runs(startedSince sinceMs: Int64) async throws -> [RunRecord] {
        try await all(DashboardSQL.runsSince, [.integer(sinceMs)]) { try RunRecord($0) }
    }

    /// Each notification received at or after `sinceMs`: when, and (`byApp`) its app.
    public func forEachNotificationArrival(
        since sinceMs: Int64, byApp: Bool, _ body: (_ receivedAtMs: Int64, _ bundleID: String?) throws -> Void
    ) async throws {
        try await forEachRow(
            byApp ? DashboardSQL.notificationsSinceByApp : DashboardSQL.notificationTimesSince, [.integer(sinceMs)]
        ) { row in
            try body(try row.requiredInteger("received_at"), byApp ? try row.text("bundle_id") : nil)
        }
    }

    /// Lost orders per run started at or after `sinceMs` (periods a run found first that Apple
    /// billed after the receipt was imported), by run id; `byApp`, one row per run and app.
    public func lostOrderCounts(startedSince sinceMs: Int64, byApp: Bool) async throws
        -> [(runID: Int64, startedAtMs: Int64, bundleID: String?, count: Int64)]
    {
        try await all(
            byApp ? DashboardSQL.periodsFoundByRunSinceByApp : DashboardSQL.periodsFoundByRunSince, [.integer(sinceMs)]
        ) { row in
            (try row.requiredInteger("id"), try row.requiredInteger("started_at"), byApp ? try row.text("bundle_id") : nil,
             try row.requiredInteger("value"))
        }
    }

    /// How many billed periods have no price (or no currency).
    public func unpricedPeriodCount() async throws -> Int64 {
        try await integer(DashboardSQL.periodsWithoutPrice) ?? 0
    }

    /// The same, per app (the receipt's, else the period's).
    public func unpricedPeriodCountsByApp() async throws -> [(bundleID: String?, count: Int64)] {
        try await all(DashboardSQL.periodsWithoutPriceByApp) { row in
            (try row.text("bundle_id"), try row.requiredInteger("value"))
        }
    }
}
