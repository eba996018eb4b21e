import SubReconModel

/// The CSV reports' reads (`subrecon report KIND`): each statement of `ReportSQL` with its
/// bindings and columns, handing typed rows over one at a time (memory stays flat in the table's
/// size: the reports walk millions of rows).
extension SnapshotQuerying {
    /// Notifications first received in `[sinceMs, untilMs)`, in the order they first arrived.
    public func forEachNotificationReportRow(
        receivedFrom sinceMs: Int64, until untilMs: Int64, _ body: (NotificationReportRow) throws -> Void
    ) async throws {
        try await forEachRow(ReportSQL.notifications, [.integer(sinceMs), .integer(untilMs)]) { try body(.init($0)) }
    }

    /// Every subscription, by user, then original transaction id.
    public func forEachSubscriptionReportRow(_ body: (SubscriptionReportRow) throws -> Void) async throws {
        try await forEachRow(ReportSQL.subscriptions, []) { try body(.init($0)) }
    }

    /// The ledger, each billed period once, under the user who claimed it first.
    public func forEachRenewalReportRow(_ body: (RenewalReportRow) throws -> Void) async throws {
        try await forEachRow(ReportSQL.renewals, []) { try body(.init($0)) }
    }

    /// Runs started in `[sinceMs, untilMs)`, by id.
    public func forEachRunReportRow(startedFrom sinceMs: Int64, until untilMs: Int64, _ body: (RunRecord) throws -> Void)
        async throws
    {
        try await forEachRow(ReportSQL.runs, [.integer(sinceMs), .integer(untilMs)]) { try body(.init($0)) }
    }

    /// One run's items, by receipt id.
    public func forEachRunItemReportRow(ofRun runID: Int64, _ body: (RunItemReportRow) throws -> Void) async throws {
        try await forEachRow(ReportSQL.runItems, [.integer(runID)]) { try body(.init($0)) }
    }

    /// The latest nightly run's id; nil when there is none.
    public func latestNightlyRunID() async throws -> Int64? {
        try await integer(ReportSQL.latestNightlyRun)
    }

    /// Whether a run of this id (of either kind) is stored.
    public func runExists(_ runID: Int64) async throws -> Bool {
        try await integer(ReportSQL.runExists, [.integer(runID)]) != nil
    }

    /// Every subscription change of one run.
    public func forEachChangeReportRow(ofRun runID: Int64, _ body: (ChangeReportRow) throws -> Void) async throws {
        try await forEachRow(ReportSQL.changesOfRun, [.integer(runID)]) { try body(.init($0)) }
    }

    /// Every change of the runs that started in `[sinceMs, untilMs)`, then every change a
    /// notification made in it.
    public func forEachChangeReportRow(
        from sinceMs: Int64, until untilMs: Int64, _ body: (ChangeReportRow) throws -> Void
    ) async throws {
        let window: [SQLArgument] = [.integer(sinceMs), .integer(untilMs)]
        try await forEachRow(ReportSQL.changesInWindow, window + window) { try body(.init($0)) }
    }

    /// Entitled subscriptions whose access ends in `[fromMs, throughMs]`, soonest first.
    public func forEachExpiringReportRow(
        accessEndingFrom fromMs: Int64, through throughMs: Int64, _ body: (ExpiringReportRow) throws -> Void
    ) async throws {
        try await forEachRow(ReportSQL.expiring, [.integer(fromMs), .integer(throughMs)]) { try body(.init($0)) }
    }

    /// Billed periods a run found first in `[sinceMs, untilMs)`, in the order they were found.
    public func forEachUnrecordedReportRow(
        foundFrom sinceMs: Int64, until untilMs: Int64, _ body: (UnrecordedReportRow) throws -> Void
    ) async throws {
        try await forEachRow(ReportSQL.unrecorded, [.integer(sinceMs), .integer(untilMs)]) { try body(.init($0)) }
    }

    /// Each user's claim on every subscription more than one user claims, earliest receipt first.
    public func forEachSharedReportRow(_ body: (SharedReportRow) throws -> Void) async throws {
        try await forEachRow(ReportSQL.shared, []) { try body(.init($0)) }
    }

    /// The earliest purchase the money reports count in `environment` (their default window's start).
    public func firstPurchaseMs(environment: String) async throws -> Int64? {
        try await integer(ReportSQL.firstPurchaseMs, [.text(environment)])
    }

    /// Each subscription's app (by original transaction id), where its receipt or its periods name
    /// one. Only those are in the map; when nothing names an app (a deployment with one app), one
    /// index probe and nothing more is read.
    public func subscriptionApps() async throws -> [String: String] {
        var appOf: [String: String] = [:]
        if try await integer(ReportSQL.anyReceiptNamesAnApp) != nil {
            try await forEachRow(ReportSQL.subscriptionApps, []) { row in
                if let otid = try row.text("original_transaction_id"), let app = try row.text("bundle_id") { appOf[otid] = app }
            }
        }
        return appOf
    }
}
