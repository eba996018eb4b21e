import Foundation
import GRDB

/// Writes a report as CSV, streaming rows from the database (a read transaction: a consistent
/// snapshot even while a run writes). Reports never call Apple.
public struct ReportExporter: Sendable {
    let database: AppDatabase

    public init(database: AppDatabase) { self.database = database }

    /// - Parameter runID: for `run-items` and `changes`; nil means the latest run of either kind.
    public func export(_ kind: ReportKind, runID: Int64? = nil, to sink: @escaping CSVWriter.Sink) throws(ReportError) {
        try export(kind, options: ReportOptions(runID: runID, nowMs: Self.wallClockMs()), to: sink)
    }

    /// Writes `kind`, narrowed by `options` (see ``ReportOptions/parse(kind:runID:since:until:within:nowMs:)``).
    public func export(_ kind: ReportKind, options: ReportOptions, to sink: @escaping CSVWriter.Sink) throws(ReportError) {
        do {
            try database.writer.read { db in
                var csv = CSVWriter(sink: sink)
                try csv.writeRow(kind.columns)
                switch kind {
                case .subscriptions: try Self.subscriptions(db, &csv)
                case .renewals: try Self.renewals(db, &csv)
                case .runs: try Self.runs(db, options, &csv)
                case .runItems: try Self.runItems(db, runID: options.runID, &csv)
                case .changes: try Self.changes(db, options, &csv)
                case .expiring: try Self.expiring(db, options, &csv)
                case .unrecorded: try Self.unrecorded(db, options, &csv)
                case .shared: try Self.shared(db, &csv)
                }
                try csv.finish()
            }
        } catch let error as ReportError {
            throw error
        } catch {
            throw .failed("\(error)")
        }
    }

    private static func subscriptions(_ db: Database, _ csv: inout CSVWriter) throws {
        let rows = try Row.fetchCursor(
            db,
            sql: """
                SELECT user_id, original_transaction_id, product_id, status, expires_date_ms, auto_renew_status,
                       auto_renew_product_id, expiration_intent, grace_period_expires_date_ms, is_in_billing_retry,
                       environment, last_verified_at, cancellation_date_ms, app_account_token
                FROM subscriptions ORDER BY user_id, original_transaction_id
                """)
        while let row = try rows.next() {
            let status: String = row["status"]
            let entitled = SubscriptionStatus(rawValue: status)?.isEntitled ?? false
            let expires: Int64 = row["expires_date_ms"]
            try csv.writeRow([
                row["user_id"], row["original_transaction_id"], row["product_id"], status, entitled ? "true" : "false",
                ISO8601.string(fromMilliseconds: expires), String(expires), flag(row["auto_renew_status"]),
                row["auto_renew_product_id"], (row["expiration_intent"] as Int?).map(String.init),
                (row["grace_period_expires_date_ms"] as Int64?).map(ISO8601.string(fromMilliseconds:)),
                flag(row["is_in_billing_retry"]), row["environment"],
                (row["last_verified_at"] as Int64?).map(ISO8601.string(fromMilliseconds:)),
                status == SubscriptionStatus.refunded.rawValue
                    ? (row["cancellation_date_ms"] as Int64?).map(String.init) : nil,
                row["app_account_token"],
            ])
        }
    }

    private static func renewals(_ db: Database, _ csv: inout CSVWriter) throws {
        let rows = try Row.fetchCursor(
            db,
            sql: """
                SELECT transaction_id, original_transaction_id, web_order_line_item_id, user_id, product_id,
                       purchase_date_ms, expires_date_ms, cancellation_date_ms, is_trial_period,
                       is_in_intro_offer_period, first_seen_run_id
                FROM renewals ORDER BY user_id, original_transaction_id, expires_date_ms, period_key
                """)
        while let row = try rows.next() {
            try csv.writeRow([
                row["transaction_id"], row["original_transaction_id"], row["web_order_line_item_id"], row["user_id"],
                row["product_id"], number(row["purchase_date_ms"]), number(row["expires_date_ms"]),
                number(row["cancellation_date_ms"]), (row["is_trial_period"] as Bool) ? "true" : "false",
                (row["is_in_intro_offer_period"] as Bool) ? "true" : "false", number(row["first_seen_run_id"]),
            ])
        }
    }

    private static func runs(_ db: Database, _ options: ReportOptions, _ csv: inout CSVWriter) throws {
        let rows = try Row.fetchCursor(
            db,
            sql: """
                SELECT id, kind, started_at, finished_at, status, receipts_total, verified, updated, unchanged,
                       invalid, failed, exit_code
                FROM runs WHERE started_at >= ? AND started_at < ? ORDER BY id
                """, arguments: [options.sinceMs ?? .min, options.untilMs ?? .max])
        while let row = try rows.next() {
            try csv.writeRow([
                number(row["id"]), row["kind"], time(row["started_at"]), time(row["finished_at"]), row["status"],
                number(row["receipts_total"]), number(row["verified"]), number(row["updated"]),
                number(row["unchanged"]), number(row["invalid"]), number(row["failed"]), number(row["exit_code"]),
            ])
        }
    }

    private static func runItems(_ db: Database, runID: Int64?, _ csv: inout CSVWriter) throws {
        guard let chosen = try chosenRun(db, runID) else { return }
        let rows = try Row.fetchCursor(
            db,
            sql: """
                SELECT run_id, receipt_id, user_id, outcome, apple_status, environment, old_status, new_status,
                       old_expires_date_ms, new_expires_date_ms, message
                FROM run_items WHERE run_id = ? ORDER BY receipt_id
                """, arguments: [chosen])
        while let row = try rows.next() {
            try csv.writeRow([
                number(row["run_id"]), number(row["receipt_id"]), row["user_id"], row["outcome"],
                number(row["apple_status"]), row["environment"], row["old_status"], row["new_status"],
                number(row["old_expires_date_ms"]), number(row["new_expires_date_ms"]), row["message"],
            ])
        }
    }

    /// The run `--run` names (which must exist), or the latest run of either kind; nil when there is none.
    private static func chosenRun(_ db: Database, _ runID: Int64?) throws -> Int64? {
        guard let runID else { return try Int64.fetchOne(db, sql: "SELECT MAX(id) FROM runs") }
        guard try Bool.fetchOne(db, sql: "SELECT 1 FROM runs WHERE id = ?", arguments: [runID]) == true else {
            throw ReportError.unknownRun(runID)
        }
        return runID
    }

    /// Every subscription change of one run (`--run`, default the latest), or of every run that
    /// started in the `--since/--until` window.
    private static func changes(_ db: Database, _ options: ReportOptions, _ csv: inout CSVWriter) throws {
        let columns = """
            SELECT c.run_id, c.user_id, c.original_transaction_id, c.change, c.old_status, c.new_status,
                   c.old_product_id, c.new_product_id, c.old_expires_date_ms, c.new_expires_date_ms,
                   c.old_auto_renew_status, c.new_auto_renew_status, c.old_auto_renew_product_id,
                   c.new_auto_renew_product_id, c.receipt_id, c.recorded_at
            FROM subscription_changes c
            """
        let order = "ORDER BY c.run_id, c.user_id, c.original_transaction_id, c.id"
        let rows: RowCursor
        if options.sinceMs != nil || options.untilMs != nil {
            rows = try Row.fetchCursor(
                db,
                sql: "\(columns) JOIN runs r ON r.id = c.run_id WHERE r.started_at >= ? AND r.started_at < ? \(order)",
                arguments: [options.sinceMs ?? .min, options.untilMs ?? .max])
        } else {
            guard let run = try chosenRun(db, options.runID) else { return }
            rows = try Row.fetchCursor(db, sql: "\(columns) WHERE c.run_id = ? \(order)", arguments: [run])
        }
        while let row = try rows.next() {
            try csv.writeRow([
                number(row["run_id"]), row["user_id"], row["original_transaction_id"], row["change"], row["old_status"],
                row["new_status"], row["old_product_id"], row["new_product_id"], time(row["old_expires_date_ms"]),
                time(row["new_expires_date_ms"]), flag(row["old_auto_renew_status"]),
                flag(row["new_auto_renew_status"]), row["old_auto_renew_product_id"],
                row["new_auto_renew_product_id"], number(row["old_expires_date_ms"]),
                number(row["new_expires_date_ms"]), number(row["receipt_id"]), time(row["recorded_at"]),
            ])
        }
    }

    /// Entitled subscriptions whose access ends in [now, now + within]: an active one at its
    /// expiry, one in its grace period when the grace period ends. Renewing ones are included
    /// (`auto_renew_status` 1: expected revenue; 0: expected churn) so one file serves support
    /// and finance; filter on the column. Rows whose stored end has already passed are stale
    /// until the next verification and are left out: they do not end "within" anything.
    private static func expiring(_ db: Database, _ options: ReportOptions, _ csv: inout CSVWriter) throws {
        let (end, overflow) = options.nowMs.addingReportingOverflow(options.withinMs)
        let rows = try Row.fetchCursor(
            db,
            sql: """
                SELECT * FROM (
                    SELECT user_id, original_transaction_id, product_id, status, expires_date_ms,
                           grace_period_expires_date_ms, auto_renew_status, auto_renew_product_id, environment,
                           last_verified_at,
                           CASE WHEN status = 'grace_period' AND grace_period_expires_date_ms IS NOT NULL
                                THEN grace_period_expires_date_ms ELSE expires_date_ms END AS access_ends_ms
                    FROM subscriptions WHERE status IN ('active', 'grace_period'))
                WHERE access_ends_ms >= ? AND access_ends_ms <= ?
                ORDER BY access_ends_ms, user_id, original_transaction_id
                """, arguments: [options.nowMs, overflow ? Int64.max : end])
        while let row = try rows.next() {
            try csv.writeRow([
                row["user_id"], row["original_transaction_id"], row["product_id"], row["status"],
                time(row["access_ends_ms"]), time(row["expires_date_ms"]), number(row["expires_date_ms"]),
                time(row["grace_period_expires_date_ms"]), flag(row["auto_renew_status"]),
                row["auto_renew_product_id"], row["environment"], time(row["last_verified_at"]),
            ])
        }
    }

    /// Lost orders: every renewal record a run found first. Imports carry receipts, never
    /// transactions, so each period a run first saw is one the app server never told us about.
    /// `purchased_after_import` narrows that to periods Apple billed after the app server handed
    /// the receipt over, which the app's copy of the receipt cannot contain.
    private static func unrecorded(_ db: Database, _ options: ReportOptions, _ csv: inout CSVWriter) throws {
        let rows = try Row.fetchCursor(
            db,
            sql: """
                SELECT n.user_id, n.original_transaction_id, n.transaction_id, n.web_order_line_item_id, n.product_id,
                       n.purchase_date_ms, n.expires_date_ms, n.cancellation_date_ms, n.is_trial_period,
                       n.is_in_intro_offer_period, n.first_seen_at, n.first_seen_run_id, r.kind AS run_kind,
                       n.receipt_id, p.imported_at AS receipt_imported_at
                FROM renewals n
                JOIN runs r ON r.id = n.first_seen_run_id
                LEFT JOIN receipts p ON p.id = n.receipt_id
                WHERE n.first_seen_at >= ? AND n.first_seen_at < ?
                ORDER BY n.first_seen_at, n.user_id, n.original_transaction_id, n.expires_date_ms, n.period_key
                """, arguments: [options.sinceMs ?? .min, options.untilMs ?? .max])
        while let row = try rows.next() {
            let purchased: Int64? = row["purchase_date_ms"]
            let imported: Int64? = row["receipt_imported_at"]
            let afterImport: String? =
                if let purchased, let imported { purchased > imported ? "true" : "false" } else { nil }
            try csv.writeRow([
                row["user_id"], row["original_transaction_id"], row["transaction_id"], row["web_order_line_item_id"],
                row["product_id"], time(purchased), number(purchased), time(row["expires_date_ms"]),
                number(row["expires_date_ms"]), number(row["cancellation_date_ms"]),
                (row["is_trial_period"] as Bool) ? "true" : "false",
                (row["is_in_intro_offer_period"] as Bool) ? "true" : "false", time(row["first_seen_at"]),
                number(row["first_seen_run_id"]), row["run_kind"], number(row["receipt_id"]), time(imported),
                afterImport,
            ])
        }
    }

    /// One row per (original_transaction_id, user) for every Apple subscription that more than
    /// one user claims, earliest receipt first: the first claimant is usually the buyer.
    private static func shared(_ db: Database, _ csv: inout CSVWriter) throws {
        let rows = try Row.fetchCursor(
            db,
            sql: """
                SELECT s.original_transaction_id, c.users, s.user_id, s.receipt_id, p.imported_at AS receipt_imported_at,
                       s.product_id, s.status, s.expires_date_ms, s.ownership_type, s.first_seen_at, s.last_verified_at
                FROM subscriptions s
                JOIN (SELECT original_transaction_id, COUNT(*) AS users FROM subscriptions
                      GROUP BY original_transaction_id HAVING COUNT(*) > 1) c
                  ON c.original_transaction_id = s.original_transaction_id
                LEFT JOIN receipts p ON p.id = s.receipt_id
                ORDER BY s.original_transaction_id, p.imported_at IS NULL, p.imported_at, s.user_id
                """)
        while let row = try rows.next() {
            let status: String = row["status"]
            let entitled = SubscriptionStatus(rawValue: status)?.isEntitled ?? false
            try csv.writeRow([
                row["original_transaction_id"], number(row["users"]), row["user_id"], number(row["receipt_id"]),
                time(row["receipt_imported_at"]), row["product_id"], status, entitled ? "true" : "false",
                time(row["expires_date_ms"]), number(row["expires_date_ms"]), row["ownership_type"],
                time(row["first_seen_at"]), time(row["last_verified_at"]),
            ])
        }
    }

    static func wallClockMs() -> Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)) }

    private static func time(_ value: Int64?) -> String? { value.map(ISO8601.string(fromMilliseconds:)) }
    private static func number(_ value: Int64?) -> String? { value.map(String.init) }
    private static func flag(_ value: Bool?) -> String? { value.map { $0 ? "1" : "0" } }
}

/// Why a report could not be written.
public enum ReportError: Error, Sendable, CustomStringConvertible {
    case unknownRun(Int64)
    /// A flag value or combination the report cannot use (a usage error: exit 2).
    case invalidOption(String)
    case cannotWrite(path: String, reason: String)
    case failed(String)

    public var description: String {
        switch self {
        case .unknownRun(let id): "there is no run \(id) (see `subrecon report runs`)"
        case .invalidOption(let sentence): sentence
        case .cannotWrite(let path, let reason): "cannot write the report to \(path): \(reason)"
        case .failed(let reason): "the report failed: \(reason)"
        }
    }
}
