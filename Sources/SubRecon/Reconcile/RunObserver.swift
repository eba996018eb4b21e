import SubReconModel

/// Watches a run as it goes (progress display, dry-run printing, collecting updates for `user`).
/// Called from the run's own task, one event at a time.
public protocol RunObserver: Sendable {
    func runStarted(receiptsTotal: Int, runID: Int64?)
    func receiptFinished(_ update: ReceiptUpdate)
    func runFinished(_ summary: RunSummary)
}

extension RunObserver {
    public func runStarted(receiptsTotal: Int, runID: Int64?) {}
    public func receiptFinished(_ update: ReceiptUpdate) {}
    public func runFinished(_ summary: RunSummary) {}
}
