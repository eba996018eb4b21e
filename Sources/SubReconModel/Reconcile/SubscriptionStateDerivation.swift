/// The pure heart of subrecon: Apple's `latest_receipt_info` + `pending_renewal_info` + now →
/// one state per subscription (the statuses: docs/reports.md, `subscriptions`; the steps:
/// docs/run.md), from Apple's 'responseBody.Latest_receipt_info' and
/// 'responseBody.Pending_renewal_info' pages.
public enum SubscriptionStateDerivation {
    /// The result for one receipt.
    public struct Result: Sendable, Equatable {
        /// One state per original_transaction_id, ordered by original_transaction_id.
        public var states: [SubscriptionState]
        /// Subscriptions whose every entry was cancelled by an upgrade: the replacement transaction
        /// is missing from the answer, so nothing can be said and the stored state must stay.
        public var undetermined: [String]
        /// The auto-renewable entries of the products we reconcile: the renewal periods Apple reported.
        public var periods: [AppleTransaction]
    }

    /// - Parameters:
    ///   - products: product IDs to reconcile; empty means every auto-renewable product (every
    ///     entry that has an expiry). Entries without an expiry are never subscriptions.
    public static func derive(
        transactions: [AppleTransaction], pendingRenewals: [PendingRenewal], nowMs: Int64,
        products: Set<String> = []
    ) -> Result {
        let periods = transactions.filter { entry in
            guard entry.expiresDateMs != nil, entry.originalTransactionID != nil else { return false }
            return products.isEmpty || entry.productID.map(products.contains) == true
        }
        let groups = Dictionary(grouping: periods) { $0.originalTransactionID! }
        var states: [SubscriptionState] = []
        var undetermined: [String] = []
        for otid in groups.keys.sorted() {
            let sorted = groups[otid]!.sorted(by: isNewer)
            let renewal = pendingRenewal(for: otid, entries: sorted, in: pendingRenewals)
            if let state = state(of: otid, sorted: sorted, renewal: renewal, nowMs: nowMs) {
                states.append(state)
            } else {
                undetermined.append(otid)
            }
        }
        return Result(states: states, undetermined: undetermined, periods: periods)
    }

    /// Newest first: expires_date_ms, then purchase_date_ms, then transaction_id, all as integers
    /// (array order is no contract, and strings of 12 and 13 digits must not be compared as text).
    package static func isNewer(_ a: AppleTransaction, _ b: AppleTransaction) -> Bool {
        if a.expiresDateMs != b.expiresDateMs { return (a.expiresDateMs ?? .min) > (b.expiresDateMs ?? .min) }
        if a.purchaseDateMs != b.purchaseDateMs { return (a.purchaseDateMs ?? .min) > (b.purchaseDateMs ?? .min) }
        let ta = a.transactionID.flatMap { UInt64($0) } ?? 0
        let tb = b.transactionID.flatMap { UInt64($0) } ?? 0
        return ta > tb
    }

    /// The renewal entry with the same original_transaction_id. Bodies from 2017 carry none; there
    /// an entry without an id that names one of this subscription's products stands in, so a
    /// billing retry or an expiration intent is not silently missed (fixture 09).
    package static func pendingRenewal(
        for otid: String, entries: [AppleTransaction], in renewals: [PendingRenewal]
    ) -> PendingRenewal? {
        if let exact = renewals.first(where: { $0.originalTransactionID == otid }) { return exact }
        let products = Set(entries.compactMap(\.productID))
        return renewals.first { renewal in
            renewal.originalTransactionID == nil
                && (renewal.productID.map(products.contains) == true
                    || renewal.autoRenewProductID.map(products.contains) == true)
        }
    }

    package static func state(
        of otid: String, sorted: [AppleTransaction], renewal: PendingRenewal?, nowMs: Int64
    ) -> SubscriptionState? {
        let top = sorted[0]
        // An upgrade cancels the superseded transaction too; only a cancellation without
        // `is_upgraded` is a refund or a Family Sharing revocation.
        if top.cancellationDateMs != nil, !top.isUpgraded {
            return SubscriptionState(
                originalTransactionID: otid, productID: top.productID ?? "", status: .refunded,
                expiresDateMs: top.expiresDateMs!, autoRenewStatus: renewal?.autoRenewStatus,
                autoRenewProductID: renewal?.autoRenewProductID, expirationIntent: renewal?.expirationIntent,
                isInBillingRetry: renewal?.isInBillingRetryPeriod, cancellationDateMs: top.cancellationDateMs,
                ownershipType: top.ownershipType, latestTransactionID: top.transactionID,
                appAccountToken: top.appAccountToken ?? renewal?.appAccountToken, appTransactionID: top.appTransactionID)
        }
        guard let best = sorted.first(where: { $0.cancellationDateMs == nil }) else { return nil }
        let expires = best.expiresDateMs!
        let status: SubscriptionStatus
        if expires > nowMs {
            status = .active
        } else if renewal?.isInBillingRetryPeriod == true {
            let graceEnd = renewal?.gracePeriodExpiresDateMs
            status = graceEnd.map { $0 > nowMs } == true ? .gracePeriod : .billingRetry
        } else {
            status = .expired
        }
        return SubscriptionState(
            originalTransactionID: otid, productID: best.productID ?? "", status: status, expiresDateMs: expires,
            autoRenewStatus: renewal?.autoRenewStatus,
            autoRenewProductID: renewal?.autoRenewProductID ?? renewal.flatMap { _ in best.productID },
            // Apple may leave a stale intent on a renewed subscription; it only means something once expired.
            expirationIntent: status == .active ? nil : renewal?.expirationIntent,
            gracePeriodExpiresDateMs: renewal?.gracePeriodExpiresDateMs,
            isInBillingRetry: renewal?.isInBillingRetryPeriod,
            ownershipType: best.ownershipType, latestTransactionID: sorted[0].transactionID,
            // A token set after the purchase shows on the renewal info before a later transaction carries it.
            appAccountToken: best.appAccountToken ?? renewal?.appAccountToken, appTransactionID: best.appTransactionID)
    }
}
