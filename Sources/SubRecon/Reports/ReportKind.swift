/// The CSV reports `subrecon report KIND` writes.
public enum ReportKind: String, Sendable, CaseIterable {
    case subscriptions
    case renewals
    case runs
    case runItems = "run-items"

    /// The header row: the contract's columns, in the contract's order.
    public var columns: [String] {
        switch self {
        case .subscriptions:
            ["user_id", "original_transaction_id", "product_id", "status", "entitled", "expires_at", "expires_date_ms",
             "auto_renew_status", "auto_renew_product_id", "expiration_intent", "grace_period_expires_at",
             "is_in_billing_retry", "environment", "last_verified_at", "cancellation_date_ms"]
        case .renewals:
            ["transaction_id", "original_transaction_id", "web_order_line_item_id", "user_id", "product_id",
             "purchase_date_ms", "expires_date_ms", "cancellation_date_ms", "is_trial_period",
             "is_in_intro_offer_period", "first_seen_run_id"]
        case .runs:
            ["run_id", "kind", "started_at", "finished_at", "status", "receipts_total", "verified", "updated",
             "unchanged", "invalid", "failed", "exit_code"]
        case .runItems:
            ["run_id", "receipt_id", "user_id", "outcome", "apple_status", "environment", "old_status", "new_status",
             "old_expires_date_ms", "new_expires_date_ms", "message"]
        }
    }
}
