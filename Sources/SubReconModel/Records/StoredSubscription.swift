/// A row of `subscriptions`: one per (user_id, original_transaction_id). What Apple said about the
/// subscription (`state`, whose fields read as the row's own: `subscription.status`) plus the
/// bookkeeping the store keeps around it.
@dynamicMemberLookup
public struct StoredSubscription: Sendable, Equatable {
    public var userID: String
    public var receiptID: Int64?
    /// What Apple's last applied answer said about the subscription.
    public var state: SubscriptionState
    public var environment: ReceiptEnvironment
    public var lastVerifiedAt: Int64
    public var firstSeenAt: Int64
    public var updatedAt: Int64
    /// Why the last answer was not applied (kept state), if it wasn't.
    public var flag: String?

    public subscript<Value>(dynamicMember keyPath: WritableKeyPath<SubscriptionState, Value>) -> Value {
        get { state[keyPath: keyPath] }
        set { state[keyPath: keyPath] = newValue }
    }

    public init(
        _ state: SubscriptionState, userID: String, receiptID: Int64? = nil, environment: ReceiptEnvironment,
        lastVerifiedAt: Int64, firstSeenAt: Int64, updatedAt: Int64, flag: String? = nil
    ) {
        self.state = state
        self.userID = userID
        self.receiptID = receiptID
        self.environment = environment
        self.lastVerifiedAt = lastVerifiedAt
        self.firstSeenAt = firstSeenAt
        self.updatedAt = updatedAt
        self.flag = flag
    }

    /// One row's columns as they are stored (the stores' row decoders and tests).
    package init(
        userID: String, originalTransactionID: String, receiptID: Int64? = nil, productID: String,
        status: SubscriptionStatus, expiresDateMs: Int64, autoRenewStatus: Bool? = nil, autoRenewProductID: String? = nil,
        expirationIntent: Int? = nil, gracePeriodExpiresDateMs: Int64? = nil, isInBillingRetry: Bool? = nil,
        cancellationDateMs: Int64? = nil, ownershipType: String? = nil, environment: ReceiptEnvironment, lastVerifiedAt: Int64,
        firstSeenAt: Int64, updatedAt: Int64, flag: String? = nil, latestTransactionID: String? = nil,
        appAccountToken: String? = nil, appTransactionID: String? = nil
    ) {
        self.init(
            SubscriptionState(
                originalTransactionID: originalTransactionID, productID: productID, status: status,
                expiresDateMs: expiresDateMs, autoRenewStatus: autoRenewStatus, autoRenewProductID: autoRenewProductID,
                expirationIntent: expirationIntent, gracePeriodExpiresDateMs: gracePeriodExpiresDateMs,
                isInBillingRetry: isInBillingRetry, cancellationDateMs: cancellationDateMs, ownershipType: ownershipType,
                latestTransactionID: latestTransactionID, appAccountToken: appAccountToken,
                appTransactionID: appTransactionID),
            userID: userID, receiptID: receiptID, environment: environment, lastVerifiedAt: lastVerifiedAt,
            firstSeenAt: firstSeenAt, updatedAt: updatedAt, flag: flag)
    }

    /// The fields the contract reports about a subscription; a change in any of them is an update.
    public func hasSameReportedState(as other: StoredSubscription) -> Bool {
        let (a, b) = (state, other.state)
        return a.productID == b.productID && a.status == b.status && a.expiresDateMs == b.expiresDateMs
            && a.autoRenewStatus == b.autoRenewStatus && a.autoRenewProductID == b.autoRenewProductID
            && a.expirationIntent == b.expirationIntent && a.gracePeriodExpiresDateMs == b.gracePeriodExpiresDateMs
            && a.isInBillingRetry == b.isInBillingRetry && a.cancellationDateMs == b.cancellationDateMs
            && environment == other.environment && a.appAccountToken == b.appAccountToken
    }
}

extension StoredSubscription {
    /// Whether every column but `last_verified_at` holds exactly what `stored` holds, texts byte
    /// for byte (Swift's `==` on strings is canonical equivalence, which would let a differently
    /// normalised text count as unchanged and never be written).
    package func differsOnlyInLastVerifiedAt(from stored: StoredSubscription) -> Bool {
        var aligned = self
        aligned.lastVerifiedAt = stored.lastVerifiedAt
        guard aligned == stored else { return false }
        func same(_ a: String?, _ b: String?) -> Bool {
            switch (a, b) {
            case (nil, nil): true
            case (let a?, let b?): a.utf8.elementsEqual(b.utf8)
            default: false
            }
        }
        let (a, b) = (state, stored.state)
        return same(userID, stored.userID) && same(a.originalTransactionID, b.originalTransactionID)
            && same(a.productID, b.productID) && same(a.autoRenewProductID, b.autoRenewProductID)
            && same(a.ownershipType, b.ownershipType) && same(flag, stored.flag)
            && same(a.latestTransactionID, b.latestTransactionID) && same(a.appAccountToken, b.appAccountToken)
            && same(a.appTransactionID, b.appTransactionID)
    }
}
