/// `subrecon user USER_ID --history`: what the store knows happened to one user, read from one
/// snapshot (`?` placeholders, the same text on both stores). Each query is one user's rows only:
/// renewals by their primary key, the others by a scan (a support lookup, not a nightly path).
package enum UserHistorySQL {
    /// Whether the user is known at all: receipts, or tokens registered for them.
    package static let known = """
        SELECT (SELECT COUNT(*) FROM receipts WHERE user_id = ?)
             + (SELECT COUNT(*) FROM app_account_tokens WHERE user_id = ?) AS value
        """
    /// Each change to one of the user's subscriptions, with the run (and its kind) or the
    /// notification that made it.
    package static let changes = """
        SELECT c.recorded_at, c.original_transaction_id, c.change, c.old_status, c.new_status, c.old_product_id,
               c.new_product_id, c.old_expires_date_ms, c.new_expires_date_ms, c.run_id, r.kind AS run_kind,
               c.notification_uuid
        FROM subscription_changes c LEFT JOIN runs r ON r.id = c.run_id
        WHERE c.user_id = ? ORDER BY c.recorded_at, c.id
        """
    /// Each period Apple billed the user, with its money where Apple's signed data gave it.
    package static let periods = """
        SELECT transaction_id, original_transaction_id, product_id, purchase_date_ms, expires_date_ms,
               cancellation_date_ms, is_trial_period, price_milliunits, currency, refund_milliunits, first_seen_at
        FROM renewals WHERE user_id = ? ORDER BY purchase_date_ms, period_key
        """
    /// Each App Store notification linked to the user.
    package static let notifications = """
        SELECT notification_uuid, notification_type, subtype, signed_date, original_transaction_id, transaction_id,
               outcome, source, deliveries
        FROM notifications WHERE user_id = ? ORDER BY signed_date, notification_uuid
        """
}
