/// The statements of the measuring tool (`subrecon-bench`): seeding its databases, reading back
/// what a run or the receiver recorded, and the naive baseline's own table. Kept here, not in
/// the store: the rule is no SQL in the application, and the product does not ship the
/// benchmark's SQL. They run through the stores' raw access (`AppDatabase.writer`, a
/// `PostgresConnection`, `SnapshotQuerying`).
enum BenchmarkSQL {
    /// The generated ledger's payer-owned priced periods in production (`money`: Apple's reports made from it).
    static let ledgerSalesRows = """
        SELECT product_id, purchase_date_ms, cancellation_date_ms, price_milliunits, currency, storefront,
            revocation_type, refund_milliunits, transaction_reason, original_transaction_id
        FROM renewals
        WHERE COALESCE(environment, 'Production') IN ('Production', '')
          AND COALESCE(ownership_type, 'PURCHASED') IN ('PURCHASED', '')
          AND currency IS NOT NULL AND currency <> ''
        """
    /// One generated billed period (`money`).
    static let insertLedgerPeriod = """
        INSERT INTO renewals (user_id, period_key, transaction_id, original_transaction_id,
            web_order_line_item_id, product_id, purchase_date_ms, expires_date_ms, cancellation_date_ms,
            is_trial_period, is_in_intro_offer_period, first_seen_at, price_milliunits, currency, storefront,
            offer_type, offer_discount_type, offer_period, transaction_reason, ownership_type, environment,
            revocation_type, revocation_percentage, refund_milliunits, is_upgraded, ledger_signed_date)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'Production', ?, ?, ?, 0, ?)
        """
    /// One generated subscription (`money`).
    static let insertLedgerSubscription = """
        INSERT INTO subscriptions (user_id, original_transaction_id, product_id, status, expires_date_ms,
            auto_renew_status, ownership_type, environment, last_verified_at, first_seen_at, updated_at)
        VALUES (?, ?, ?, ?, ?, 1, ?, 'Production', ?, ?, ?)
        """
    /// The server processes serving this database's connections (`webhooks`: their CPU).
    static let databaseBackends = "SELECT pid FROM pg_stat_activity WHERE datname = current_database()"
    /// Every event delivered: a deployment's history before a backlog (`webhooks --history`).
    static let markEventsDelivered = "UPDATE events SET state = 'delivered', attempts = 1, delivered_at = created_at"
    /// The latest run.
    static let latestRun = "SELECT MAX(id) FROM runs"
    /// One run's items by outcome, and what they tell of the requests it needed (`server-api`).
    static let runOutcomes = """
        SELECT COUNT(*) AS items,
            COALESCE(SUM(outcome = 'updated'), 0) AS updated,
            COALESCE(SUM(outcome = 'unchanged'), 0) AS unchanged,
            COALESCE(SUM(outcome = 'invalid'), 0) AS invalid,
            COALESCE(SUM(outcome = 'account_gone'), 0) AS account_gone,
            COALESCE(SUM(outcome = 'failed'), 0) AS failed,
            COALESCE(SUM(outcome = 'invalid' AND apple_status IS NULL), 0) AS unasked,
            COALESCE(SUM(environment = 'Sandbox' AND outcome <> 'failed'), 0) AS sandbox,
            COALESCE(SUM(outcome = 'invalid' AND apple_status = 4040010), 0) AS not_found
        FROM run_items WHERE run_id = ?
        """
    /// Subscriptions stored.
    static let subscriptionCount = "SELECT COUNT(*) FROM subscriptions"
    /// Periods a run found first, per user (the history pages it read).
    static let periodsPerUserOfRun = "SELECT COUNT(*) FROM renewals WHERE first_seen_run_id = ? GROUP BY user_id"
    /// Each worker's run: its process, times and items (`workers`).
    static let workerRuns = """
        SELECT pid, started_at, finished_at, (SELECT COUNT(*) FROM run_items WHERE run_id = runs.id) AS items
        FROM runs ORDER BY id
        """
    /// Receipts written, items, and receipts verified twice across the workers (`workers`).
    static let runItemsPerReceipt = """
        SELECT COUNT(*) AS receipts, CAST(COALESCE(SUM(items), 0) AS BIGINT) AS items,
            CAST(COALESCE(SUM(CASE WHEN items > 1 THEN 1 ELSE 0 END), 0) AS BIGINT) AS twice
        FROM (SELECT receipt_id, COUNT(*) AS items FROM run_items GROUP BY receipt_id) per_receipt
        """
    /// One generated receipt, due now.
    static let seedReceipt = """
        INSERT INTO receipts (user_id, receipt_data, product_id, environment, imported_at, next_due_at)
        VALUES (?, ?, ?, NULL, ?, 0)
        """
    /// The naive baseline's own table: one row per receipt, its state in columns.
    static let naiveTable = """
        CREATE TABLE receipts (
            id INTEGER PRIMARY KEY, user_id TEXT NOT NULL, receipt_data TEXT NOT NULL,
            status TEXT, expires_date_ms INTEGER, last_status INTEGER, last_verified_at INTEGER)
        """
    /// A receipt of the naive baseline.
    static let naiveInsert = "INSERT INTO receipts (user_id, receipt_data) VALUES (?, ?)"
    /// The naive baseline's receipts, in order.
    static let naiveReceipts = "SELECT id, receipt_data FROM receipts ORDER BY id"
    /// The naive baseline's write of one answer.
    static let naiveUpdate = """
        UPDATE receipts SET receipt_data = COALESCE(?, receipt_data), status = ?, expires_date_ms = ?,
            last_status = ?, last_verified_at = ? WHERE id = ?
        """
    /// Items, sandbox reroutes and failures of the run (`throughput`: Apple calls made).
    static let runItemCalls = """
        SELECT COUNT(*) AS items, COALESCE(SUM(environment = 'Sandbox'), 0) AS sandbox,
            COALESCE(SUM(outcome = 'failed'), 0) AS failed
        FROM run_items
        """
    /// Every answered check, by receipt and time, and whether it found the subscription active (`due-policy`).
    static let checksInOrder = """
        SELECT receipt_id, recorded_at, new_status = 'active' FROM run_items
        WHERE outcome <> 'failed' ORDER BY receipt_id, recorded_at
        """
    /// Every subscription's state (`due-policy`).
    static let subscriptionStates = "SELECT user_id, original_transaction_id, status, expires_date_ms, product_id FROM subscriptions"
    /// Checks per user (`due-policy`).
    static let verificationsPerUser = "SELECT user_id, COUNT(*) FROM run_items GROUP BY user_id"
    /// The receiver's stored notifications by outcome, with their deliveries (`receiver`).
    static let receiverOutcomes = """
        SELECT outcome, COUNT(*) AS n, CAST(SUM(deliveries) AS BIGINT) AS deliveries
        FROM notifications WHERE source = 'receiver' GROUP BY outcome
        """

    /// `count` earlier notifications for the receiver's benchmark (applied, one delivery each,
    /// uuids `prefix` + N, one every 10 s before `nowMs`): SQLite numbers them with a recursive
    /// query, PostgreSQL with `generate_series`. Whole numbers only, so interpolating them is safe.
    static func notificationHistory(count: Int, nowMs: Int64, prefix: String, postgres: Bool) -> String {
        let columns = """
            notification_uuid, notification_type, environment, signed_date, outcome, source, received_at,
            last_received_at, deliveries
            """
        let select = """
            SELECT '\(prefix)' || g, 'DID_RENEW', 'Sandbox', \(nowMs) - g * 10000, 'applied', 'backfill',
                \(nowMs) - g * 10000, \(nowMs) - g * 10000, 1
            """
        return postgres
            ? "INSERT INTO notifications (\(columns)) \(select) FROM generate_series(1, \(count)) AS g"
            : """
            WITH RECURSIVE n(g) AS (SELECT 1 UNION ALL SELECT g + 1 FROM n WHERE g < \(count))
            INSERT INTO notifications (\(columns)) \(select) FROM n
            """
    }

    /// Fresh statistics after seeding, as autovacuum (PostgreSQL) or a long-lived database keeps them.
    static let analyze = "ANALYZE"
    static let vacuumAnalyze = "VACUUM ANALYZE"
    /// A seeded SQLite file with its write-ahead log folded in, so the run starts from a clean file.
    static let checkpoint = "PRAGMA wal_checkpoint(TRUNCATE)"
    /// A throwaway database of the benchmark's own (`name`: letters, digits and `_`, made by it).
    static func createDatabase(_ name: some StringProtocol) -> String { "CREATE DATABASE \(name)" }
    static func dropDatabase(_ name: String) -> String { "DROP DATABASE IF EXISTS \(name) WITH (FORCE)" }
}
