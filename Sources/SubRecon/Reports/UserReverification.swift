import Foundation
import SubReconModel

/// What `subrecon user` shows support: Apple's answer per receipt and the user's subscriptions
/// before and after, as text or JSON.
public struct UserReverification: Sendable {
    public var userID: String
    public var dryRun: Bool
    public var items: [RunItem]
    public var before: [StoredSubscription]
    public var after: [StoredSubscription]
    /// Billed periods the answers added, per original transaction id.
    public var newPeriods: [String: Int]

    public init(
        userID: String, dryRun: Bool, items: [RunItem], before: [StoredSubscription], after: [StoredSubscription],
        newPeriods: [String: Int] = [:]
    ) {
        self.newPeriods = newPeriods
        self.userID = userID
        self.dryRun = dryRun
        self.items = items
        self.before = before
        self.after = after
    }

    public var text: String {
        var out = "user \(userID)\(dryRun ? " (dry run: nothing written)" : "")\n"
        for item in items {
            out += "  receipt \(item.receiptID): \(item.outcome.rawValue), Apple status \(item.appleStatus.map(String.init) ?? "none")"
                + (item.message.map { " — \($0)" } ?? "") + "\n"
        }
        return out + "\n" + SubscriptionTable.render(before: before, after: after, newPeriods: newPeriods)
    }

    /// What changed per subscription (new ones included), as the table's `changed` column says it;
    /// subscriptions that did not change are absent.
    public var changes: [String: [String]] {
        let old = Dictionary(before.map { ($0.originalTransactionID, $0) }, uniquingKeysWith: { a, _ in a })
        return after.reduce(into: [:]) { result, row in
            let changes = SubscriptionTable.changes(
                from: old[row.originalTransactionID], to: row, newPeriods: newPeriods[row.originalTransactionID] ?? 0)
            if !changes.isEmpty { result[row.originalTransactionID] = changes }
        }
    }

    /// Subscriptions that changed (new ones included), in the table's order.
    public var changedOriginalTransactionIDs: [String] {
        let changes = changes
        return after.map(\.originalTransactionID).filter { changes[$0] != nil }
    }

    public static func json(_ reports: [UserReverification]) throws -> String {
        func subscription(_ s: StoredSubscription) -> [String: Any] {
            var object: [String: Any] = [
                "original_transaction_id": s.originalTransactionID, "product_id": s.productID, "status": s.status.rawValue,
                "entitled": s.status.isEntitled, "expires_at": ISO8601.string(fromMilliseconds: s.expiresDateMs),
                "expires_date_ms": s.expiresDateMs, "environment": s.environment.rawValue,
            ]
            object["auto_renew_status"] = s.autoRenewStatus.map { $0 ? 1 : 0 }
            object["auto_renew_product_id"] = s.autoRenewProductID
            object["grace_period_expires_at"] = s.gracePeriodExpiresDateMs.map(ISO8601.string(fromMilliseconds:))
            object["is_in_billing_retry"] = s.isInBillingRetry.map { $0 ? 1 : 0 }
            object["flag"] = s.flag
            return object
        }
        let payload: [[String: Any]] = reports.map { report in
            [
                "user_id": report.userID, "dry_run": report.dryRun,
                "receipts": report.items.map { item -> [String: Any] in
                    var object: [String: Any] = ["receipt_id": item.receiptID, "outcome": item.outcome.rawValue]
                    object["apple_status"] = item.appleStatus
                    object["message"] = item.message
                    return object
                },
                "before": report.before.map(subscription), "after": report.after.map(subscription),
                "changed": report.changedOriginalTransactionIDs, "changes": report.changes,
            ]
        }
        let data = try JSONSerialization.data(
            withJSONObject: payload.count == 1 ? payload[0] as Any : payload as Any, options: [.sortedKeys])
        return String(decoding: data, as: UTF8.self)
    }
}
