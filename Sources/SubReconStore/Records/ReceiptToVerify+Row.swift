import GRDB
import SubReconModel

extension ReceiptToVerify: FetchableRecord {
    /// The columns `init(row:)` reads: the receipt, plus its subscriptions' original and newest
    /// transaction ids as `otid newest,otid newest` (one indexed lookup per receipt).
    package static let verifyReceiptColumns = "id, user_id, receipt_data, environment, next_due_at"

    package static let selectedColumns = """
        id, user_id, receipt_data, environment, next_due_at, transaction_id, history_revision,
        (SELECT group_concat(original_transaction_id || ' ' || COALESCE(latest_transaction_id, ''), ',')
           FROM subscriptions WHERE receipt_id = receipts.id) AS known_subscriptions
        """

    public init(row: Row) throws {
        var context = ServerAPIContext()
        if row.hasColumn("transaction_id") { context.importedTransactionID = row["transaction_id"] }
        if row.hasColumn("history_revision") { context.historyRevision = row["history_revision"] }
        if row.hasColumn("known_subscriptions"), let known = row["known_subscriptions"] as String? {
            context.knownSubscriptions = Self.knownSubscriptions(known)
        }
        self.init(
            id: row["id"], userID: row["user_id"],
            // NULL: a transaction id was imported without receipt data (server-api mode only).
            receiptData: (row["receipt_data"] as String?) ?? "",
            environment: (row["environment"] as String?).flatMap(ReceiptEnvironment.init(rawValue:)),
            nextDueAt: row.hasColumn("next_due_at") ? row["next_due_at"] : 0, serverAPI: context)
    }

    /// `otid newest,otid newest` → original transaction id → newest transaction id (nil: none yet).
    package static func knownSubscriptions(_ text: String) -> [String: String?] {
        var known: [String: String?] = [:]
        for pair in text.split(separator: ",") {
            let parts = pair.split(separator: " ", maxSplits: 1)
            guard let otid = parts.first else { continue }
            let newest: String? = parts.count > 1 ? String(parts[1]) : nil
            known.updateValue(newest, forKey: String(otid))
        }
        return known
    }
}
