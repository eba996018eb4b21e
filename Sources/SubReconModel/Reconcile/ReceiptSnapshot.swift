/// What the store holds that one receipt's answer is reconciled against, read inside the same
/// transaction that writes the result.
public struct ReceiptSnapshot: Sendable, Equatable {
    public var receipt: ReceiptToVerify
    /// The user's stored subscriptions, by original_transaction_id.
    public var subscriptions: [String: StoredSubscription]
    /// The user's stored renewal records for the periods in the answer, by period key.
    public var renewals: [String: RenewalRecord]
    public var consecutiveFailures: Int

    public init(
        receipt: ReceiptToVerify, subscriptions: [String: StoredSubscription] = [:],
        renewals: [String: RenewalRecord] = [:], consecutiveFailures: Int = 0
    ) {
        self.receipt = receipt
        self.subscriptions = subscriptions
        self.renewals = renewals
        self.consecutiveFailures = consecutiveFailures
    }

    /// Subscriptions this receipt produced before.
    public var subscriptionsOfThisReceipt: [StoredSubscription] {
        subscriptions.values.filter { $0.receiptID == receipt.id }
    }
}
