import Foundation
import SubReconModel

/// Gathers a run's updates (they arrive on the run's task) for `user`'s before/after tables.
final class UpdateCollector: RunObserver, @unchecked Sendable {
    private let lock = NSLock()
    private var updates: [ReceiptUpdate] = []

    func receiptFinished(_ update: ReceiptUpdate) {
        lock.withLock { updates.append(update) }
    }

    var items: [RunItem] { lock.withLock { updates.map(\.runItem) } }

    /// How many billed periods the answers added (or would add, in a dry run), per original transaction id.
    var newPeriods: [String: Int] {
        lock.withLock { updates.flatMap(\.newRenewals) }.reduce(into: [:]) { $0[$1.originalTransactionID, default: 0] += 1 }
    }

    /// In a dry run nothing is written: the "after" table is the stored rows with the would-be writes laid over.
    func projected(before: [StoredSubscription]) -> [StoredSubscription] {
        var byID = Dictionary(before.map { ($0.originalTransactionID, $0) }, uniquingKeysWith: { a, _ in a })
        for update in lock.withLock({ updates }) {
            for row in update.subscriptions { byID[row.originalTransactionID] = row }
        }
        return byID.values.sorted { $0.originalTransactionID < $1.originalTransactionID }
    }
}
