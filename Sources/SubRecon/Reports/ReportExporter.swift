import Foundation
import GRDB

/// Writes a report as CSV, streaming rows from the database (a read transaction: a consistent
/// snapshot even while a run writes). Reports never call Apple.
public struct ReportExporter: Sendable {
    let database: AppDatabase

    public init(database: AppDatabase) { self.database = database }

    /// - Parameter runID: for `run-items`; nil means the latest run of either kind.
    public func export(_ kind: ReportKind, runID: Int64? = nil, to sink: @escaping CSVWriter.Sink) throws(ReportError) {
        do {
            try database.writer.read { db in
                var csv = CSVWriter(sink: sink)
                try csv.writeRow(kind.columns)
                switch kind {
                case .subscriptions: try Self.subscriptions(db, &csv)
                case .renewals: try Self.renewals(db, &csv)
                case .runs: try Self.runs(db, &csv)
                case .runItems: try Self.runItems(db, runID: runID, &csv)
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
                       environment, last_verified_at, cancellation_date_ms
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

    private static func runs(_ db: Database, _ csv: inout CSVWriter) throws {
        let rows = try Row.fetchCursor(
            db,
            sql: """
                SELECT id, kind, started_at, finished_at, status, receipts_total, verified, updated, unchanged,
                       invalid, failed, exit_code
                FROM runs ORDER BY id
                """)
        while let row = try rows.next() {
            try csv.writeRow([
                number(row["id"]), row["kind"], (row["started_at"] as Int64?).map(ISO8601.string(fromMilliseconds:)),
                (row["finished_at"] as Int64?).map(ISO8601.string(fromMilliseconds:)), row["status"],
                number(row["receipts_total"]), number(row["verified"]), number(row["updated"]),
                number(row["unchanged"]), number(row["invalid"]), number(row["failed"]), number(row["exit_code"]),
            ])
        }
    }

    private static func runItems(_ db: Database, runID: Int64?, _ csv: inout CSVWriter) throws {
        let chosen: Int64?
        if let runID {
            guard try Bool.fetchOne(db, sql: "SELECT 1 FROM runs WHERE id = ?", arguments: [runID]) == true else {
                throw ReportError.unknownRun(runID)
            }
            chosen = runID
        } else {
            chosen = try Int64.fetchOne(db, sql: "SELECT MAX(id) FROM runs")
        }
        guard let chosen else { return }
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

    private static func number(_ value: Int64?) -> String? { value.map(String.init) }
    private static func flag(_ value: Bool?) -> String? { value.map { $0 ? "1" : "0" } }
}

/// Why a report could not be written.
public enum ReportError: Error, Sendable, CustomStringConvertible {
    case unknownRun(Int64)
    case cannotWrite(path: String, reason: String)
    case failed(String)

    public var description: String {
        switch self {
        case .unknownRun(let id): "there is no run \(id) (see `subrecon report runs`)"
        case .cannotWrite(let path, let reason): "cannot write the report to \(path): \(reason)"
        case .failed(let reason): "the report failed: \(reason)"
        }
    }
}
