import SubReconModel
import SubReconAppStore
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
        try await db.integer(
            ReportSQL.firstPurchaseMs, [.text(environment)])
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
}
