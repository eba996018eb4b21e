/// What `report events`, `status` and the metrics read about events.
extension SnapshotQuerying {
    /// Events created in `[sinceMs, untilMs)`, of `type` when given, by position.
    public func forEachEventReportRow(
        sinceMs: Int64, untilMs: Int64, type: String?, _ body: (EventReportRow) throws -> Void
    ) async throws {
        let arguments: [SQLArgument] = [.integer(sinceMs), .integer(untilMs)] + (type.map { [.text($0)] } ?? [])
        try await forEachRow(EventReportSQL.events(byType: type != nil), arguments) { try body(.init($0)) }
    }

    /// Pending and dead events per app, apps in bundle ID order (apps with neither are absent).
    public func eventCountsByApp() async throws -> [EventCountsByApp] {
        var counts: [String: EventCountsByApp] = [:]
        try await forEachRow(EventReportSQL.pendingByApp, []) { row in
            let app = try row.requiredText("bundle_id")
            counts[app, default: EventCountsByApp(app: app)].pending = try row.requiredInteger("n")
            counts[app]?.oldestPendingCreatedAtMs = try row.integer("oldest")
        }
        try await forEachRow(EventReportSQL.deadByApp, []) { row in
            let app = try row.requiredText("bundle_id")
            counts[app, default: EventCountsByApp(app: app)].dead = try row.requiredInteger("n")
        }
        return counts.values.sorted { $0.app < $1.app }
    }

    /// Webhook attempts ever recorded, by result (`delivered`, `failed`).
    public func webhookAttemptTotals() async throws -> [String: Int64] {
        var totals: [String: Int64] = [:]
        try await forEachRow(EventReportSQL.attemptTotals, []) { row in
            totals[try row.requiredText("result")] = try row.requiredInteger("attempts")
        }
        return totals
    }
}
