/// A stored receipt as the pipeline needs it: what to send to Apple, and where first.
public struct ReceiptToVerify: Sendable, Equatable {
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
}
