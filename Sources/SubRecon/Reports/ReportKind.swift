import SubReconModel

/// The CSV reports `subrecon report KIND` writes.
public enum ReportKind: String, Sendable, CaseIterable {
    case subscriptions
    case renewals
    case runs
    case runItems = "run-items"
    case changes
    case expiring
    case unrecorded
    case shared
    case notifications
    case revenue
    case metrics
    /// Not CSV: one self-contained HTML page (`--output FILE.html`).
    case dashboard
    /// The ledger matched against Apple's stored Summary Sales Reports, per Pacific-time day.
    case appleParity = "apple-parity"
    /// One row per event (the outbox) and how its delivery stands.
    case events

    /// Reports whose rows `--app` narrows to the apps it names: all but `runs` (a run spans
    /// apps). The dashboard's figures are those apps' (its runs and Apple's reports, every
    /// app's); apple-parity keeps those apps' periods and the lines of their products.
    public var narrowsByApp: Bool { self != .runs }

    /// The header row: the contract's columns, in the contract's order. New kinds follow the
    /// same rule: columns are only ever added at the end.
    public var columns: [String] {
        switch self {
        case .subscriptions:
            ["user_id", "original_transaction_id", "product_id", "status", "entitled", "expires_at", "expires_date_ms",
             "auto_renew_status", "auto_renew_product_id", "expiration_intent", "grace_period_expires_at",
             "is_in_billing_retry", "environment", "last_verified_at", "cancellation_date_ms",
             "app_account_token", "bundle_id"]
        case .renewals:
            ["transaction_id", "original_transaction_id", "web_order_line_item_id", "user_id", "product_id",
             "purchase_date_ms", "expires_date_ms", "cancellation_date_ms", "is_trial_period",
             "is_in_intro_offer_period", "first_seen_run_id", "price_milliunits", "currency", "storefront",
             "offer_type", "offer_discount_type", "offer_period", "transaction_reason", "ownership_type",
             "environment", "revocation_type", "revocation_percentage", "refund_milliunits", "bundle_id",
             "purchase_date", "expires_date", "price", "refund"]
        case .runs:
            ["run_id", "kind", "started_at", "finished_at", "status", "receipts_total", "verified", "updated",
             "unchanged", "invalid", "failed", "exit_code", "worker", "account_gone", "skipped"]
        case .runItems:
            ["run_id", "receipt_id", "user_id", "outcome", "apple_status", "environment", "old_status", "new_status",
             "old_expires_date_ms", "new_expires_date_ms", "message", "bundle_id"]
        case .changes:
            ["run_id", "user_id", "original_transaction_id", "change", "old_status", "new_status", "old_product_id",
             "new_product_id", "old_expires_at", "new_expires_at", "old_auto_renew_status", "new_auto_renew_status",
             "old_auto_renew_product_id", "new_auto_renew_product_id", "old_expires_date_ms", "new_expires_date_ms",
             "receipt_id", "changed_at", "notification_uuid"]
        case .expiring:
            ["user_id", "original_transaction_id", "product_id", "status", "access_ends_at", "expires_at",
             "expires_date_ms", "grace_period_expires_at", "auto_renew_status", "auto_renew_product_id",
             "environment", "last_verified_at"]
        case .unrecorded:
            ["user_id", "original_transaction_id", "transaction_id", "web_order_line_item_id", "product_id",
             "purchased_at", "purchase_date_ms", "expires_at", "expires_date_ms", "cancellation_date_ms",
             "is_trial_period", "is_in_intro_offer_period", "first_seen_at", "first_seen_run_id", "run_kind",
             "receipt_id", "receipt_imported_at", "purchased_after_import"]
        case .notifications:
            ["received_at", "notification_uuid", "notification_type", "subtype", "environment", "original_transaction_id",
             "user_id", "outcome", "signed_date", "deliveries", "bundle_id"]
        case .revenue: RevenueReport.columns + ["bundle_id"]
        case .metrics: MetricsReport.columns + ["bundle_id"]
        case .dashboard: []
        case .appleParity: SalesParityRow.columns
        case .events:
            ["position", "event_id", "type", "created_at", "user_id", "original_transaction_id", "seq", "source",
             "delivery_state", "attempts", "last_attempt_at", "last_status", "delivered_at", "bundle_id"]
        case .shared:
            ["original_transaction_id", "users", "user_id", "receipt_id", "receipt_imported_at", "product_id", "status",
             "entitled", "expires_at", "expires_date_ms", "ownership_type", "first_seen_at", "last_verified_at"]
        }
    }

    /// One line for `subrecon report --help` (short enough to stay one line in an 80-column terminal).
    public var summary: String {
        switch self {
        case .subscriptions: "one row per (user, original_transaction_id): status, expiry"
        case .renewals: "one row per subscription period Apple reported"
        case .runs: "one row per run: kind, times, counts, exit code"
        case .runItems: "each receipt's outcome in one run (--run, default last nightly)"
        case .changes: "what a run changed, old and new side by side (--run)"
        case .expiring: "entitled subscriptions ending within --within (default 7d)"
        case .unrecorded: "lost orders: billed after import, found by a run (--all)"
        case .shared: "one original_transaction_id claimed by several users"
        case .notifications: "one row per App Store notification: outcome, deliveries"
        case .revenue: "billed, refunded and net per month (--by) and product, per currency"
        case .metrics: "paid subscriptions, trials, MRR and churn at each month's end"
        case .dashboard: "one HTML page of the figures over time (--output FILE.html)"
        case .appleParity: "the ledger matched against Apple's sales reports, per Pacific day"
        case .events: "one row per event for the app's backend: type, seq, delivery"
        }
    }

    /// Whether `--run ID` applies.
    public var takesRun: Bool { self == .runItems || self == .changes }

    /// Whether `--since/--until` apply, and to which time.
    public var takesTimeWindow: Bool {
        self == .runs || self == .changes || self == .unrecorded || self == .notifications || self == .events
    }

    /// Whether `--by` and `--environment` apply, and `--since/--until` are dates of periods.
    public var takesMoneyOptions: Bool { self == .revenue || self == .metrics }

    /// Whether `--within` applies.
    public var takesWithin: Bool { self == .expiring }
}
