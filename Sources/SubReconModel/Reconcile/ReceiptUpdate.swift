/// Everything one receipt's outcome changes, computed purely and written in one transaction.
public struct ReceiptUpdate: Sendable, Equatable {
    public var receiptID: Int64
    public var userID: String
    /// Full rows to insert or replace.
    public var subscriptions: [StoredSubscription]
    /// Periods not stored before.
    public var newRenewals: [RenewalRecord]
    /// Stored periods that gained a cancellation date (a refund).
    public var renewalCancellations: [RenewalCancellation]
    /// nil: leave the receipt row as it is (the answer was discarded).
    public var receipt: ReceiptChange?
    public var runItem: RunItem
    /// Every subscription this update changes, old and new values side by side; recorded in
    /// `subscription_changes` with the run (empty when nothing a report shows moved).
    public var subscriptionChanges: [SubscriptionChange] = []
    /// Subscriptions whose stored data is newer than the answer (by `AppleAccount.asOfMs`): left
    /// as they were. A notification about one of them is `stale`.
    public var staleSubscriptions: [String] = []
    /// Stored periods whose ledger signed data revised (money filled in, a refund, a reversal):
    /// the whole record as it should now be; written unless newer signed data is stored.
    public var renewalRevisions: [RenewalRecord] = []
}

/// A refund's cancellation date filled into an existing renewal record.
public struct RenewalCancellation: Sendable, Equatable {
    public var periodKey: String
    public var cancellationDateMs: Int64
    /// The refund that follows from the stored price (nil: unknown).
    public var refundMilliunits: Int64? = nil
}

/// The receipt row's bookkeeping after an outcome.
public struct ReceiptChange: Sendable, Equatable {
    /// Apple's `latest_receipt`, when it differs from what we hold.
    public var newReceiptData: String?
    public var environment: ReceiptEnvironment?
    public var nextDueAt: Int64
    public var verificationState: String
    public var attemptedAt: Int64
    public var appleStatus: Int?
    /// Set when Apple gave a definitive answer.
    public var verifiedAt: Int64?
    public var consecutiveFailures: Int
    public var message: String?
    /// Server API: the customer's transaction-history `revision` reached (nil: leave it).
    public var historyRevision: String? = nil
}

/// A row of `run_items`.
public struct RunItem: Sendable, Equatable {
    public var receiptID: Int64
    public var userID: String
    public var outcome: RunItemOutcome
    public var appleStatus: Int?
    public var environment: ReceiptEnvironment?
    public var oldStatus: SubscriptionStatus?
    public var newStatus: SubscriptionStatus?
    public var oldExpiresDateMs: Int64?
    public var newExpiresDateMs: Int64?
    public var message: String?
    public var recordedAt: Int64
}
