/// Replays a `SimulatedSubscription` script up to a given "now": which transactions exist, which
/// were refunded or upgraded away, and what `pending_renewal_info` says. Pure and cheap, so the
/// simulator recomputes it on every request instead of storing anything.
struct SubscriptionTimeline: Sendable {
    /// Apple returns at most the 100 most recent transactions; older ones are not materialised.
    static let historyLimit = 100
    /// Apple retries a failed renewal for up to 60 days.
    static let billingRetryMs: Int64 = 60 * SimulatedProducts.dayMs

    /// What `pending_renewal_info` reports for this subscription.
    struct RenewalState: Sendable, Hashable {
        var productID: String
        var autoRenewProductID: String
        var autoRenewOn: Bool
        /// `"1"` customer cancelled, `"2"` billing error; nil while nothing expired.
        var expirationIntent: String?
        /// nil = key absent; true/false = `"1"`/`"0"`.
        var isInBillingRetry: Bool?
        var gracePeriodExpiresMs: Int64?
    }

    /// Position of the subscription in `SimulatedSubscriber.subscriptions` (feeds the ids).
    let slot: Int
    /// The original purchase (index 0), as it stands now (it may carry a cancellation).
    private(set) var firstTransaction: SimulatedTransaction
    /// The most recent transactions (at most `historyLimit`), oldest first.
    private(set) var recentTransactions: [SimulatedTransaction] = []
    /// Transactions that exist at "now", including those older than `recentTransactions`.
    private(set) var transactionCount: Int64 = 0
    private(set) var renewal: RenewalState

    /// The newest transaction (what `exclude-old-transactions` keeps).
    var newestTransaction: SimulatedTransaction { recentTransactions.last ?? firstTransaction }

    /// Nil when the subscription was not bought yet at `nowMs`.
    init?(subscription s: SimulatedSubscription, slot: Int, nowMs now: Int64) {
        guard now >= s.firstPurchaseMs else { return nil }
        self.slot = slot
        var product = s.productID
        var period = max(1, s.periodMs)
        var start = s.firstPurchaseMs
        var end = start + Self.firstPeriodLength(of: s)
        let first = SimulatedTransaction(
            index: 0, productID: product, purchaseMs: start, expiresMs: end, isTrial: s.trialPeriodMs != nil,
            isIntroOffer: s.trialPeriodMs == nil && s.payUpFrontIntroPeriodMs != nil)
        firstTransaction = first
        renewal = RenewalState(productID: product, autoRenewProductID: product, autoRenewOn: true)
        append(first)

        var upgradePending = s.upgradeAtMs != nil && s.upgradeProductID != nil
        var refundPending = s.refundAtMs != nil
        var downgradePending = s.downgradeAtMs != nil && s.downgradeProductID != nil
        var failurePending = s.billingFailureAtMs != nil
        var autoRenewOn = true

        while true {
            // Events inside the running transaction [start, end).
            if upgradePending, let upgradeAt = s.upgradeAtMs, let newProduct = s.upgradeProductID,
               upgradeAt >= start, upgradeAt < end, upgradeAt <= now {
                upgradePending = false
                cancelNewest(atMs: upgradeAt, reason: "0", isUpgraded: true)
                product = newProduct
                period = max(1, s.upgradePeriodMs ?? period)
                start = upgradeAt
                end = upgradeAt + period
                appendNew(productID: product, purchaseMs: start, expiresMs: end)
                continue
            }
            if refundPending, let refundAt = s.refundAtMs, refundAt >= start, refundAt < end, refundAt <= now {
                refundPending = false
                if let reversedAt = s.refundReversedAtMs, reversedAt > refundAt, reversedAt <= now {
                    // Reversed since: the newest data shows no revocation, and the subscription
                    // goes on as if the refund had never been granted.
                    markNewestRefundReversed(atMs: reversedAt)
                } else {
                    cancelNewest(atMs: refundAt, reason: "1", isUpgraded: false, refundPercentage: s.refundPercentage)
                    autoRenewOn = false
                    break
                }
            }
            // The running transaction has not ended yet: that is the state at `now`.
            guard end <= now else { break }

            // A renewal was due at `end`.
            if let cancelAt = s.cancelAtMs, cancelAt <= end {
                autoRenewOn = false
                renewal.expirationIntent = "1"
                renewal.isInBillingRetry = false
                break
            }
            if failurePending, let failureAt = s.billingFailureAtMs, failureAt <= end {
                failurePending = false
                let retryEnd = end + Self.billingRetryMs
                if let recoverAt = s.recoverAtMs, recoverAt > end, recoverAt < retryEnd, recoverAt <= now,
                   s.cancelAtMs.map({ $0 > recoverAt }) ?? true {
                    // Apple collected the payment: a new period starts at the recovery.
                    if downgradePending, let downgradeAt = s.downgradeAtMs, downgradeAt <= recoverAt,
                       let newProduct = s.downgradeProductID {
                        downgradePending = false
                        product = newProduct
                        period = max(1, s.downgradePeriodMs ?? period)
                    }
                    start = recoverAt
                    end = recoverAt + period
                    appendNew(productID: product, purchaseMs: start, expiresMs: end)
                    continue
                }
                if let cancelAt = s.cancelAtMs, cancelAt <= now, cancelAt < retryEnd {
                    // Turning auto-renew off stops the retrying: plain voluntary expiry.
                    autoRenewOn = false
                    renewal.expirationIntent = "1"
                    renewal.isInBillingRetry = false
                    break
                }
                renewal.expirationIntent = "2"
                if retryEnd <= now {
                    autoRenewOn = false
                    renewal.isInBillingRetry = false
                } else {
                    renewal.isInBillingRetry = true
                    renewal.gracePeriodExpiresMs = s.graceDays.map { end + Int64($0) * SimulatedProducts.dayMs }
                }
                break
            }

            // A successful renewal at `end`.
            if downgradePending, let downgradeAt = s.downgradeAtMs, downgradeAt <= end,
               let newProduct = s.downgradeProductID {
                downgradePending = false
                product = newProduct
                period = max(1, s.downgradePeriodMs ?? period)
            }
            // Renew in bulk up to the next scripted event, so short periods over long spans stay cheap.
            var horizon = now
            let renewalsFrom = end
            // Plain calls rather than a loop over an array literal: that array was a heap
            // allocation on every pass of this loop, on every request.
            func stop(at time: Int64?, if pending: Bool = true) {
                // A time at or before `end` can no longer interrupt these renewals (e.g. an upgrade
                // scripted inside a billing-retry gap never happens).
                if pending, let time, time > renewalsFrom { horizon = min(horizon, time) }
            }
            stop(at: s.cancelAtMs)
            stop(at: s.billingFailureAtMs, if: failurePending)
            stop(at: s.downgradeAtMs, if: downgradePending)
            stop(at: s.upgradeAtMs, if: upgradePending)
            stop(at: s.refundAtMs, if: refundPending)
            // Periods [end + j*period, end + (j+1)*period) that close strictly before the horizon.
            let quietPeriods = horizon - 1 - end >= period ? (horizon - 1 - end) / period : 0
            let count = max(1, quietPeriods)
            appendRenewals(productID: product, from: end, period: period, count: count)
            start = end + (count - 1) * period
            end = start + period
        }

        let newest = newestTransaction
        renewal.productID = newest.productID
        renewal.autoRenewProductID = newest.productID
        if downgradePending, let downgradeAt = s.downgradeAtMs, downgradeAt <= now, let newProduct = s.downgradeProductID {
            renewal.autoRenewProductID = newProduct
        }
        if let cancelAt = s.cancelAtMs, cancelAt <= now { autoRenewOn = false }
        renewal.autoRenewOn = autoRenewOn
    }

    private mutating func append(_ transaction: SimulatedTransaction) {
        recentTransactions.append(transaction)
        transactionCount += 1
        // Trim in batches to keep appends amortised O(1).
        if recentTransactions.count >= 2 * Self.historyLimit {
            recentTransactions.removeFirst(recentTransactions.count - Self.historyLimit)
        }
    }

    private mutating func appendNew(productID: String, purchaseMs: Int64, expiresMs: Int64) {
        append(SimulatedTransaction(
            index: transactionCount, productID: productID, purchaseMs: purchaseMs, expiresMs: expiresMs))
    }

    /// Appends `count` back-to-back renewals, materialising only the last `historyLimit`.
    private mutating func appendRenewals(productID: String, from boundary: Int64, period: Int64, count: Int64) {
        let skipped = max(0, count - Int64(Self.historyLimit))
        if skipped > 0 {
            recentTransactions.removeAll(keepingCapacity: true)
            transactionCount += skipped
        }
        for j in skipped..<count {
            let start = boundary + j * period
            appendNew(productID: productID, purchaseMs: start, expiresMs: start + period)
        }
    }

    private mutating func cancelNewest(
        atMs cancellationMs: Int64, reason: String, isUpgraded: Bool, refundPercentage: Int64? = nil
    ) {
        updateNewest {
            $0.cancellationMs = cancellationMs
            $0.cancellationReason = reason
            $0.isUpgraded = isUpgraded
            $0.refundPercentage = refundPercentage
        }
    }

    private mutating func markNewestRefundReversed(atMs reversedMs: Int64) {
        updateNewest { $0.refundReversedMs = reversedMs }
    }

    private mutating func updateNewest(_ change: (inout SimulatedTransaction) -> Void) {
        guard var newest = recentTransactions.popLast() else { return }
        change(&newest)
        recentTransactions.append(newest)
        if newest.index == 0 { firstTransaction = newest }
    }

    /// Length of the first period: the free trial or the pay-up-front introductory offer when
    /// there is one, else a regular period (never below 1 ms).
    static func firstPeriodLength(of s: SimulatedSubscription) -> Int64 {
        max(1, s.trialPeriodMs ?? s.payUpFrontIntroPeriodMs ?? max(1, s.periodMs))
    }

    /// The newest `historyLimit` transactions, oldest first (what the full history shows).
    func trimmedHistory() -> ArraySlice<SimulatedTransaction> {
        recentTransactions.suffix(Self.historyLimit)
    }
}
