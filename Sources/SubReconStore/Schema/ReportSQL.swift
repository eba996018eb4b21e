/// The SQL of the CSV reports (`subrecon report KIND`; `?` placeholders, the same text on both stores).
package enum ReportSQL {
    package static let notifications = """
        SELECT received_at, notification_uuid, notification_type, subtype, environment, original_transaction_id,
               user_id, outcome, signed_date, deliveries
        FROM notifications WHERE received_at >= ? AND received_at < ? ORDER BY received_at, notification_uuid
        """
    package static let subscriptions = """
        SELECT user_id, original_transaction_id, product_id, status, expires_date_ms, auto_renew_status,
               auto_renew_product_id, expiration_intent, grace_period_expires_date_ms, is_in_billing_retry,
               environment, last_verified_at, cancellation_date_ms, app_account_token
        FROM subscriptions ORDER BY user_id, original_transaction_id
        """
    package static let renewals = """
        SELECT transaction_id, original_transaction_id, web_order_line_item_id, user_id, product_id,
               purchase_date_ms, expires_date_ms, cancellation_date_ms, is_trial_period,
               is_in_intro_offer_period, first_seen_run_id, price_milliunits, currency, storefront, offer_type,
               offer_discount_type, offer_period, transaction_reason, ownership_type, environment,
               revocation_type, revocation_percentage, refund_milliunits
        FROM renewals ORDER BY user_id, original_transaction_id, expires_date_ms, period_key
        """
    package static let runs = """
        SELECT id, kind, started_at, finished_at, status, receipts_total, verified, updated, unchanged,
               invalid, failed, exit_code, host, pid
        FROM runs WHERE started_at >= ? AND started_at < ? ORDER BY id
        """
    package static let runItems = """
        SELECT run_id, receipt_id, user_id, outcome, apple_status, environment, old_status, new_status,
               old_expires_date_ms, new_expires_date_ms, message
        FROM run_items WHERE run_id = ? ORDER BY receipt_id
        """
    package static let latestRun = "SELECT MAX(id) AS value FROM runs"
    package static let runExists = "SELECT 1 AS value FROM runs WHERE id = ?"
    package static let changesColumns = """
        SELECT c.run_id, c.user_id, c.original_transaction_id, c.change, c.old_status, c.new_status,
               c.old_product_id, c.new_product_id, c.old_expires_date_ms, c.new_expires_date_ms,
               c.old_auto_renew_status, c.new_auto_renew_status, c.old_auto_renew_product_id,
               c.new_auto_renew_product_id, c.receipt_id, c.recorded_at, c.notification_uuid
        FROM subscription_changes c
        """
    package static let expiring = """
        SELECT * FROM (
            SELECT user_id, original_transaction_id, product_id, status, expires_date_ms,
                   grace_period_expires_date_ms, auto_renew_status, auto_renew_product_id, environment,
                   last_verified_at,
                   CASE WHEN status = 'grace_period' AND grace_period_expires_date_ms IS NOT NULL
                        THEN grace_period_expires_date_ms ELSE expires_date_ms END AS access_ends_ms
            FROM subscriptions WHERE status IN ('active', 'grace_period')) AS entitled
        WHERE access_ends_ms >= ? AND access_ends_ms <= ?
        ORDER BY access_ends_ms, user_id, original_transaction_id
        """
    package static let unrecorded = """
        SELECT n.user_id, n.original_transaction_id, n.transaction_id, n.web_order_line_item_id, n.product_id,
               n.purchase_date_ms, n.expires_date_ms, n.cancellation_date_ms, n.is_trial_period,
               n.is_in_intro_offer_period, n.first_seen_at, n.first_seen_run_id, r.kind AS run_kind,
               n.receipt_id, p.imported_at AS receipt_imported_at
        FROM renewals n
        JOIN runs r ON r.id = n.first_seen_run_id
        LEFT JOIN receipts p ON p.id = n.receipt_id
        WHERE n.first_seen_at >= ? AND n.first_seen_at < ?
        ORDER BY n.first_seen_at, n.user_id, n.original_transaction_id, n.expires_date_ms, n.period_key
        """
    package static let shared = """
        SELECT s.original_transaction_id, c.users, s.user_id, s.receipt_id, p.imported_at AS receipt_imported_at,
               s.product_id, s.status, s.expires_date_ms, s.ownership_type, s.first_seen_at, s.last_verified_at
        FROM subscriptions s
        JOIN (SELECT original_transaction_id, COUNT(*) AS users FROM subscriptions
              GROUP BY original_transaction_id HAVING COUNT(*) > 1) c
          ON c.original_transaction_id = s.original_transaction_id
        LEFT JOIN receipts p ON p.id = s.receipt_id
        ORDER BY s.original_transaction_id, p.imported_at IS NULL, p.imported_at, s.user_id
        """
    package static let firstPurchaseMs = """
        SELECT MIN(purchase_date_ms) AS value FROM renewals
        WHERE COALESCE(environment, 'Production') = ? AND (ownership_type IS NULL OR ownership_type IN ('', 'PURCHASED'))
        """

    /// Every change of the runs that started in [?, ?), then every change a notification made in
    /// [?, ?) (both stores order alike: no NULL run_id sorts first).
    package static let changesInWindow = """
        \(changesColumns) LEFT JOIN runs r ON r.id = c.run_id
        WHERE (r.started_at >= ? AND r.started_at < ?)
           OR (c.run_id IS NULL AND c.recorded_at >= ? AND c.recorded_at < ?)
        ORDER BY CASE WHEN c.run_id IS NULL THEN 1 ELSE 0 END, c.run_id, c.recorded_at, c.user_id,
                 c.original_transaction_id, c.id
        """
    /// Every change of one run.
    package static let changesOfRun = "\(changesColumns) WHERE c.run_id = ? ORDER BY c.run_id, c.user_id, c.original_transaction_id, c.id"
}
