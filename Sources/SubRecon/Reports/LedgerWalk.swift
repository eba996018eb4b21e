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
        var periods: [(key: String, entry: LedgerEntry)] = []
        func flush() throws {
            guard !periods.isEmpty else { return }
            periods.sort { a, b in
                switch (a.entry.purchaseDateMs, b.entry.purchaseDateMs) {
                case let (x?, y?) where x != y: return x < y
                case (nil, _?): return true
                case (_?, nil): return false
                default: return a.key.utf8.lexicographicallyPrecedes(b.key.utf8)
                }
            }
            var seen: Set<String> = []
            try body(periods.compactMap { seen.insert($0.key).inserted ? $0.entry : nil })
            periods.removeAll(keepingCapacity: true)
        }
        // Rows without an environment (stored before v9 and never matched to a subscription) are
        // Production's, as `LedgerEntry.counts(in:)` reads them.
        try await db.forEachRow(
            """
                SELECT original_transaction_id, period_key, product_id, purchase_date_ms, expires_date_ms,
                       cancellation_date_ms, is_upgraded, price_milliunits, currency, offer_discount_type,
                       transaction_reason, ownership_type, environment, refund_milliunits
                FROM renewals WHERE COALESCE(environment, 'Production') = ?
                ORDER BY original_transaction_id
                """, [.text(environment)]
        ) { row in
            // By position (the SELECT's order): a million rows of lookups by name cost seconds.
            guard let id = try row.text(at: 0), let key = try row.text(at: 1), let product = try row.text(at: 2),
                let expires = try row.integer(at: 4)
            else { throw StoreError.failed(operation: "reading the ledger", reason: "a NOT NULL column is NULL") }
            if id != otid {
                try flush()
                otid = id
            }
            periods.append((
                key,
                LedgerEntry(
                    originalTransactionID: id, productID: product, purchaseDateMs: try row.integer(at: 3),
                    expiresDateMs: expires, cancellationDateMs: try row.integer(at: 5),
                    isUpgraded: (try row.integer(at: 6) ?? 0) != 0, priceMilliunits: try row.integer(at: 7),
                    currency: try row.text(at: 8), offerDiscountType: try row.text(at: 9),
                    transactionReason: try row.text(at: 10), ownershipType: try row.text(at: 11),
                    environment: try row.text(at: 12), refundMilliunits: try row.integer(at: 13))
            ))
        }
        try flush()
    }

    /// The earliest purchase the money reports count in `environment` (the default window's start).
    static func firstPurchaseMs(_ db: any SnapshotQuerying, environment: String) async throws -> Int64? {
        try await db.integer(
            """
            SELECT MIN(purchase_date_ms) AS value FROM renewals
            WHERE COALESCE(environment, 'Production') = ? AND (ownership_type IS NULL OR ownership_type IN ('', 'PURCHASED'))
            """, [.text(environment)])
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
