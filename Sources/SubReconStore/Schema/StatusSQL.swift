/// The SQL of `subrecon status` (`?` placeholders, the same text on both stores).
package enum StatusSQL {
    package static let subscriptionsByStatus = "SELECT status, COUNT(*) AS n FROM subscriptions GROUP BY status"
    package static let receiptsByState = """
        SELECT verification_state AS state, COUNT(*) AS n,
               CAST(SUM(CASE WHEN next_due_at <= ? THEN 1 ELSE 0 END) AS BIGINT) AS due
        FROM receipts GROUP BY verification_state
        """
    /// The latest `?` nightly runs and the latest `?` runs of other kinds (`subrecon user`), newest
    /// first: however many support lookups came after it, last night's run stays on the screen.
    package static let latestRuns = """
        SELECT * FROM (SELECT \(runColumns) FROM runs WHERE kind = 'nightly' ORDER BY id DESC LIMIT ?) AS nightly
        UNION ALL
        SELECT * FROM (SELECT \(runColumns) FROM runs WHERE kind <> 'nightly' ORDER BY id DESC LIMIT ?) AS other
        ORDER BY id DESC
        """
    /// A run as `RunRecord` reads it (`report runs`, status, the dashboard).
    package static let runColumns = """
        id, kind, started_at, finished_at, status, receipts_total, verified, updated, unchanged, invalid, account_gone,
        failed, skipped, exit_code, host, pid
        """
    package static let failingReceiptCount = "SELECT COUNT(*) AS value FROM receipts WHERE consecutive_failures >= ?"
    package static let failingReceipts = """
        SELECT id, user_id, consecutive_failures, last_apple_status, last_attempt_at, last_message
        FROM receipts WHERE consecutive_failures >= ?
        ORDER BY consecutive_failures DESC, id LIMIT ?
        """
    package static let lastReceiverDelivery = "SELECT MAX(last_received_at) AS value FROM notifications WHERE source = 'receiver'"
    package static let notificationCount = "SELECT COUNT(*) AS value FROM notifications"
    package static let notificationsSince = "SELECT COUNT(*) AS value FROM notifications WHERE last_received_at >= ?"
    package static let unmatchedNotificationCount = "SELECT COUNT(*) AS value FROM notifications WHERE outcome = 'unmatched'"
}
