/// What `run --refill-ledger` found when it started.
public struct LedgerRefillStart: Sendable, Equatable {
    /// A refill killed before it finished is continued: only its remaining receipts are due.
    public var resumed: Bool
    /// The receipts the refill (new or resumed) covers.
    public var receiptsMarked: Int

    package init(resumed: Bool, receiptsMarked: Int) {
        self.resumed = resumed
        self.receiptsMarked = receiptsMarked
    }
}
