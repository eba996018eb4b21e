/// Who a purchase belongs to (`subrecon link`): the statements both stores run.
package enum IdentitySQL {
    /// Whether anything is stored for a user (receipts or tokens), and their first token.
    package static let user = """
        SELECT (SELECT COUNT(*) FROM receipts WHERE user_id = ?) + (SELECT COUNT(*) FROM app_account_tokens WHERE user_id = ?)
                   AS stored,
               (SELECT app_account_token FROM app_account_tokens WHERE user_id = ?
                ORDER BY registered_at, app_account_token LIMIT 1) AS token
        """
    /// A transaction id as stored: its original transaction id and the app of the receipt holding it.
    package static let transaction = """
        SELECT s.original_transaction_id, r.bundle_id FROM subscriptions s LEFT JOIN receipts r ON r.id = s.receipt_id
        WHERE s.original_transaction_id = ? OR s.latest_transaction_id = ?
        UNION ALL
        SELECT n.original_transaction_id, r.bundle_id FROM renewals n LEFT JOIN receipts r ON r.id = n.receipt_id
        WHERE n.transaction_id = ?
        UNION ALL
        SELECT r.transaction_id AS original_transaction_id, r.bundle_id FROM receipts r WHERE r.transaction_id = ?
        """
    /// How a stored subscription's buyer holds it (`PURCHASED`, `FAMILY_SHARED`, `ASSIGNED`).
    package static let ownership = """
        SELECT ownership_type FROM subscriptions WHERE original_transaction_id = ? AND ownership_type IS NOT NULL LIMIT 1
        """
    /// Whether the user already holds the subscription (a receipt of theirs knows it).
    package static let userHolds = """
        SELECT COUNT(*) AS value FROM subscriptions WHERE user_id = ? AND original_transaction_id = ?
        """
    /// Purchases a run found (its updated receipts' subscriptions) whose `appAccountToken` another
    /// user registered, and that user does not hold yet: the token says whose they are.
    package static let tokenHoldersOfRun = """
        SELECT DISTINCT s.original_transaction_id, t.user_id, r.bundle_id
        FROM run_items i
        JOIN subscriptions s ON s.receipt_id = i.receipt_id
        JOIN app_account_tokens t ON t.app_account_token = s.app_account_token
        LEFT JOIN receipts r ON r.id = s.receipt_id
        WHERE i.run_id = ? AND i.outcome = 'updated' AND t.user_id <> s.user_id
          AND NOT EXISTS (SELECT 1 FROM subscriptions o
                          WHERE o.user_id = t.user_id AND o.original_transaction_id = s.original_transaction_id)
          AND NOT EXISTS (SELECT 1 FROM receipts o WHERE o.user_id = t.user_id AND o.transaction_id = s.original_transaction_id)
        ORDER BY t.user_id, s.original_transaction_id
        """
}
