/// What `report events`, `status` and the metrics read about events.
package enum EventReportSQL {
    /// Parameters: since, until, then the type when `byType`. Rows by position.
    package static func events(byType: Bool) -> String {
        """
        SELECT position, event_id, type, created_at, user_id, original_transaction_id, seq, source, state, attempts,
            last_attempt_at, last_status, delivered_at, bundle_id
        FROM events WHERE created_at >= ? AND created_at < ?\(byType ? " AND type = ?" : "")
        ORDER BY position
        """
    }

    package static let pendingByApp = """
        SELECT bundle_id, COUNT(*) AS n, MIN(created_at) AS oldest FROM events WHERE state = 'pending' GROUP BY bundle_id
        """

    package static let deadByApp = "SELECT bundle_id, COUNT(*) AS n FROM events WHERE state = 'dead' GROUP BY bundle_id"

    package static let attemptTotals = "SELECT result, attempts FROM webhook_attempt_totals ORDER BY result"
}
