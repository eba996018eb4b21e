/// The SQL of the dashboard page (`?` placeholders, the same text on both stores).
package enum DashboardSQL {
    package static let subscriptionsByStatus = "SELECT status, COUNT(*) AS value FROM subscriptions GROUP BY status"
    package static let runsSince = """
        SELECT id, kind, started_at, finished_at, status, updated, unchanged, invalid, failed, exit_code
        FROM runs WHERE started_at >= ? ORDER BY id
        """
    package static let notificationTimesSince = "SELECT received_at FROM notifications WHERE received_at >= ?"
    package static let periodsFoundByRunSince = """
        SELECT r.id, r.started_at, COUNT(*) AS value FROM renewals n JOIN runs r ON r.id = n.first_seen_run_id
        WHERE r.started_at >= ? GROUP BY r.id, r.started_at ORDER BY r.id
        """
    package static let periodsWithoutPrice = """
        SELECT COUNT(*) AS value FROM renewals WHERE price_milliunits IS NULL OR currency IS NULL OR currency = ''
        """
}
