import SubReconModel
import SubReconStore

/// Gathers the dashboard's figures from one read snapshot: the same rows the CSV reports write
/// (`report metrics` and `report revenue` by month, `runs`, `notifications`, `unrecorded`), so
/// the page and the CSVs never disagree.
enum DashboardReader {
    static let statusOrder = ["active", "grace_period", "billing_retry", "expired", "refunded"]

    static func data(
        _ db: any SnapshotQuerying, options: ReportOptions, databaseLabel: String
    ) async throws -> DashboardData {
        let money = options.money ?? MoneyReportOptions(nowMs: options.nowMs)
        let sinceMs = options.sinceMs ?? .min
        var data = DashboardData(
            generatedAt: ISO8601.string(fromMilliseconds: options.nowMs), databaseLabel: databaseLabel,
            since: options.sinceMs.map { String(ISO8601.string(fromMilliseconds: $0).prefix(10)) })

        data.apps = options.apps
        let narrowed = !options.apps.isEmpty
        var counts: [String: Int] = [:]
        if narrowed {
            for counted in try await db.subscriptionCountsByStatusAndApp() where options.includes(bundleID: counted.bundleID) {
                counts[counted.status, default: 0] += Int(counted.count)
            }
        } else {
            for (status, count) in try await db.subscriptionCountsByStatus() { counts[status, default: 0] += Int(count) }
        }
        data.statusCounts = statusOrder.map { DashboardData.StatusCount(status: $0, count: counts[$0] ?? 0) }
        data.entitled = statusOrder.filter { SubscriptionStatus(rawValue: $0)?.isEntitled == true }.reduce(0) { $0 + (counts[$1] ?? 0) }

        let current = ReportPeriod(holding: options.nowMs, granularity: .month).label
        let ledger = narrowed
            ? try await LedgerWalk.rowsOfApps(db, options)
            : (metrics: try await LedgerWalk.metricsRows(db, money), revenue: try await LedgerWalk.revenueRows(db, money))
        for row in ledger.metrics {
            let point = DashboardData.MetricsPoint(
                period: row[0] ?? "", currency: row[1] ?? "", activePaid: int(row[2]), activeTrials: int(row[3]),
                mrrMilliunits: Int64(row[4] ?? "") ?? 0, mrrText: row[5] ?? "", churned: int(row[6]), churnRate: row[7] ?? "")
            data.metrics.append(point)
            if point.period == current, !point.mrrText.isEmpty {
                data.currentMRR.append(.init(currency: point.currency, milliunits: point.mrrMilliunits, text: point.mrrText))
            }
        }
        data.revenue = revenueByMonth(ledger.revenue)

        data.runs = try await db.runs(startedSince: sinceMs).map { run in
            .init(
                id: run.id, kind: run.kind, startedAt: ISO8601.string(fromMilliseconds: run.startedAtMs),
                durationMs: run.finishedAtMs.map { $0 - run.startedAtMs }, updated: Int(run.updated),
                unchanged: Int(run.unchanged), invalid: Int(run.invalid), accountGone: Int(run.accountGone),
                failed: Int(run.failed), exitCode: run.exitCode.map { Int($0) }, status: run.status)
        }

        var perDay: [String: Int] = [:]
        try await db.forEachNotificationArrival(since: sinceMs, byApp: narrowed) { receivedAtMs, bundleID in
            if narrowed, !options.includes(bundleID: bundleID) { return }
            perDay[String(ISO8601.string(fromMilliseconds: receivedAtMs).prefix(10)), default: 0] += 1
        }
        data.notificationsPerDay = perDay.keys.sorted().map { .init(day: $0, count: perDay[$0] ?? 0) }

        // Lost orders: periods a run found first (`report unrecorded`), per run.
        for counted in try await db.lostOrderCounts(startedSince: sinceMs, byApp: narrowed) {
            if narrowed, !options.includes(bundleID: counted.bundleID) { continue }
            let count = Int(counted.count)
            // By app, one run comes in a row per app: they add up.
            if let last = data.lostOrdersPerRun.indices.last, data.lostOrdersPerRun[last].runID == counted.runID {
                data.lostOrdersPerRun[last].count += count
                continue
            }
            data.lostOrdersPerRun.append(
                .init(runID: counted.runID, startedAt: ISO8601.string(fromMilliseconds: counted.startedAtMs), count: count))
        }
        // Apple's sales reports are one per vendor account, so they are matched for every app.
        data.appleParity = try await appleParity(db, options: options)
        if narrowed {
            for counted in try await db.unpricedPeriodCountsByApp() where options.includes(bundleID: counted.bundleID) {
                data.unpricedPeriods += Int(counted.count)
            }
        } else {
            data.unpricedPeriods = Int(try await db.unpricedPeriodCount())
        }
        return data
    }

    /// `report apple-parity` over every stored day (nil when no Apple report is stored), as its
    /// summary says it, with the worst days.
    static func appleParity(_ db: any SnapshotQuerying, options: ReportOptions) async throws -> DashboardData.AppleParity? {
        let outcome = try await AppleParityReport.outcome(db, options: ReportOptions(nowMs: options.nowMs))
        let summary = outcome.summary
        guard let first = summary.firstDay, let last = summary.lastDay else { return nil }
        var lostByDay: [CalendarDay: Int64] = [:]
        for row in outcome.rows where row.key.kind == .billed && row.status == .missingInLedger {
            lostByDay[row.key.day, default: 0] += row.unexplainedUnits
        }
        return DashboardData.AppleParity(
            firstDay: first.text, lastDay: last.text, daysCompared: summary.daysCompared,
            billedMatched: Int(summary.billedPeriodsMatched), lostOrders: Int(summary.lostOrders),
            worstDays: summary.worstDays.map {
                .init(day: $0.day.text, unexplainedUnits: Int($0.unexplainedUnits), lostOrders: Int(lostByDay[$0.day] ?? 0))
            })
    }

    /// `report revenue`'s rows summed over products: one point per (month, currency). The
    /// decimal text is written from each sum as the CSV writes a slot's (empty without a price).
    static func revenueByMonth(_ rows: [[String?]]) -> [DashboardData.RevenuePoint] {
        struct Key: Hashable { var period: String, currency: String }
        var points: [Key: DashboardData.RevenuePoint] = [:]
        var priced: Set<Key> = []
        var order: [Key] = []
        for row in rows {
            let key = Key(period: row[0] ?? "", currency: row[2] ?? "")
            if points[key] == nil {
                order.append(key)
                points[key] = .init(
                    period: key.period, currency: key.currency, paidPeriods: 0, refunds: 0, grossMilliunits: 0,
                    refundedMilliunits: 0, netMilliunits: 0, grossText: "", refundedText: "", netText: "")
            }
            points[key]?.paidPeriods += int(row[3])
            points[key]?.refunds += int(row[8])
            points[key]?.grossMilliunits += Int64(row[9] ?? "") ?? 0
            points[key]?.refundedMilliunits += Int64(row[10] ?? "") ?? 0
            points[key]?.netMilliunits += Int64(row[11] ?? "") ?? 0
            points[key]?.unpricedPeriods += int(row[15])
            if row[12] != nil { priced.insert(key) }
        }
        return order.sorted { ($0.period, $0.currency) < ($1.period, $1.currency) }.compactMap { key in
            guard var point = points[key] else { return nil }
            if priced.contains(key) {
                point.grossText = MoneyText.text(milliunits: point.grossMilliunits, currency: key.currency)
                point.refundedText = MoneyText.text(milliunits: point.refundedMilliunits, currency: key.currency)
                point.netText = MoneyText.text(milliunits: point.netMilliunits, currency: key.currency)
            }
            return point
        }
    }

    private static func int(_ text: String?) -> Int { Int(text ?? "") ?? 0 }
}
