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
            let id = try row.requiredText("original_transaction_id")
            if id != otid {
                try flush()
                otid = id
            }
            periods.append((
                try row.requiredText("period_key"),
                LedgerEntry(
                    originalTransactionID: id, productID: try row.requiredText("product_id"),
                    purchaseDateMs: try row.integer("purchase_date_ms"), expiresDateMs: try row.requiredInteger("expires_date_ms"),
                    cancellationDateMs: try row.integer("cancellation_date_ms"), isUpgraded: try row.flag("is_upgraded") ?? false,
                    priceMilliunits: try row.integer("price_milliunits"), currency: try row.text("currency"),
                    offerDiscountType: try row.text("offer_discount_type"), transactionReason: try row.text("transaction_reason"),
                    ownershipType: try row.text("ownership_type"), environment: try row.text("environment"),
                    refundMilliunits: try row.integer("refund_milliunits"))
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
