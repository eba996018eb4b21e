import SubReconModel

/// `run --refill-ledger`: every receipt reads its whole Server API history again.
public protocol LedgerRefillStore: Sendable {
    /// Marks every receipt to read its whole Server API history again and be due now, unless a
    /// refill is already under way (then nothing is marked: it resumes).
    func startLedgerRefill(nowMs: Int64) async throws(StoreError) -> LedgerRefillStart
    /// Records that the refill under way has reached every receipt.
    func finishLedgerRefill(nowMs: Int64) async throws(StoreError)
}
