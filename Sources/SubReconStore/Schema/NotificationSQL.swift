import SubReconModel

/// The SQL both stores run for notifications (`?` placeholders).
package enum NotificationSQL {
    package static let existing = "SELECT outcome, user_id FROM notifications WHERE notification_uuid = ?"

    package static let countDelivery = """
        UPDATE notifications SET deliveries = deliveries + 1, last_received_at = ? WHERE notification_uuid = ?
        """

    /// The receipts holding the subscription: by the subscription rows first (one receipt per
    /// user), else a receipt imported with one of its transaction ids (StoreKit 2 apps).
    package static let receiptsBySubscription = """
        SELECT receipt_id, user_id FROM subscriptions
        WHERE original_transaction_id = ? AND receipt_id IS NOT NULL ORDER BY user_id
        """
    package static let receiptsByTransaction = """
        SELECT MIN(id) AS receipt_id, user_id FROM receipts
        WHERE transaction_id IN (?, ?) GROUP BY user_id ORDER BY user_id
        """

    package static let insert = """
        INSERT INTO notifications (notification_uuid, notification_type, subtype, environment, signed_date,
            original_transaction_id, transaction_id, user_id, receipt_id, outcome, source, received_at,
            last_received_at, deliveries, signed_payload, bundle_id, app_account_token)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?)
        """

    /// An unmatched notification that has found its receipt.
    package static let link = """
        UPDATE notifications SET user_id = ?, receipt_id = ?, outcome = ?, signed_payload = NULL, app_account_token = NULL
        WHERE notification_uuid = ?
        """

    /// Unmatched notifications some stored receipt now knows, or whose transaction's token a user
    /// has registered since, oldest first.
    package static let linkable = """
        SELECT n.notification_uuid, n.signed_payload FROM notifications n
        WHERE n.outcome = 'unmatched' AND n.signed_payload IS NOT NULL AND (
            EXISTS (SELECT 1 FROM subscriptions s WHERE s.original_transaction_id = n.original_transaction_id)
            OR EXISTS (SELECT 1 FROM receipts r WHERE r.transaction_id = n.original_transaction_id)
            OR EXISTS (SELECT 1 FROM receipts r WHERE r.transaction_id = n.transaction_id)
            OR EXISTS (SELECT 1 FROM app_account_tokens t WHERE t.app_account_token = n.app_account_token))
        ORDER BY n.signed_date, n.notification_uuid LIMIT ?
        """

    package static func insertArguments(
        _ n: StoredNotification, userID: String?, receiptID: Int64?, outcome: NotificationOutcome
    ) -> [SQLArgument] {
        [
            .text(n.uuid), .text(n.type), SQLArgument(n.subtype), SQLArgument(n.environment?.rawValue),
            .integer(n.signedDateMs), SQLArgument(n.originalTransactionID), SQLArgument(n.transactionID),
            SQLArgument(userID), SQLArgument(receiptID), .text(outcome.rawValue), .text(n.source.rawValue),
            .integer(n.receivedAtMs), .integer(n.receivedAtMs),
            outcome == .unmatched ? .text(n.signedPayload) : .null, SQLArgument(n.bundleID),
            outcome == .unmatched ? SQLArgument(n.appAccountToken) : .null,
        ]
    }

    /// The outcome of applying to one receipt: `stale` when its subscription kept newer data.
    package static func outcome(of update: ReceiptUpdate, originalTransactionID: String?) -> NotificationOutcome {
        guard let otid = originalTransactionID else { return .applied }
        return update.staleSubscriptions.contains(otid) ? .stale : .applied
    }
}
