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
                case .events: try await Self.events(db, options, &csv)
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
        try await db.forEachNotificationReportRow(receivedFrom: options.sinceMs ?? .min, until: options.untilMs ?? .max) { row in
            guard options.includes(bundleID: row.bundleID) else { return }
            try csv.writeRow([
                time(row.receivedAtMs), row.notificationUUID, row.notificationType, row.subtype, row.environment,
                row.originalTransactionID, row.userID, row.outcome, time(row.signedDateMs), number(row.deliveries),
                row.bundleID ?? options.defaultBundleID,
            ])
        }
    }

    private static func subscriptions(_ db: any SnapshotQuerying, _ options: ReportOptions, _ csv: inout CSVWriter) async throws {
        try await db.forEachSubscriptionReportRow { row in
            guard options.includes(bundleID: row.bundleID) else { return }
            let status = row.status
            let entitled = SubscriptionStatus(rawValue: status)?.isEntitled ?? false
            let expires = row.expiresDateMs
            try csv.writeRow([
                row.userID, row.originalTransactionID, row.productID, status, entitled ? "true" : "false",
                ISO8601.string(fromMilliseconds: expires), String(expires), flag(row.autoRenewStatus),
                row.autoRenewProductID, row.expirationIntent.map(String.init),
                row.gracePeriodExpiresDateMs.map(ISO8601.string(fromMilliseconds:)),
                flag(row.isInBillingRetry), row.environment,
                row.lastVerifiedAtMs.map(ISO8601.string(fromMilliseconds:)),
                status == SubscriptionStatus.refunded.rawValue ? row.cancellationDateMs.map(String.init) : nil,
                row.appAccountToken, row.bundleID ?? options.defaultBundleID,
            ])
        }
    }

    /// The ledger: Apple's fields as stored, then the same dates and amounts as a person reads them
    /// (ISO 8601 UTC; decimals in the currency's minor units, as `report revenue` writes them).
    private static func renewals(_ db: any SnapshotQuerying, _ options: ReportOptions, _ csv: inout CSVWriter) async throws {
        try await db.forEachRenewalReportRow { row in
            guard options.includes(bundleID: row.bundleID) else { return }
            try csv.writeRow([
                row.transactionID, row.originalTransactionID, row.webOrderLineItemID, row.userID,
                row.productID, number(row.purchaseDateMs), number(row.expiresDateMs),
                number(row.cancellationDateMs), row.isTrialPeriod == true ? "true" : "false",
                row.isInIntroOfferPeriod == true ? "true" : "false", number(row.firstSeenRunID),
                number(row.priceMilliunits), row.currency, row.storefront,
                number(row.offerType), row.offerDiscountType, row.offerPeriod,
                row.transactionReason, row.ownershipType, row.environment,
                row.revocationType, number(row.revocationPercentage),
                number(row.refundMilliunits), row.bundleID ?? options.defaultBundleID,
                time(row.purchaseDateMs), time(row.expiresDateMs),
                amount(row.priceMilliunits, row.currency), amount(row.refundMilliunits, row.currency),
            ])
        }
    }

    /// The outbox by position. A pending event shows `pending` only when this command could
    /// deliver it (an endpoint for its app), else an empty state: it waits for one.
    private static func events(_ db: any SnapshotQuerying, _ options: ReportOptions, _ csv: inout CSVWriter) async throws {
        try await db.forEachEventReportRow(
            sinceMs: options.sinceMs ?? .min, untilMs: options.untilMs ?? .max, type: options.eventType
        ) { row in
            let app = row.bundleID.isEmpty ? nil : row.bundleID
            guard options.includes(bundleID: app) else { return }
            let hasEndpoint = options.webhookApps.map { $0.contains(row.bundleID) } ?? true
            let state = row.state == "pending" && !hasEndpoint ? nil : row.state
            try csv.writeRow([
                String(row.position), row.eventID, row.type, time(row.createdAtMs), row.userID,
                row.originalTransactionID.isEmpty ? nil : row.originalTransactionID, number(row.seq), row.source, state,
                String(row.attempts), time(row.lastAttemptAtMs), number(row.lastStatus), time(row.deliveredAtMs),
                app ?? options.defaultBundleID,
            ])
        }
    }

    private static func runs(_ db: any SnapshotQuerying, _ options: ReportOptions, _ csv: inout CSVWriter) async throws {
        try await db.forEachRunReportRow(startedFrom: options.sinceMs ?? .min, until: options.untilMs ?? .max) { run in
            try csv.writeRow([
                String(run.id), run.kind, time(run.startedAtMs), time(run.finishedAtMs), run.status,
                String(run.receiptsTotal), String(run.verified), String(run.updated),
                String(run.unchanged), String(run.invalid), String(run.failed), number(run.exitCode),
                worker(host: run.host, pid: run.pid), String(run.accountGone), String(run.skipped),
            ])
        }
    }

    private static func runItems(_ db: any SnapshotQuerying, _ options: ReportOptions, _ csv: inout CSVWriter) async throws {
        guard let chosen = try await chosenRun(db, options.runID) else { return }
        try await db.forEachRunItemReportRow(ofRun: chosen) { row in
            guard options.includes(bundleID: row.bundleID) else { return }
            try csv.writeRow([
                number(row.runID), number(row.receiptID), row.userID, row.outcome,
                number(row.appleStatus), row.environment, row.oldStatus, row.newStatus,
                number(row.oldExpiresDateMs), number(row.newExpiresDateMs), row.message,
                row.bundleID ?? options.defaultBundleID,
            ])
        }
    }

    /// The run `--run` names (which must exist, of either kind), or the latest nightly run; nil when there is none.
    private static func chosenRun(_ db: any SnapshotQuerying, _ runID: Int64?) async throws -> Int64? {
        guard let runID else { return try await db.latestNightlyRunID() }
        guard try await db.runExists(runID) else { throw ReportError.unknownRun(runID) }
        return runID
    }

    /// Every subscription change of one run (`--run`, default the latest nightly run), or of every run that
    /// started in the `--since/--until` window and every change a notification made in it (those
    /// last, with their `notification_uuid` and no run).
    private static func changes(_ db: any SnapshotQuerying, _ options: ReportOptions, _ csv: inout CSVWriter) async throws {
        func write(_ row: ChangeReportRow) throws {
            guard options.includes(bundleID: row.bundleID) else { return }
            try csv.writeRow([
                number(row.runID), row.userID, row.originalTransactionID, row.change, row.oldStatus,
                row.newStatus, row.oldProductID, row.newProductID, time(row.oldExpiresDateMs),
                time(row.newExpiresDateMs), flag(row.oldAutoRenewStatus),
                flag(row.newAutoRenewStatus), row.oldAutoRenewProductID,
                row.newAutoRenewProductID, number(row.oldExpiresDateMs),
                number(row.newExpiresDateMs), number(row.receiptID), time(row.recordedAtMs),
                row.notificationUUID,
            ])
        }
        if options.sinceMs != nil || options.untilMs != nil {
            try await db.forEachChangeReportRow(from: options.sinceMs ?? .min, until: options.untilMs ?? .max, write)
        } else {
            guard let run = try await chosenRun(db, options.runID) else { return }
            try await db.forEachChangeReportRow(ofRun: run, write)
        }
    }

    /// Entitled subscriptions whose access ends in [now, now + within]: an active one at its
    /// expiry, one in its grace period when the grace period ends. Renewing ones are included
    /// (`auto_renew_status` 1: expected revenue; 0: expected churn) so one file serves support
    /// and finance; filter on the column. Rows whose stored end has already passed are stale
    /// until the next verification and are left out: they do not end "within" anything.
    private static func expiring(_ db: any SnapshotQuerying, _ options: ReportOptions, _ csv: inout CSVWriter) async throws {
        let (end, overflow) = options.nowMs.addingReportingOverflow(options.withinMs)
        try await db.forEachExpiringReportRow(accessEndingFrom: options.nowMs, through: overflow ? Int64.max : end) { row in
            guard options.includes(bundleID: row.bundleID) else { return }
            try csv.writeRow([
                row.userID, row.originalTransactionID, row.productID, row.status,
                time(row.accessEndsMs), time(row.expiresDateMs), number(row.expiresDateMs),
                time(row.gracePeriodExpiresDateMs), flag(row.autoRenewStatus),
                row.autoRenewProductID, row.environment, time(row.lastVerifiedAtMs),
            ])
        }
    }

    /// Lost orders: periods a run found first that Apple billed after the app server handed the
    /// receipt over (`purchased_after_import = true`), which the app's copy of the receipt cannot
    /// contain. With `--all`, every renewal record a run found first: imports carry receipts, never
    /// transactions, so the first run also "finds" the history each receipt itself carried.
    private static func unrecorded(_ db: any SnapshotQuerying, _ options: ReportOptions, _ csv: inout CSVWriter) async throws {
        try await db.forEachUnrecordedReportRow(foundFrom: options.sinceMs ?? .min, until: options.untilMs ?? .max) { row in
            guard options.includes(bundleID: row.bundleID) else { return }
            let afterImport = row.purchasedAfterImport
            guard options.everyFoundPeriod || afterImport == true else { return }
            try csv.writeRow([
                row.userID, row.originalTransactionID, row.transactionID, row.webOrderLineItemID,
                row.productID, time(row.purchaseDateMs), number(row.purchaseDateMs), time(row.expiresDateMs),
                number(row.expiresDateMs), number(row.cancellationDateMs),
                row.isTrialPeriod == true ? "true" : "false",
                row.isInIntroOfferPeriod == true ? "true" : "false", time(row.firstSeenAtMs),
                number(row.firstSeenRunID), row.runKind, number(row.receiptID), time(row.receiptImportedAtMs),
                afterImport.map { $0 ? "true" : "false" },
            ])
        }
    }

    /// One row per (original_transaction_id, user) for every Apple subscription that more than
    /// one user claims, earliest receipt first: the first claimant is usually the buyer.
    private static func shared(_ db: any SnapshotQuerying, _ options: ReportOptions, _ csv: inout CSVWriter) async throws {
        try await db.forEachSharedReportRow { row in
            guard options.includes(bundleID: row.bundleID) else { return }
            let entitled = SubscriptionStatus(rawValue: row.status)?.isEntitled ?? false
            try csv.writeRow([
                row.originalTransactionID, number(row.users), row.userID, number(row.receiptID),
                time(row.receiptImportedAtMs), row.productID, row.status, entitled ? "true" : "false",
                time(row.expiresDateMs), number(row.expiresDateMs), row.ownershipType,
                time(row.firstSeenAtMs), time(row.lastVerifiedAtMs),
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
