import AppleSignedData
import Foundation
import SubReconModel
import SubReconStore

/// Writes a report as CSV, streaming rows from the store (one read snapshot: consistent even
/// while a run writes). The SQL is the same on both stores, so the same data gives the same
/// bytes; text keys order by their bytes on both. Reports never call Apple.
public struct ReportExporter: Sendable {
    let store: any SubscriptionStore

    public init(store: any SubscriptionStore) { self.store = store }

    /// - Parameter runID: for `run-items` and `changes`; nil means the latest nightly run.
    public func export(_ kind: ReportKind, runID: Int64? = nil, to sink: @escaping CSVWriter.Sink) async throws(ReportError) {
        try await export(kind, options: ReportOptions(runID: runID, nowMs: WallClock.unixMilliseconds()), to: sink)
    }

    /// Writes `kind`, narrowed by `options` (see ``ReportOptions/parse(kind:runID:since:until:within:nowMs:)``).
    public func export(_ kind: ReportKind, options: ReportOptions, to sink: @escaping CSVWriter.Sink) async throws(ReportError) {
        do {
            try await store.withReadSnapshot { db in
                var csv = CSVWriter(sink: sink)
                try csv.writeRow(kind.columns)
                switch kind {
                case .subscriptions: try await Self.subscriptions(db, options, &csv)
                case .renewals: try await Self.renewals(db, options, &csv)
                case .runs: try await Self.runs(db, options, &csv)
                case .runItems: try await Self.runItems(db, options, &csv)
                case .changes: try await Self.changes(db, options, &csv)
                case .expiring: try await Self.expiring(db, options, &csv)
                case .unrecorded: try await Self.unrecorded(db, options, &csv)
                case .shared: try await Self.shared(db, options, &csv)
                case .notifications: try await Self.notifications(db, options, &csv)
                case .revenue:
                    for row in try await LedgerWalk.revenueRowsByApp(db, options) { try csv.writeRow(row) }
                case .metrics:
                    for row in try await LedgerWalk.metricsRowsByApp(db, options) { try csv.writeRow(row) }
                case .dashboard:
                    throw ReportError.invalidOption("the dashboard is a page, not CSV: subrecon report dashboard --output FILE.html")
                case .appleParity:
                    for row in try await AppleParityReport.outcome(db, options: options).rows { try csv.writeRow(row.csvFields) }
                }
                try csv.finish()
            }
        } catch let error as ReportError {
            throw error
        } catch {
            throw .failed(StoreError.reason(error))
        }
    }

    /// The ledger in a few lines: billed, refunded and net per currency, and this month's MRR.
    public func revenueSummary(nowMs: Int64) async throws(ReportError) -> String {
        do {
            return try await store.withReadSnapshot { db in try await RevenueSummaryText.text(db, nowMs: nowMs) }
        } catch let error as ReportError {
            throw error
        } catch {
            throw .failed(StoreError.reason(error))
        }
    }

    /// What `report apple-parity` finds, without writing it.
    public func appleParity(options: ReportOptions) async throws(ReportError) -> AppleParityOutcome {
        do {
            return try await store.withReadSnapshot { db in try await AppleParityReport.outcome(db, options: options) }
        } catch let error as ReportError {
            throw error
        } catch {
            throw .failed(StoreError.reason(error))
        }
    }

    /// Writes `report apple-parity` and returns what it found (the summary and exit status).
    public func exportAppleParity(options: ReportOptions, to sink: @escaping CSVWriter.Sink) async throws(ReportError)
        -> AppleParityOutcome
    {
        do {
            return try await store.withReadSnapshot { db in
                let outcome = try await AppleParityReport.outcome(db, options: options)
                var csv = CSVWriter(sink: sink)
                try csv.writeRow(ReportKind.appleParity.columns)
                for row in outcome.rows { try csv.writeRow(row.csvFields) }
                try csv.finish()
                return outcome
            }
        } catch let error as ReportError {
            throw error
        } catch {
            throw .failed(StoreError.reason(error))
        }
    }

    /// Writes the dashboard page (`report dashboard`): figures from one read snapshot.
    public func exportDashboard(options: ReportOptions, to sink: @escaping CSVWriter.Sink) async throws(ReportError) {
        do {
            let location = store.location
            let data = try await store.withReadSnapshot { db in
                try await DashboardReader.data(db, options: options, databaseLabel: location)
            }
            try sink(Data(DashboardRenderer.render(data).utf8))
        } catch let error as ReportError {
            throw error
        } catch {
            throw .failed(StoreError.reason(error))
        }
    }

    /// The money reports' options (`ReportOptions.parse` fills them for those kinds).
    private static func money(_ options: ReportOptions) throws -> MoneyReportOptions {
        options.money ?? MoneyReportOptions(nowMs: options.nowMs)
    }

    /// One row per notification uuid, in the order they first arrived (`--since/--until` on
    /// received_at). Refused notifications are not stored; metrics count them.
    private static func notifications(_ db: any SnapshotQuerying, _ options: ReportOptions, _ csv: inout CSVWriter) async throws {
        try await db.forEachRow(
            ReportSQL.notifications, [.integer(options.sinceMs ?? .min), .integer(options.untilMs ?? .max)]
        ) { row in
            let bundleID = try row.text("bundle_id")
            guard options.includes(bundleID: bundleID) else { return }
            try csv.writeRow([
                time(row.integer("received_at")), row.text("notification_uuid"), row.text("notification_type"),
                row.text("subtype"), row.text("environment"), row.text("original_transaction_id"), row.text("user_id"),
                row.text("outcome"), time(row.integer("signed_date")), number(row.integer("deliveries")),
                bundleID ?? options.defaultBundleID,
            ])
        }
    }

    private static func subscriptions(_ db: any SnapshotQuerying, _ options: ReportOptions, _ csv: inout CSVWriter) async throws {
        try await db.forEachRow(
            ReportSQL.subscriptions, []
        ) { row in
            let bundleID = try row.text("bundle_id")
            guard options.includes(bundleID: bundleID) else { return }
            let status = try row.requiredText("status")
            let entitled = SubscriptionStatus(rawValue: status)?.isEntitled ?? false
            let expires = try row.requiredInteger("expires_date_ms")
            try csv.writeRow([
                row.text("user_id"), row.text("original_transaction_id"), row.text("product_id"), status, entitled ? "true" : "false",
                ISO8601.string(fromMilliseconds: expires), String(expires), flag(row.integer("auto_renew_status")),
                row.text("auto_renew_product_id"), row.integer("expiration_intent").map(String.init),
                row.integer("grace_period_expires_date_ms").map(ISO8601.string(fromMilliseconds:)),
                flag(row.integer("is_in_billing_retry")), row.text("environment"),
                row.integer("last_verified_at").map(ISO8601.string(fromMilliseconds:)),
                status == SubscriptionStatus.refunded.rawValue
                    ? row.integer("cancellation_date_ms").map(String.init) : nil,
                row.text("app_account_token"), bundleID ?? options.defaultBundleID,
            ])
        }
    }

    /// The ledger: Apple's fields as stored, then the same dates and amounts as a person reads them
    /// (ISO 8601 UTC; decimals in the currency's minor units, as `report revenue` writes them).
    private static func renewals(_ db: any SnapshotQuerying, _ options: ReportOptions, _ csv: inout CSVWriter) async throws {
        try await db.forEachRow(
            ReportSQL.renewals, []
        ) { row in
            let bundleID = try row.text("bundle_id")
            guard options.includes(bundleID: bundleID) else { return }
            let currency = try row.text("currency")
            try csv.writeRow([
                row.text("transaction_id"), row.text("original_transaction_id"), row.text("web_order_line_item_id"), row.text("user_id"),
                row.text("product_id"), number(row.integer("purchase_date_ms")), number(row.integer("expires_date_ms")),
                number(row.integer("cancellation_date_ms")), (row.flag("is_trial_period") == true) ? "true" : "false",
                (row.flag("is_in_intro_offer_period") == true) ? "true" : "false", number(row.integer("first_seen_run_id")),
                number(row.integer("price_milliunits")), row.text("currency"), row.text("storefront"),
                number(row.integer("offer_type")), row.text("offer_discount_type"), row.text("offer_period"),
                row.text("transaction_reason"), row.text("ownership_type"), row.text("environment"),
                row.text("revocation_type"), number(row.integer("revocation_percentage")),
                number(row.integer("refund_milliunits")), bundleID ?? options.defaultBundleID,
                time(row.integer("purchase_date_ms")), time(row.integer("expires_date_ms")),
                amount(row.integer("price_milliunits"), currency), amount(row.integer("refund_milliunits"), currency),
            ])
        }
    }

    private static func runs(_ db: any SnapshotQuerying, _ options: ReportOptions, _ csv: inout CSVWriter) async throws {
        try await db.forEachRow(
            ReportSQL.runs, [.integer(options.sinceMs ?? .min), .integer(options.untilMs ?? .max)]
        ) { row in
            try csv.writeRow([
                number(row.integer("id")), row.text("kind"), time(row.integer("started_at")), time(row.integer("finished_at")), row.text("status"),
                number(row.integer("receipts_total")), number(row.integer("verified")), number(row.integer("updated")),
                number(row.integer("unchanged")), number(row.integer("invalid")), number(row.integer("failed")), number(row.integer("exit_code")),
                worker(host: row.text("host"), pid: row.integer("pid")), number(row.integer("account_gone")),
                number(row.integer("skipped")),
            ])
        }
    }

    private static func runItems(_ db: any SnapshotQuerying, _ options: ReportOptions, _ csv: inout CSVWriter) async throws {
        guard let chosen = try await chosenRun(db, options.runID) else { return }
        try await db.forEachRow(
            ReportSQL.runItems, [.integer(chosen)]
        ) { row in
            let bundleID = try row.text("bundle_id")
            guard options.includes(bundleID: bundleID) else { return }
            try csv.writeRow([
                number(row.integer("run_id")), number(row.integer("receipt_id")), row.text("user_id"), row.text("outcome"),
                number(row.integer("apple_status")), row.text("environment"), row.text("old_status"), row.text("new_status"),
                number(row.integer("old_expires_date_ms")), number(row.integer("new_expires_date_ms")), row.text("message"),
                bundleID ?? options.defaultBundleID,
            ])
        }
    }

    /// The run `--run` names (which must exist, of either kind), or the latest nightly run; nil when there is none.
    private static func chosenRun(_ db: any SnapshotQuerying, _ runID: Int64?) async throws -> Int64? {
        guard let runID else { return try await db.integer(ReportSQL.latestNightlyRun) }
        guard try await db.integer(ReportSQL.runExists, [.integer(runID)]) != nil else {
            throw ReportError.unknownRun(runID)
        }
        return runID
    }

    /// Every subscription change of one run (`--run`, default the latest nightly run), or of every run that
    /// started in the `--since/--until` window and every change a notification made in it (those
    /// last, with their `notification_uuid` and no run).
    private static func changes(_ db: any SnapshotQuerying, _ options: ReportOptions, _ csv: inout CSVWriter) async throws {
        let sql: String
        let arguments: [SQLArgument]
        if options.sinceMs != nil || options.untilMs != nil {
            sql = ReportSQL.changesInWindow
            let window: [SQLArgument] = [.integer(options.sinceMs ?? .min), .integer(options.untilMs ?? .max)]
            arguments = window + window
        } else {
            guard let run = try await chosenRun(db, options.runID) else { return }
            sql = ReportSQL.changesOfRun
            arguments = [.integer(run)]
        }
        try await db.forEachRow(sql, arguments) { row in
            guard options.includes(bundleID: try row.text("bundle_id")) else { return }
            try csv.writeRow([
                number(row.integer("run_id")), row.text("user_id"), row.text("original_transaction_id"), row.text("change"), row.text("old_status"),
                row.text("new_status"), row.text("old_product_id"), row.text("new_product_id"), time(row.integer("old_expires_date_ms")),
                time(row.integer("new_expires_date_ms")), flag(row.integer("old_auto_renew_status")),
                flag(row.integer("new_auto_renew_status")), row.text("old_auto_renew_product_id"),
                row.text("new_auto_renew_product_id"), number(row.integer("old_expires_date_ms")),
                number(row.integer("new_expires_date_ms")), number(row.integer("receipt_id")), time(row.integer("recorded_at")),
                row.text("notification_uuid"),
            ])
        }
    }

    /// Entitled subscriptions whose access ends in [now, now + within]: an active one at its
    /// expiry, one in its grace period when the grace period ends. Renewing ones are included
    /// (`auto_renew_status` 1: expected revenue; 0: expected churn) so one file serves support
    /// and finance; filter on the column. Rows whose stored end has already passed are stale
    /// until the next verification and are left out: they do not end "within" anything.
    private static func expiring(_ db: any SnapshotQuerying, _ options: ReportOptions, _ csv: inout CSVWriter) async throws {
        let (end, overflow) = options.nowMs.addingReportingOverflow(options.withinMs)
        try await db.forEachRow(
            ReportSQL.expiring, [.integer(options.nowMs), .integer(overflow ? Int64.max : end)]
        ) { row in
            guard options.includes(bundleID: try row.text("bundle_id")) else { return }
            try csv.writeRow([
                row.text("user_id"), row.text("original_transaction_id"), row.text("product_id"), row.text("status"),
                time(row.integer("access_ends_ms")), time(row.integer("expires_date_ms")), number(row.integer("expires_date_ms")),
                time(row.integer("grace_period_expires_date_ms")), flag(row.integer("auto_renew_status")),
                row.text("auto_renew_product_id"), row.text("environment"), time(row.integer("last_verified_at")),
            ])
        }
    }

    /// Lost orders: periods a run found first that Apple billed after the app server handed the
    /// receipt over (`purchased_after_import = true`), which the app's copy of the receipt cannot
    /// contain. With `--all`, every renewal record a run found first: imports carry receipts, never
    /// transactions, so the first run also "finds" the history each receipt itself carried.
    private static func unrecorded(_ db: any SnapshotQuerying, _ options: ReportOptions, _ csv: inout CSVWriter) async throws {
        try await db.forEachRow(
            ReportSQL.unrecorded, [.integer(options.sinceMs ?? .min), .integer(options.untilMs ?? .max)]
        ) { row in
            guard options.includes(bundleID: try row.text("bundle_id")) else { return }
            let purchased = try row.integer("purchase_date_ms")
            let imported = try row.integer("receipt_imported_at")
            let afterImport: String? =
                if let purchased, let imported { purchased > imported ? "true" : "false" } else { nil }
            guard options.everyFoundPeriod || afterImport == "true" else { return }
            try csv.writeRow([
                row.text("user_id"), row.text("original_transaction_id"), row.text("transaction_id"), row.text("web_order_line_item_id"),
                row.text("product_id"), time(purchased), number(purchased), time(row.integer("expires_date_ms")),
                number(row.integer("expires_date_ms")), number(row.integer("cancellation_date_ms")),
                (row.flag("is_trial_period") == true) ? "true" : "false",
                (row.flag("is_in_intro_offer_period") == true) ? "true" : "false", time(row.integer("first_seen_at")),
                number(row.integer("first_seen_run_id")), row.text("run_kind"), number(row.integer("receipt_id")), time(imported),
                afterImport,
            ])
        }
    }

    /// One row per (original_transaction_id, user) for every Apple subscription that more than
    /// one user claims, earliest receipt first: the first claimant is usually the buyer.
    private static func shared(_ db: any SnapshotQuerying, _ options: ReportOptions, _ csv: inout CSVWriter) async throws {
        try await db.forEachRow(
            ReportSQL.shared, []
        ) { row in
            guard options.includes(bundleID: try row.text("bundle_id")) else { return }
            let status = try row.requiredText("status")
            let entitled = SubscriptionStatus(rawValue: status)?.isEntitled ?? false
            try csv.writeRow([
                row.text("original_transaction_id"), number(row.integer("users")), row.text("user_id"), number(row.integer("receipt_id")),
                time(row.integer("receipt_imported_at")), row.text("product_id"), status, entitled ? "true" : "false",
                time(row.integer("expires_date_ms")), number(row.integer("expires_date_ms")), row.text("ownership_type"),
                time(row.integer("first_seen_at")), time(row.integer("last_verified_at")),
            ])
        }
    }

    private static func time(_ value: Int64?) -> String? { value.map(ISO8601.string(fromMilliseconds:)) }
    private static func number(_ value: Int64?) -> String? { value.map(String.init) }
    /// Milliunits as decimal text in the currency's minor units; empty when the amount or its
    /// currency is unknown (a price without a currency is an unknown price).
    private static func amount(_ milliunits: Int64?, _ currency: String?) -> String? {
        guard let milliunits, let currency, !currency.isEmpty else { return nil }
        return MoneyText.text(milliunits: milliunits, currency: currency)
    }
    /// The process that ran it, `HOST:PID` (several workers on PostgreSQL each record their own run).
    private static func worker(host: String?, pid: Int64?) -> String? {
        guard let host, let pid else { return nil }
        return "\(host):\(pid)"
    }
    private static func flag(_ value: Int64?) -> String? { value.map { $0 != 0 ? "1" : "0" } }
}
