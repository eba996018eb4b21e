/// The SQL of the dashboard page (`?` placeholders, the same text on both stores).
package enum DashboardSQL {
    package static let runsSince = "SELECT \(StatusSQL.runColumns) FROM runs WHERE started_at >= ? ORDER BY id"
    package static let notificationTimesSince = "SELECT received_at FROM notifications WHERE received_at >= ?"
    /// Lost orders per run: periods a run found first that Apple billed after the app server
    /// handed the receipt over (`report unrecorded`'s `purchased_after_import = true`), never the
    /// history the receipt itself carried.
    package static let periodsFoundByRunSince = """
        SELECT r.id, r.started_at, COUNT(*) AS value
        FROM renewals n JOIN runs r ON r.id = n.first_seen_run_id JOIN receipts p ON p.id = n.receipt_id
        WHERE r.started_at >= ? AND n.purchase_date_ms > p.imported_at GROUP BY r.id, r.started_at ORDER BY r.id
        """
    /// With `--app`: the same counts by each row's app (its receipt's, else its period's), for the
    /// caller to keep the apps asked for.
    package static let subscriptionsByStatusAndApp = """
        SELECT s.status, r.bundle_id, COUNT(*) AS value FROM subscriptions s LEFT JOIN receipts r ON r.id = s.receipt_id
        GROUP BY s.status, r.bundle_id
        """
    package static let notificationsSinceByApp = "SELECT received_at, bundle_id FROM notifications WHERE received_at >= ?"
    package static let periodsFoundByRunSinceByApp = """
        SELECT r.id, r.started_at, COALESCE(p.bundle_id, n.bundle_id) AS bundle_id, COUNT(*) AS value
        FROM renewals n JOIN runs r ON r.id = n.first_seen_run_id JOIN receipts p ON p.id = n.receipt_id
        WHERE r.started_at >= ? AND n.purchase_date_ms > p.imported_at
        GROUP BY r.id, r.started_at, COALESCE(p.bundle_id, n.bundle_id) ORDER BY r.id
        """
    package static let periodsWithoutPriceByApp = """
        SELECT COALESCE(p.bundle_id, n.bundle_id) AS bundle_id, COUNT(*) AS value
        FROM renewals n LEFT JOIN receipts p ON p.id = n.receipt_id
        WHERE n.price_milliunits IS NULL OR n.currency IS NULL OR n.currency = ''
        GROUP BY COALESCE(p.bundle_id, n.bundle_id)
        """
    package static let periodsWithoutPrice = """
        SELECT COUNT(*) AS value FROM renewals WHERE price_milliunits IS NULL OR currency IS NULL OR currency = ''
        """
}
