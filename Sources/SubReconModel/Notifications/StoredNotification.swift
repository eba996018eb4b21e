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
    /// The app it is for (its verified payload's bundle ID).
    public var bundleID: String?
    /// Its transaction's `appAccountToken` (lower-case; nil when not a UUID). The store keeps it
    /// only while the notification is unmatched: a token a user registers later links it.
    public var appAccountToken: String?

    public init(
        uuid: String, type: String, subtype: String?, environment: ReceiptEnvironment?, signedDateMs: Int64,
        originalTransactionID: String?, transactionID: String?, source: NotificationSource, receivedAtMs: Int64,
        signedPayload: String, bundleID: String? = nil, appAccountToken: String? = nil
    ) {
        self.bundleID = bundleID
        self.appAccountToken = appAccountToken
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

/// An unmatched notification a stored receipt now knows: to be verified again and applied.
public struct LinkableNotification: Sendable, Equatable {
    public var uuid: String
    public var signedPayload: String

    package init(uuid: String, signedPayload: String) {
        self.uuid = uuid
        self.signedPayload = signedPayload
    }
}
