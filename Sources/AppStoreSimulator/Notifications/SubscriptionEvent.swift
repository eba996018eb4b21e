/// Something that happened to one subscription at one time and that Apple announces with a
/// notification. Derived from the same `SubscriptionTimeline` the Server API answers from, so a
/// notification's nested data and the status endpoint at that time agree.
struct SubscriptionEvent: Sendable, Hashable {
    var timeMs: Int64
    var type: SimulatedNotificationType
    var subtype: SimulatedNotificationSubtype?
    /// Position of the subscription in `SimulatedSubscriber.subscriptions`.
    var slot: Int

    /// The events of `subscription` with a time in (`fromMs`, `toMs`], oldest first (events at
    /// the same time in the order Apple would send them).
    ///
    /// The timeline is replayed at every time its state can change (each materialised
    /// transaction's purchase and expiry, the grace and retry ends after each expiry, and every
    /// scripted time), and each state is compared with the one before: a new transaction is a
    /// renewal (a billing recovery when it ends a retry, an upgrade when it replaces an upgraded
    /// one), a refund is `REFUND` (`REVOKE` for a family member), its reversal `REFUND_REVERSED`,
    /// and status changes are failures, grace ends and expiries. Renewals older than the newest
    /// `SubscriptionTimeline.historyLimit` transactions are not materialised and so not announced.
    static func events(
        of subscription: SimulatedSubscription, slot: Int, ownership: SimulatedOwnership, afterMs fromMs: Int64,
        throughMs toMs: Int64
    ) -> [SubscriptionEvent] {
        guard toMs > fromMs, let final = SubscriptionTimeline(subscription: subscription, slot: slot, nowMs: toMs) else {
            return []
        }
        var times: Set<Int64> = [subscription.firstPurchaseMs]
        let graceMs = subscription.graceDays.map { Int64($0) * SimulatedProducts.dayMs }
        for transaction in final.trimmedHistory() {
            times.insert(transaction.purchaseMs)
            times.insert(transaction.expiresMs)
            if let cancellationMs = transaction.cancellationMs { times.insert(cancellationMs) }
            if let graceMs { times.insert(transaction.expiresMs + graceMs) }
            times.insert(transaction.expiresMs + SubscriptionTimeline.billingRetryMs)
        }
        for scripted in [
            subscription.cancelAtMs, subscription.refundAtMs, subscription.refundReversedAtMs, subscription.upgradeAtMs,
            subscription.downgradeAtMs, subscription.recoverAtMs,
        ] {
            if let scripted { times.insert(scripted) }
        }

        var events: [SubscriptionEvent] = []
        var previous = Snapshot(subscription: subscription, slot: slot, atMs: fromMs)
        for time in times.filter({ $0 > fromMs && $0 <= toMs }).sorted() {
            guard let current = Snapshot(subscription: subscription, slot: slot, atMs: time) else { continue }
            for (type, subtype) in changes(from: previous, to: current, atMs: time, script: subscription, ownership: ownership) {
                events.append(SubscriptionEvent(timeMs: time, type: type, subtype: subtype, slot: slot))
            }
            previous = current
        }
        return events
    }

    /// What a notification needs to know of the subscription at one time.
    private struct Snapshot {
        var timeline: SubscriptionTimeline
        var status: Int

        var refunded: Bool {
            let newest = timeline.newestTransaction
            return newest.cancellationMs != nil && !newest.isUpgraded
        }

        init?(subscription: SimulatedSubscription, slot: Int, atMs: Int64) {
            guard let timeline = SubscriptionTimeline(subscription: subscription, slot: slot, nowMs: atMs) else { return nil }
            self.timeline = timeline
            status = ServerAPIBodyRenderer.status(of: timeline, nowMs: atMs)
        }
    }

    private static func changes(
        from previous: Snapshot?, to current: Snapshot, atMs time: Int64, script: SimulatedSubscription,
        ownership: SimulatedOwnership
    ) -> [(SimulatedNotificationType, SimulatedNotificationSubtype?)] {
        guard let previous else { return [(.subscribed, .initialBuy)] }
        var changes: [(SimulatedNotificationType, SimulatedNotificationSubtype?)] = []
        let before = previous.timeline
        let now = current.timeline

        if now.transactionCount > before.transactionCount {
            var history = Array(now.trimmedHistory())
            history.removeAll { $0.index < before.transactionCount }
            for (position, transaction) in history.enumerated() {
                let replaced = now.trimmedHistory().last { $0.index == transaction.index - 1 }
                if let replaced, replaced.isUpgraded, replaced.cancellationMs == transaction.purchaseMs {
                    changes.append((.didChangeRenewalPref, .upgrade))
                } else if position == 0, previous.status == 3 || previous.status == 4 {
                    changes.append((.didRenew, .billingRecovery))
                } else {
                    changes.append((.didRenew, nil))
                }
            }
            return changes
        }
        if current.refunded, !previous.refunded {
            // A family member learns of the purchaser's refund as a loss of access.
            return [ownership == .familyShared ? (.revoke, nil) : (.refund, nil)]
        }
        if previous.refunded, !current.refunded {
            // The same transaction lost its revocation: Apple reversed the refund.
            return [(.refundReversed, nil)]
        }
        if time == script.cancelAtMs, before.renewal.autoRenewOn, !now.renewal.autoRenewOn {
            changes.append((.didChangeRenewalStatus, .autoRenewDisabled))
        }
        if now.renewal.autoRenewOn, now.renewal.autoRenewProductID != before.renewal.autoRenewProductID {
            changes.append((.didChangeRenewalPref, .downgrade))
        }
        switch (previous.status, current.status) {
        case (1, 4):
            changes.append((.didFailToRenew, .gracePeriod))
        case (1, 3):
            changes.append((.didFailToRenew, nil))
        case (4, 3):
            changes.append((.gracePeriodExpired, nil))
        case (let old, 2) where old != 2:
            let subtype: SimulatedNotificationSubtype? = switch now.renewal.expirationIntent {
            case "1": .voluntary
            case "2": .billingRetry
            default: nil
            }
            changes.append((.expired, subtype))
        default:
            break
        }
        return changes
    }
}
