/// A verified notification as the store keeps it (a row of `notifications`).
public struct StoredNotification: Sendable, Equatable {
    public var uuid: String
    public var type: String
    public var subtype: String?
    public var environment: ReceiptEnvironment?
    public var signedDateMs: Int64
    public var originalTransactionID: String?
    public var transactionID: String?
    public var source: NotificationSource
    public var receivedAtMs: Int64
    /// The body's signed payload, kept while the notification is unmatched (to apply it later).
    public var signedPayload: String

    public init(
        uuid: String, type: String, subtype: String?, environment: ReceiptEnvironment?, signedDateMs: Int64,
        originalTransactionID: String?, transactionID: String?, source: NotificationSource, receivedAtMs: Int64,
        signedPayload: String
    ) {
        self.uuid = uuid
        self.type = type
        self.subtype = subtype
        self.environment = environment
        self.signedDateMs = signedDateMs
        self.originalTransactionID = originalTransactionID
        self.transactionID = transactionID
        self.source = source
        self.receivedAtMs = receivedAtMs
        self.signedPayload = signedPayload
    }
}

/// What the store does with a new notification, in the notification's write transaction.
public enum NotificationPlan: Sendable {
    /// Store it with this outcome (`test`, `ignored`); nothing else changes.
    case record(NotificationOutcome)
    /// Apply it to the subscriptions of every stored receipt that knows its transaction (each
    /// decided against what is stored, through the run's reconciler and writer); `unmatched` when
    /// none does yet.
    case apply(periodKeys: [String], decide: @Sendable (ReceiptSnapshot) -> ReceiptUpdate)
}

/// What the store did with a notification.
public struct NotificationStoreResult: Sendable, Equatable {
    public var outcome: NotificationOutcome
    /// Stored before (same uuid): only its delivery count moved.
    public var duplicate: Bool
    /// The first user it was applied to (nil while unmatched).
    public var userID: String?
    /// Subscriptions it changed, in `subscription_changes`.
    public var changes: Int

    public init(outcome: NotificationOutcome, duplicate: Bool, userID: String?, changes: Int = 0) {
        self.outcome = outcome
        self.duplicate = duplicate
        self.userID = userID
        self.changes = changes
    }
}

/// The SQL both stores run for notifications (`?` placeholders).
enum NotificationSQL {
    static let existing = "SELECT outcome, user_id FROM notifications WHERE notification_uuid = ?"

    static let countDelivery = """
        UPDATE notifications SET deliveries = deliveries + 1, last_received_at = ? WHERE notification_uuid = ?
        """

    /// The receipts holding the subscription: by the subscription rows first (one receipt per
    /// user), else a receipt imported with one of its transaction ids (StoreKit 2 apps).
    static let receiptsBySubscription = """
        SELECT receipt_id, user_id FROM subscriptions
        WHERE original_transaction_id = ? AND receipt_id IS NOT NULL ORDER BY user_id
        """
    static let receiptsByTransaction = """
        SELECT MIN(id) AS receipt_id, user_id FROM receipts
        WHERE transaction_id IN (?, ?) GROUP BY user_id ORDER BY user_id
        """

    static let insert = """
        INSERT INTO notifications (notification_uuid, notification_type, subtype, environment, signed_date,
            original_transaction_id, transaction_id, user_id, receipt_id, outcome, source, received_at,
            last_received_at, deliveries, signed_payload)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?)
        """

    /// An unmatched notification that has found its receipt.
    static let link = """
        UPDATE notifications SET user_id = ?, receipt_id = ?, outcome = ?, signed_payload = NULL
        WHERE notification_uuid = ?
        """

    /// Unmatched notifications some stored receipt now knows, oldest first.
    static let linkable = """
        SELECT n.notification_uuid, n.signed_payload FROM notifications n
        WHERE n.outcome = 'unmatched' AND n.signed_payload IS NOT NULL AND (
            EXISTS (SELECT 1 FROM subscriptions s WHERE s.original_transaction_id = n.original_transaction_id)
            OR EXISTS (SELECT 1 FROM receipts r WHERE r.transaction_id = n.original_transaction_id)
            OR EXISTS (SELECT 1 FROM receipts r WHERE r.transaction_id = n.transaction_id))
        ORDER BY n.signed_date, n.notification_uuid LIMIT ?
        """

    static func insertArguments(
        _ n: StoredNotification, userID: String?, receiptID: Int64?, outcome: NotificationOutcome
    ) -> [SQLArgument] {
        [
            .text(n.uuid), .text(n.type), SQLArgument(n.subtype), SQLArgument(n.environment?.rawValue),
            .integer(n.signedDateMs), SQLArgument(n.originalTransactionID), SQLArgument(n.transactionID),
            SQLArgument(userID), SQLArgument(receiptID), .text(outcome.rawValue), .text(n.source.rawValue),
            .integer(n.receivedAtMs), .integer(n.receivedAtMs),
            outcome == .unmatched ? .text(n.signedPayload) : .null,
        ]
    }

    /// The outcome of applying to one receipt: `stale` when its subscription kept newer data.
    static func outcome(of update: ReceiptUpdate, originalTransactionID: String?) -> NotificationOutcome {
        guard let otid = originalTransactionID else { return .applied }
        return update.staleSubscriptions.contains(otid) ? .stale : .applied
    }
}

/// An unmatched notification a stored receipt now knows: to be verified again and applied.
public struct LinkableNotification: Sendable, Equatable {
    public var uuid: String
    public var signedPayload: String
}

/// What applying a notification did to the first receipt (its outcome) and to all (changes).
struct NotificationApplyResult {
    var outcome: NotificationOutcome = .applied
    var changes = 0
}
