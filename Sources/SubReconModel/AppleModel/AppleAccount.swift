/// What Apple says about one customer's subscriptions, in our words, whichever API answered:
/// verifyReceipt's `latest_receipt_info` + `pending_renewal_info`, or the App Store Server API's
/// verified signed transactions + renewal info. The reconciler, the state derivation, the due
/// policy and the writer see only this.
public struct AppleAccount: Sendable, Equatable {
    /// Where Apple found the customer.
    public var environment: ReceiptEnvironment
    /// The transactions Apple reported: at least the newest of each subscription; with the Server
    /// API's history, every billed period since the stored revision.
    public var transactions: [AppleTransaction]
    /// One entry per subscription (matched by original transaction id).
    public var renewals: [PendingRenewal]
    /// verifyReceipt's `latest_receipt`, which replaces the stored receipt; nil from the Server API.
    public var replacementReceipt: String?
    /// The status recorded in run items: verifyReceipt's `status` (0, or a legacy 21006); 0 for a
    /// verified Server API answer.
    public var appleStatus: Int
    /// Server API only: the customer's transaction-history `revision` reached (the history is the
    /// customer's, across subscriptions), stored so the next read asks only for what came since.
    public var historyRevision: String?
    /// When Apple's data was current (Unix ms): a notification's `signedDate`, or when a run asked.
    /// Stored as the subscription's `last_verified_at`; data older than what is stored for a
    /// subscription never replaces it (the reconciler reports it stale). nil: the reconciler's now.
    public var asOfMs: Int64?
    /// A notification's view: the newest transaction of one subscription, not its history. The
    /// stored newest transaction id is then left as it was, so the next Server API check still
    /// reads the history for whatever Apple billed before it (every billed period is recorded).
    public var isSingleEvent: Bool

    public init(
        environment: ReceiptEnvironment, transactions: [AppleTransaction], renewals: [PendingRenewal],
        replacementReceipt: String? = nil, appleStatus: Int = 0, historyRevision: String? = nil, asOfMs: Int64? = nil,
        isSingleEvent: Bool = false
    ) {
        self.environment = environment
        self.transactions = transactions
        self.renewals = renewals
        self.replacementReceipt = replacementReceipt
        self.appleStatus = appleStatus
        self.historyRevision = historyRevision
        self.asOfMs = asOfMs
        self.isSingleEvent = isSingleEvent
    }
}
