/// The SQL behind the metrics file and the due policy's notification check (`?` placeholders, both stores).
package enum MetricsSQL {
    package static let lastSuccessfulRun = "SELECT MAX(finished_at) AS value FROM runs WHERE kind = ? AND exit_code = 0"
    package static let appleStatusesOfRun = """
        SELECT apple_status, COUNT(*) AS n FROM run_items WHERE run_id = ? AND apple_status IS NOT NULL GROUP BY apple_status ORDER BY apple_status
        """
    package static let dueReceiptCount = "SELECT COUNT(*) AS value FROM receipts WHERE next_due_at <= ?"
    package static let deliveredNotificationsSince = """
        SELECT COUNT(*) AS value FROM notifications WHERE source <> 'import' AND last_received_at >= ?
        """
}
