import SubReconModel
import SubReconStore

/// Reads the money ledger one subscription at a time for `report revenue`, `report metrics` and
/// the dashboard: the rows of one original transaction id together, in purchase order, each
/// period once (a receipt two users share records its periods under both). Streaming: memory
/// holds one subscription's periods, never the table.
enum LedgerWalk {
    /// Hands each subscription's periods in `environment` to `body`, ordered by purchase date
    /// (unknown first), then period key.
    static func forEachSubscription(
        _ db: any SnapshotQuerying, environment: String, _ body: ([LedgerEntry]) throws -> Void
    ) async throws {
        var otid: String?
        // Two parallel arrays, reused: a subscription's periods are handed over without copying
        // them again when (as both stores return them) they are in order and each comes once.
        var keys: [String] = []
        var entries: [LedgerEntry] = []
        func flush() throws {
            guard !entries.isEmpty else { return }
            var inOrder = true
            var duplicated = false
            for index in entries.indices.dropFirst() {
                if keys[index] == keys[index - 1] {
                    duplicated = true
                } else if !Self.precedes(
                    entries[index - 1].purchaseDateMs, keys[index - 1], entries[index].purchaseDateMs, keys[index])
                {
                    inOrder = false
                }
            }
            if inOrder, !duplicated {
                try body(entries)
            } else {
                var periods = zip(keys, entries).map { (key: $0, entry: $1) }
                if !inOrder { periods.sort(by: Self.precedes) }
                // A period two users share comes twice, side by side: it counts once.
                var once: [LedgerEntry] = []
                var previous: String?
                for period in periods where period.key != previous {
                    once.append(period.entry)
                    previous = period.key
                }
                try body(once)
            }
            keys.removeAll(keepingCapacity: true)
            entries.removeAll(keepingCapacity: true)
        }
        try await db.forEachLedgerRow(environment: environment) { key, entry in
            if entry.originalTransactionID != otid {
                try flush()
                otid = entry.originalTransactionID
            }
            keys.append(key)
            entries.append(entry)
        }
        try flush()
    }

    /// Purchase order (unknown first), then period key: the order the reports read a subscription in.
    static func precedes(_ a: (key: String, entry: LedgerEntry), _ b: (key: String, entry: LedgerEntry)) -> Bool {
        precedes(a.entry.purchaseDateMs, a.key, b.entry.purchaseDateMs, b.key)
    }

    static func precedes(_ purchaseA: Int64?, _ keyA: String, _ purchaseB: Int64?, _ keyB: String) -> Bool {
        switch (purchaseA, purchaseB) {
        case let (x?, y?) where x != y: return x < y
        case (nil, _?): return true
        case (_?, nil): return false
        default: return keyA.utf8.lexicographicallyPrecedes(keyB.utf8)
        }
    }

    /// The earliest purchase the money reports count in `environment` (the default window's start).
    static func firstPurchaseMs(_ db: any SnapshotQuerying, environment: String) async throws -> Int64? {
        try await db.firstPurchaseMs(environment: environment)
    }

    /// `report revenue`'s rows.
    static func revenueRows(_ db: any SnapshotQuerying, _ options: MoneyReportOptions) async throws -> [[String?]] {
        var report = RevenueReport(options: options)
        try await forEachSubscription(db, environment: options.environment) { report.add(subscription: $0) }
        return report.rows()
    }

    /// `report metrics`'s rows.
    static func metricsRows(_ db: any SnapshotQuerying, _ options: MoneyReportOptions) async throws -> [[String?]] {
        let first = try await firstPurchaseMs(db, environment: options.environment)
        var report = MetricsReport(options: options, nowMs: options.nowMs, firstDataMs: first)
        try await forEachSubscription(db, environment: options.environment) { report.add(subscription: $0) }
        return report.rows()
    }

    /// `report revenue`'s rows per app: each app's rows as `revenueRows` makes them, with the app
    /// last, ordered by period, then app (then product and currency, as before).
    static func revenueRowsByApp(_ db: any SnapshotQuerying, _ options: ReportOptions) async throws -> [[String?]] {
        let money = options.money ?? MoneyReportOptions(nowMs: options.nowMs)
        var reports: [String?: RevenueReport] = [:]
        try await forEachSubscriptionByApp(db, options) { app, entries in
            reports[app, default: RevenueReport(options: money)].add(subscription: entries)
        }
        return byPeriodThenApp(reports.mapValues { $0.rows() }, options)
    }

    /// `report metrics`'s rows per app, as `revenueRowsByApp` orders them.
    static func metricsRowsByApp(_ db: any SnapshotQuerying, _ options: ReportOptions) async throws -> [[String?]] {
        let money = options.money ?? MoneyReportOptions(nowMs: options.nowMs)
        let first = try await firstPurchaseMs(db, environment: money.environment)
        var reports: [String?: MetricsReport] = [:]
        // With one app and no data the report still has its rows (every month at zero), as before.
        if options.apps.count <= 1 {
            reports[options.apps.first ?? options.defaultBundleID] = MetricsReport(
                options: money, nowMs: money.nowMs, firstDataMs: first)
        }
        try await forEachSubscriptionByApp(db, options) { app, entries in
            reports[app, default: MetricsReport(options: money, nowMs: money.nowMs, firstDataMs: first)]
                .add(subscription: entries)
        }
        return byPeriodThenApp(reports.mapValues { $0.rows() }, options)
    }

    /// `report metrics`'s and `report revenue`'s rows over the apps `--app` keeps, taken
    /// together (the dashboard's figures for those apps).
    static func rowsOfApps(_ db: any SnapshotQuerying, _ options: ReportOptions) async throws
        -> (metrics: [[String?]], revenue: [[String?]])
    {
        let money = options.money ?? MoneyReportOptions(nowMs: options.nowMs)
        let first = try await firstPurchaseMs(db, environment: money.environment)
        var metrics = MetricsReport(options: money, nowMs: money.nowMs, firstDataMs: first)
        var revenue = RevenueReport(options: money)
        try await forEachSubscriptionByApp(db, options) { _, entries in
            metrics.add(subscription: entries)
            revenue.add(subscription: entries)
        }
        return (metrics.rows(), revenue.rows())
    }

    /// Each subscription's periods with its app (the app of the receipt holding it, else the
    /// deployment's one app), the apps `--app` keeps only.
    private static func forEachSubscriptionByApp(
        _ db: any SnapshotQuerying, _ options: ReportOptions, _ body: (String?, [LedgerEntry]) throws -> Void
    ) async throws {
        let money = options.money ?? MoneyReportOptions(nowMs: options.nowMs)
        let appOf = try await db.subscriptionApps()
        try await forEachSubscription(db, environment: money.environment) { entries in
            let app = entries.first.flatMap { appOf[$0.originalTransactionID] } ?? options.defaultBundleID
            guard options.includes(bundleID: app) else { return }
            try body(app, entries)
        }
    }

    /// The apps' rows, the app appended, ordered by period (the first column), then app; each
    /// app's own order kept within.
    private static func byPeriodThenApp(_ rowsByApp: [String?: [[String?]]], _ options: ReportOptions) -> [[String?]] {
        let apps = rowsByApp.keys.sorted { ($0 ?? "").utf8.lexicographicallyPrecedes(($1 ?? "").utf8) }
        var rows: [(period: String, appIndex: Int, index: Int, row: [String?])] = []
        for (appIndex, app) in apps.enumerated() {
            for (index, row) in (rowsByApp[app] ?? []).enumerated() {
                rows.append((row.first.flatMap { $0 } ?? "", appIndex, index, row + [app]))
            }
        }
        rows.sort { lhs, rhs in
            if lhs.period != rhs.period { return lhs.period.utf8.lexicographicallyPrecedes(rhs.period.utf8) }
            if lhs.appIndex != rhs.appIndex { return lhs.appIndex < rhs.appIndex }
            return lhs.index < rhs.index
        }
        return rows.map(\.row)
    }
}
