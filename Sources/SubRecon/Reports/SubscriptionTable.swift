import SubReconModel

/// A readable text table of one user's subscriptions, before and after a re-verification,
/// for support staff (`subrecon user`). A changed row is marked with `*` and its last column says
/// what changed: a star support cannot explain from the table is no help.
public enum SubscriptionTable {
    /// `newPeriods`: how many billed periods the re-verification added, per original transaction id.
    public static func render(
        before: [StoredSubscription], after: [StoredSubscription], newPeriods: [String: Int] = [:]
    ) -> String {
        let header = [
            "", "original_transaction_id", "product", "status", "entitled", "expires_at", "auto_renew", "grace_until",
            "changed",
        ]
        var rows: [[String]] = []
        let beforeByID = Dictionary(before.map { ($0.originalTransactionID, $0) }, uniquingKeysWith: { a, _ in a })
        let afterIDs = Set(after.map(\.originalTransactionID))
        for subscription in after {
            let old = beforeByID[subscription.originalTransactionID]
            let changes = changes(
                from: old, to: subscription, newPeriods: newPeriods[subscription.originalTransactionID] ?? 0)
            if let old, !changes.isEmpty { rows.append(cells(old, mark: "before")) }
            let mark = changes.isEmpty ? "" : (old == nil ? "new *" : "after *")
            rows.append(cells(subscription, mark: mark) + [changes.joined(separator: ", ")])
        }
        for old in before where !afterIDs.contains(old.originalTransactionID) {
            rows.append(cells(old, mark: "before"))
        }
        if rows.isEmpty { return "(no subscriptions)\n" }
        return TextTable.render([header] + rows)
    }

    /// What changed between a subscription's stored row and its new one, in support's words
    /// (empty: nothing the contract reports, so no star). Every field `hasSameReportedState`
    /// compares is named here, including those the table has no column for (a token set, billing
    /// retry, a cancellation), and each billed period the answer added.
    public static func changes(from old: StoredSubscription?, to new: StoredSubscription, newPeriods: Int) -> [String] {
        var changes: [String] = []
        if let old {
            let (a, b) = (old.state, new.state)
            if a.productID != b.productID { changes.append("product") }
            if a.status != b.status { changes.append("status") }
            if a.expiresDateMs != b.expiresDateMs { changes.append("expires") }
            if a.autoRenewStatus != b.autoRenewStatus { changes.append("auto_renew") }
            if a.gracePeriodExpiresDateMs != b.gracePeriodExpiresDateMs { changes.append("grace_until") }
            if a.autoRenewProductID != b.autoRenewProductID {
                changes.append("renews to \(b.autoRenewProductID ?? "(none)")")
            }
            if a.expirationIntent != b.expirationIntent {
                changes.append("expiration_intent \(b.expirationIntent.map(String.init) ?? "cleared")")
            }
            if a.isInBillingRetry != b.isInBillingRetry {
                changes.append(b.isInBillingRetry == true ? "billing retry started" : "billing retry ended")
            }
            if a.cancellationDateMs != b.cancellationDateMs {
                changes.append(
                    b.cancellationDateMs.map { "cancelled \(ISO8601.string(fromMilliseconds: $0))" } ?? "cancellation lifted")
            }
            if old.environment != new.environment { changes.append("environment \(new.environment.rawValue)") }
            if a.appAccountToken != b.appAccountToken {
                changes.append(
                    a.appAccountToken == nil ? "token set" : b.appAccountToken == nil ? "token removed" : "token changed")
            }
        } else {
            changes.append("new")
        }
        if newPeriods > 0 { changes.append("+\(newPeriods) billed period\(newPeriods == 1 ? "" : "s")") }
        return changes
    }

    private static func cells(_ s: StoredSubscription, mark: String) -> [String] {
        [
            mark, s.originalTransactionID, s.productID, s.status.rawValue, s.status.isEntitled ? "yes" : "no",
            ISO8601.string(fromMilliseconds: s.expiresDateMs), s.autoRenewStatus.map { $0 ? "on" : "off" } ?? "?",
            s.gracePeriodExpiresDateMs.map(ISO8601.string(fromMilliseconds:)) ?? "",
        ]
    }
}
