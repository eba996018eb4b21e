/// The SQL of the CSV reports (`subrecon report KIND`; `?` placeholders, the same text on both stores).
package enum ReportSQL {
    package static let notifications = """
        SELECT received_at, notification_uuid, notification_type, subtype, environment, original_transaction_id,
               user_id, outcome, signed_date, deliveries, bundle_id
        FROM notifications WHERE received_at >= ? AND received_at < ? ORDER BY received_at, notification_uuid
        """
    /// Whether any receipt names an app (`receipts_app_due` answers it at once).
    package static let anyReceiptNamesAnApp = """
        SELECT 1 AS value WHERE EXISTS (SELECT 1 FROM receipts WHERE bundle_id IS NOT NULL)
            OR EXISTS (SELECT 1 FROM renewals WHERE bundle_id IS NOT NULL)
        """
    /// Each subscription's app, where its receipt names one, or its periods do (a forgotten
    /// user's, whose receipt is gone): for the money reports per app.
    package static let subscriptionApps = """
        SELECT s.original_transaction_id, r.bundle_id FROM subscriptions s JOIN receipts r ON r.id = s.receipt_id
        WHERE r.bundle_id IS NOT NULL
        UNION SELECT original_transaction_id, bundle_id FROM renewals WHERE bundle_id IS NOT NULL
        """
    package static let subscriptions = """
        SELECT s.user_id, s.original_transaction_id, s.product_id, s.status, s.expires_date_ms, s.auto_renew_status,
               s.auto_renew_product_id, s.expiration_intent, s.grace_period_expires_date_ms, s.is_in_billing_retry,
               s.environment, s.last_verified_at, s.cancellation_date_ms, s.app_account_token, r.bundle_id
        FROM subscriptions s LEFT JOIN receipts r ON r.id = s.receipt_id
        ORDER BY s.user_id, s.original_transaction_id
        """
    /// The ledger, each billed period once (`report renewals`): a purchase several users claim (one
    /// Apple ID's receipt uploaded by two accounts, a token linking) has its periods stored under
    /// each of them, and is listed under the user who claimed it first (the earliest imported
    /// receipt, then the user ID; a forgotten user's pseudonymized rows last): a row is left out
    /// when another user's copy of the period claims before it. The app is the receipt's, else the
    /// one the period kept (a forgotten user's receipt is gone). `NOT EXISTS` probes the few rows
    /// of the same original transaction (`renewals_otid`); a window over the whole ledger sorted it
    /// twice (docs/performance.md, "report renewals").
    package static let renewals = """
        SELECT n.transaction_id, n.original_transaction_id, n.web_order_line_item_id, n.user_id, n.product_id,
               n.purchase_date_ms, n.expires_date_ms, n.cancellation_date_ms, n.is_trial_period,
               n.is_in_intro_offer_period, n.first_seen_run_id, n.price_milliunits, n.currency, n.storefront,
               n.offer_type, n.offer_discount_type, n.offer_period, n.transaction_reason, n.ownership_type,
               n.environment, n.revocation_type, n.revocation_percentage, n.refund_milliunits,
               COALESCE(r.bundle_id, n.bundle_id) AS bundle_id
        FROM renewals n
        LEFT JOIN subscriptions s ON s.user_id = n.user_id AND s.original_transaction_id = n.original_transaction_id
        LEFT JOIN receipts r ON r.id = s.receipt_id
        WHERE NOT EXISTS (
            SELECT 1 FROM renewals o
            LEFT JOIN subscriptions os ON os.user_id = o.user_id AND os.original_transaction_id = o.original_transaction_id
            LEFT JOIN receipts orr ON orr.id = os.receipt_id
            WHERE o.original_transaction_id = n.original_transaction_id AND o.period_key = n.period_key
              AND o.user_id <> n.user_id
              AND (CASE WHEN orr.imported_at IS NULL THEN 1 ELSE 0 END, COALESCE(orr.imported_at, 0), o.user_id)
                  < (CASE WHEN r.imported_at IS NULL THEN 1 ELSE 0 END, COALESCE(r.imported_at, 0), n.user_id))
        ORDER BY n.user_id, n.original_transaction_id, n.expires_date_ms, n.period_key
        """
    package static let runs = "SELECT \(StatusSQL.runColumns) FROM runs WHERE started_at >= ? AND started_at < ? ORDER BY id"
    package static let runItems = """
        SELECT i.run_id, i.receipt_id, i.user_id, i.outcome, i.apple_status, i.environment, i.old_status, i.new_status,
               i.old_expires_date_ms, i.new_expires_date_ms, i.message, r.bundle_id
        FROM run_items i LEFT JOIN receipts r ON r.id = i.receipt_id WHERE i.run_id = ? ORDER BY i.receipt_id
        """
    /// "The latest run" of `run-items` and `changes` without `--run`: the nightly job's, so a
    /// support lookup (`subrecon user`, kind `user`) never hides last night's run.
    package static let latestNightlyRun = "SELECT MAX(id) AS value FROM runs WHERE kind = 'nightly'"
    package static let runExists = "SELECT 1 AS value FROM runs WHERE id = ?"
    package static let changesColumns = """
        SELECT c.run_id, c.user_id, c.original_transaction_id, c.change, c.old_status, c.new_status,
               c.old_product_id, c.new_product_id, c.old_expires_date_ms, c.new_expires_date_ms,
               c.old_auto_renew_status, c.new_auto_renew_status, c.old_auto_renew_product_id,
               c.new_auto_renew_product_id, c.receipt_id, c.recorded_at, c.notification_uuid, ra.bundle_id
        FROM subscription_changes c
        LEFT JOIN subscriptions sa ON sa.user_id = c.user_id AND sa.original_transaction_id = c.original_transaction_id
        LEFT JOIN receipts ra ON ra.id = COALESCE(c.receipt_id, sa.receipt_id)
        """
    package static let expiring = """
        SELECT * FROM (
            SELECT s.user_id, s.original_transaction_id, s.product_id, s.status, s.expires_date_ms,
                   s.grace_period_expires_date_ms, s.auto_renew_status, s.auto_renew_product_id, s.environment,
                   s.last_verified_at, r.bundle_id,
                   CASE WHEN s.status = 'grace_period' AND s.grace_period_expires_date_ms IS NOT NULL
                        THEN s.grace_period_expires_date_ms ELSE s.expires_date_ms END AS access_ends_ms
            FROM subscriptions s LEFT JOIN receipts r ON r.id = s.receipt_id
            WHERE s.status IN ('active', 'grace_period')) AS entitled
        WHERE access_ends_ms >= ? AND access_ends_ms <= ?
        ORDER BY access_ends_ms, user_id, original_transaction_id
        """
    package static let unrecorded = """
        SELECT n.user_id, n.original_transaction_id, n.transaction_id, n.web_order_line_item_id, n.product_id,
               n.purchase_date_ms, n.expires_date_ms, n.cancellation_date_ms, n.is_trial_period,
               n.is_in_intro_offer_period, n.first_seen_at, n.first_seen_run_id, r.kind AS run_kind,
               n.receipt_id, p.imported_at AS receipt_imported_at, COALESCE(p.bundle_id, n.bundle_id) AS bundle_id
        FROM renewals n
        JOIN runs r ON r.id = n.first_seen_run_id
        LEFT JOIN receipts p ON p.id = n.receipt_id
        WHERE n.first_seen_at >= ? AND n.first_seen_at < ?
        ORDER BY n.first_seen_at, n.user_id, n.original_transaction_id, n.expires_date_ms, n.period_key
        """
    package static let shared = """
        SELECT s.original_transaction_id, c.users, s.user_id, s.receipt_id, p.imported_at AS receipt_imported_at,
               s.product_id, s.status, s.expires_date_ms, s.ownership_type, s.first_seen_at, s.last_verified_at,
               p.bundle_id
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
