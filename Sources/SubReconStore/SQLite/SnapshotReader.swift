import GRDB
import SubReconModel

/// Reads what is stored about one receipt (its row, its user's subscriptions, the renewal records
/// an answer names), inside the batch's transaction. Prepared once per batch; columns are read by
/// position through SQLite's C API (see `DirectStatement`).
package struct SnapshotReader {
    private let receiptRow: DirectStatement
    private let subscriptionsOfUser: DirectStatement
    private let renewal: DirectStatement

    package init(_ db: Database) throws {
        receiptRow = try DirectStatement(
            db, sql: "SELECT user_id, environment, consecutive_failures, receipt_data FROM receipts WHERE id = ?")
        subscriptionsOfUser = try DirectStatement(
            db, sql: "SELECT \(StoredSubscription.selectedColumns) FROM subscriptions WHERE user_id = ?")
        renewal = try DirectStatement(
            db, sql: "SELECT \(RenewalRecord.selectedColumns) FROM renewals WHERE user_id = ? AND period_key = ?")
    }

    package func snapshot(receipt: ReceiptToVerify, periodKeys: [String]) throws -> ReceiptSnapshot {
        // Re-read the receipt inside the transaction: a concurrent `subrecon user` may have replaced its data.
        var current = receipt
        var failures = 0
        // Each statement is reset after use, also on a throw: a SELECT left mid-rows holds its read.
        defer {
            receiptRow.reset()
            subscriptionsOfUser.reset()
            renewal.reset()
        }
        try receiptRow.bind(receipt.id)
        if try receiptRow.step() {
            current.userID = receiptRow.text(0)
            current.environment = receiptRow.optionalText(1).flatMap(ReceiptEnvironment.init(rawValue:))
            failures = Int(receiptRow.int64(2))
            // Almost always unchanged: compared in place, a String is made only when it did change.
            if !receiptRow.text(3, equals: receipt.receiptData) { current.receiptData = receiptRow.text(3) }
        }

        var subscriptions: [String: StoredSubscription] = [:]
        try subscriptionsOfUser.bind(receipt.userID)
        while try subscriptionsOfUser.step() {
            let subscription = try StoredSubscription(selectedColumnsOf: subscriptionsOfUser)
            subscriptions[subscription.originalTransactionID] = subscription
        }

        var renewals: [String: RenewalRecord] = [:]
        for key in Set(periodKeys) {
            try renewal.bind(receipt.userID, key)
            if try renewal.step() { renewals[key] = RenewalRecord(selectedColumnsOf: renewal) }
        }
        return ReceiptSnapshot(
            receipt: current, subscriptions: subscriptions, renewals: renewals, consecutiveFailures: failures)
    }
}
