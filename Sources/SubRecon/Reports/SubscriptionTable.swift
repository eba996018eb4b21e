import SubReconModel
import SubReconAppStore
import SubReconStore

/// A readable text table of one user's subscriptions, before and after a re-verification,
/// for support staff (`subrecon user`). Changed rows are marked with `*`.
public enum SubscriptionTable {
    public static func render(before: [StoredSubscription], after: [StoredSubscription]) -> String {
        let header = ["", "original_transaction_id", "product", "status", "entitled", "expires_at", "auto_renew", "grace_until"]
        var rows: [[String]] = []
        let beforeByID = Dictionary(before.map { ($0.originalTransactionID, $0) }, uniquingKeysWith: { a, _ in a })
        let afterIDs = Set(after.map(\.originalTransactionID))
        for subscription in after {
            let old = beforeByID[subscription.originalTransactionID]
            let changed = old.map { !$0.hasSameReportedState(as: subscription) } ?? true
            if let old, changed { rows.append(cells(old, mark: "before")) }
            rows.append(cells(subscription, mark: changed ? (old == nil ? "new *" : "after *") : ""))
        }
        for old in before where !afterIDs.contains(old.originalTransactionID) {
            rows.append(cells(old, mark: "before"))
        }
        if rows.isEmpty { return "(no subscriptions)\n" }
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        return all.map { row in
            row.enumerated().map { index, cell in cell.padding(toLength: widths[index], withPad: " ", startingAt: 0) }
                .joined(separator: "  ").trimmingTrailingSpaces()
        }.joined(separator: "\n") + "\n"
    }

    private static func cells(_ s: StoredSubscription, mark: String) -> [String] {
        [
            mark, s.originalTransactionID, s.productID, s.status.rawValue, s.status.isEntitled ? "yes" : "no",
            ISO8601.string(fromMilliseconds: s.expiresDateMs), s.autoRenewStatus.map { $0 ? "on" : "off" } ?? "?",
            s.gracePeriodExpiresDateMs.map(ISO8601.string(fromMilliseconds:)) ?? "",
        ]
    }
}

extension String {
    fileprivate func trimmingTrailingSpaces() -> String {
        var copy = self
        while copy.last == " " { copy.removeLast() }
        return copy
    }
}
