import GRDB

/// A stored receipt as the pipeline needs it: what to send to Apple, and where first.
public struct ReceiptToVerify: Sendable, Equatable, FetchableRecord {
    public var id: Int64
    public var userID: String
    /// Empty when only a transaction id was imported (server-api mode).
    public var receiptData: String
    /// Learned from Apple's last answer, or given at import; nil means production first.
    public var environment: ReceiptEnvironment?
    /// When it was due (the keyset position of due pages).
    public var nextDueAt: Int64
    /// The App Store Server API's inputs: which transaction to ask about, and what was seen before.
    public var serverAPI: ServerAPIContext

    /// What the store knows that the App Store Server API client needs (unused by verifyReceipt).
    public struct ServerAPIContext: Sendable, Equatable {
        /// The import's `transaction_id` column (a StoreKit 2 app's receipt may be just that).
        public var importedTransactionID: String?
        /// The subscriptions this receipt produced: original transaction id → the newest
        /// transaction id stored for it (nil when none is known yet).
        public var knownSubscriptions: [String: String?]
        /// The customer's transaction-history `revision` reached by the last history read.
        public var historyRevision: String?

        public init(
            importedTransactionID: String? = nil, knownSubscriptions: [String: String?] = [:],
            historyRevision: String? = nil
        ) {
            self.importedTransactionID = importedTransactionID
            self.knownSubscriptions = knownSubscriptions
            self.historyRevision = historyRevision
        }
    }

    public init(
        id: Int64, userID: String, receiptData: String, environment: ReceiptEnvironment?, nextDueAt: Int64 = 0,
        serverAPI: ServerAPIContext = ServerAPIContext()
    ) {
        self.id = id
        self.userID = userID
        self.receiptData = receiptData
        self.environment = environment
        self.nextDueAt = nextDueAt
        self.serverAPI = serverAPI
    }

    /// The columns `init(row:)` reads: the receipt, plus its subscriptions' original and newest
    /// transaction ids as `otid newest,otid newest` (one indexed lookup per receipt).
    static let verifyReceiptColumns = "id, user_id, receipt_data, environment, next_due_at"

    static let selectedColumns = """
        id, user_id, receipt_data, environment, next_due_at, transaction_id, history_revision,
        (SELECT group_concat(original_transaction_id || ' ' || COALESCE(latest_transaction_id, ''), ',')
           FROM subscriptions WHERE receipt_id = receipts.id) AS known_subscriptions
        """

    public init(row: Row) throws {
        id = row["id"]
        userID = row["user_id"]
        // NULL: a transaction id was imported without receipt data (server-api mode only).
        receiptData = (row["receipt_data"] as String?) ?? ""
        environment = (row["environment"] as String?).flatMap(ReceiptEnvironment.init(rawValue:))
        nextDueAt = row.hasColumn("next_due_at") ? row["next_due_at"] : 0
        var context = ServerAPIContext()
        if row.hasColumn("transaction_id") { context.importedTransactionID = row["transaction_id"] }
        if row.hasColumn("history_revision") { context.historyRevision = row["history_revision"] }
        if row.hasColumn("known_subscriptions"), let known = row["known_subscriptions"] as String? {
            context.knownSubscriptions = Self.knownSubscriptions(known)
        }
        serverAPI = context
    }

    /// `otid newest,otid newest` → original transaction id → newest transaction id (nil: none yet).
    static func knownSubscriptions(_ text: String) -> [String: String?] {
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
