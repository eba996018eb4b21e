import SubReconModel

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

/// `subrecon link` of a purchase other users hold: who they are, and `link --move`'s statements.
package enum PurchaseHoldersSQL {
    /// Parameters: otid, holder. The holder's row before the purchase leaves them (for its event).
    package static let holderSubscription =
        "SELECT \(StoredSubscription.selectedColumns) FROM subscriptions WHERE original_transaction_id = ? AND user_id = ?"

    /// The other users who hold a purchase, first claimant first (the earliest imported receipt, as
    /// `report shared` and `report renewals` order them): a subscription of theirs, or a receipt of
    /// theirs known by the purchase's transaction id and not verified yet. `by_receipt_data` is 1
    /// when their claim is an app receipt's data, which would give the purchase back to them at the
    /// next check. Parameters: otid, user, the transaction id as given, otid, user.
    package static let holders = """
        SELECT user_id, MIN(imported_at) AS imported_at, MAX(by_receipt_data) AS by_receipt_data FROM (
            SELECT s.user_id, r.imported_at, CASE WHEN r.receipt_data IS NULL THEN 0 ELSE 1 END AS by_receipt_data
            FROM subscriptions s LEFT JOIN receipts r ON r.id = s.receipt_id
            WHERE s.original_transaction_id = ? AND s.user_id <> ?
            UNION ALL
            SELECT r.user_id, r.imported_at, 0 AS by_receipt_data FROM receipts r
            WHERE r.transaction_id IN (?, ?) AND r.user_id <> ?) AS claims
        GROUP BY user_id
        ORDER BY CASE WHEN MIN(imported_at) IS NULL THEN 1 ELSE 0 END, MIN(imported_at), user_id
        """
    /// The `appAccountToken` Apple's signed data gave the purchase, when stored.
    package static let storedToken = """
        SELECT app_account_token FROM subscriptions WHERE original_transaction_id = ? AND app_account_token IS NOT NULL
        ORDER BY last_verified_at DESC LIMIT 1
        """
    /// The user who registered a token.
    package static let tokenUser = "SELECT user_id FROM app_account_tokens WHERE app_account_token = ?"

    /// `link --move`: a run of kind `user` for the user the purchase moves to, which the holders'
    /// changes are recorded under. Parameters: the user, now, now, the holders' count.
    package static let moveRun = """
        INSERT INTO runs (kind, started_at, finished_at, status, receipts_total, verified, updated, unchanged,
                          invalid, failed, exit_code, target_user_id)
        VALUES ('user', ?, ?, 'completed', 0, 0, ?, 0, 0, 0, 0, ?)
        RETURNING id
        """

    /// One holder's claim, taken away, in order; parameters named in each case.
    package enum Step: CaseIterable, Sendable {
        case recordChange, moveLedger, dropLedgerCopies, moveNotifications, dropReceipts, dropSubscription
    }

    package static func statement(_ step: Step) -> String {
        switch step {
        // Parameters: run id, now, otid, holder. The subscription leaves the holder: `other`, new
        // status `moved` (they hold it no more; what they had is in the old columns).
        case .recordChange: """
            INSERT INTO subscription_changes (run_id, user_id, original_transaction_id, receipt_id, change, old_status,
                new_status, old_product_id, new_product_id, old_expires_date_ms, new_expires_date_ms,
                old_auto_renew_status, new_auto_renew_status, old_auto_renew_product_id, new_auto_renew_product_id,
                recorded_at)
            SELECT ?, user_id, original_transaction_id, receipt_id, 'other', status, 'moved', product_id, product_id,
                   expires_date_ms, expires_date_ms, auto_renew_status, auto_renew_status, auto_renew_product_id,
                   auto_renew_product_id, ?
            FROM subscriptions WHERE original_transaction_id = ? AND user_id = ?
            """
        // Parameters: user, holder, otid, user. The billed periods go with the purchase (the money
        // stays in the ledger, once), unless the user has that period already.
        case .moveLedger: """
            UPDATE renewals SET user_id = ?
            WHERE user_id = ? AND original_transaction_id = ?
              AND NOT EXISTS (SELECT 1 FROM renewals o WHERE o.user_id = ? AND o.period_key = renewals.period_key)
            """
        // Parameters: holder, otid. What stayed: periods the user had already.
        case .dropLedgerCopies: "DELETE FROM renewals WHERE user_id = ? AND original_transaction_id = ?"
        // Parameters: holder, otid, holder, otid. The holder's receipts known by this purchase's
        // transaction id alone: they would give it back to them.
        case .dropReceipts: """
            DELETE FROM receipts WHERE user_id = ? AND receipt_data IS NULL
              AND (transaction_id = ? OR id IN (SELECT receipt_id FROM subscriptions
                                                WHERE user_id = ? AND original_transaction_id = ?))
            """
        // Parameters: holder, otid.
        case .dropSubscription: "DELETE FROM subscriptions WHERE user_id = ? AND original_transaction_id = ?"
        // Parameters: user, holder, otid. Apple's notifications about the purchase are the user's now.
        case .moveNotifications: """
            UPDATE notifications SET user_id = ?, receipt_id = NULL WHERE user_id = ? AND original_transaction_id = ?
            """
        }
    }

    /// The arguments of `step` for one holder.
    package static func arguments(
        _ step: Step, runID: Int64, nowMs: Int64, otid: String, user: String, holder: String
    ) -> [SQLArgument] {
        switch step {
        case .recordChange: [.integer(runID), .integer(nowMs), .text(otid), .text(holder)]
        case .moveLedger: [.text(user), .text(holder), .text(otid), .text(user)]
        case .dropLedgerCopies, .dropSubscription: [.text(holder), .text(otid)]
        case .dropReceipts: [.text(holder), .text(otid), .text(holder), .text(otid)]
        case .moveNotifications: [.text(user), .text(holder), .text(otid)]
        }
    }

    /// A token moves to the user (`link --move` of a purchase whose token another user registered).
    package static let moveToken = "UPDATE app_account_tokens SET user_id = ? WHERE app_account_token = ?"
}
