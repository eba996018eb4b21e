import SubReconModel
import SubReconStore

/// How the workers of one database share its runs: the store's nature, resolved once where a run
/// is wired (`LiveWiring`) and applied to its options, so the run loop holds no branch on the
/// kind of store.
public enum RunCoordination: Sendable, Equatable {
    /// One run at a time, behind the database's run lock (SQLite).
    case runLock
    /// Several workers split the due receipts by claiming them; a claim lasts `timeoutMs` unless
    /// renewed (PostgreSQL).
    case claims(timeoutMs: Int64)

    /// How runs on `store` are shared.
    public init(of store: any SubscriptionStore) {
        self = store.splitsDueReceipts ? .claims(timeoutMs: store.claimTimeoutMs) : .runLock
    }
}

extension ReconciliationRun.Options {
    /// These options for a run shared as `coordination` says. With claims: no run lock, and the
    /// heartbeat that renews the claims beats every third of their timeout; claims in small
    /// batches, so workers share the run evenly and a killed worker strands few; a dry run reads
    /// the due receipts without claiming them (it writes nothing at all).
    public func coordinated(by coordination: RunCoordination) -> Self {
        var options = self
        options.coordination = coordination
        guard case .claims(let timeoutMs) = coordination else { return options }
        options.takesRunLock = false
        options.leaseMs = timeoutMs
        options.pageSize = min(options.pageSize, max(32, 2 * options.concurrency))
        if options.dryRun, options.selection == .due { options.selection = .duePreview }
        return options
    }

    /// Whether this run's `.due` pages are claims for this worker, which it gives back when it
    /// ends (the only selection that claims).
    var claimsDueReceipts: Bool {
        if case .claims = coordination { selection == .due } else { false }
    }
}
