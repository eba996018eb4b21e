import Foundation
import SubRecon
import SubReconAppStore
import SubReconModel
import SubReconStore

/// Gathers a run's updates (they arrive on the run's task) for printing afterwards.
final class UpdateCollector: RunObserver, @unchecked Sendable {
    private let lock = NSLock()
    private var updates: [ReceiptUpdate] = []

    func receiptFinished(_ update: ReceiptUpdate) {
        lock.withLock { updates.append(update) }
    }

    var items: [RunItem] { lock.withLock { updates.map(\.runItem) } }

    /// In a dry run nothing is written: the "after" table is the stored rows with the would-be writes laid over.
    func projected(before: [StoredSubscription]) -> [StoredSubscription] {
        var byID = Dictionary(before.map { ($0.originalTransactionID, $0) }, uniquingKeysWith: { a, _ in a })
        for update in lock.withLock({ updates }) {
            for row in update.subscriptions { byID[row.originalTransactionID] = row }
        }
        return byID.values.sorted { $0.originalTransactionID < $1.originalTransactionID }
    }
}

/// Prints one line per receipt of a dry run, as it arrives.
struct DryRunPrinter: RunObserver {
    func receiptFinished(_ update: ReceiptUpdate) { Console.out(DryRunLine.describe(update)) }
}

/// One line per receipt in a dry run.
enum DryRunLine {
    static func describe(_ update: ReceiptUpdate) -> String {
        let item = update.runItem
        var line = "would \(item.outcome == .updated ? "update" : "leave") receipt \(item.receiptID) (user \(item.userID)): \(item.outcome.rawValue)"
        if item.oldStatus != item.newStatus || item.oldExpiresDateMs != item.newExpiresDateMs {
            line += ", \(item.oldStatus?.rawValue ?? "none") → \(item.newStatus?.rawValue ?? "none")"
            if let expires = item.newExpiresDateMs { line += " until \(ISO8601.string(fromMilliseconds: expires))" }
        }
        if !update.newRenewals.isEmpty { line += ", \(update.newRenewals.count) new renewal record(s)" }
        if let message = item.message { line += " — \(message)" }
        return line + "\n"
    }
}
