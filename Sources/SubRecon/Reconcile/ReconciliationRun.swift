import Logging

/// The run pipeline, shared by the nightly batch and the single-user command:
/// stream the selected receipts from the store, keep at most `concurrency` verifications in
/// flight (children only talk to Apple), and write each outcome as it arrives in one transaction
/// per receipt from this one task (one writer, no shared mutable state).
public struct ReconciliationRun: Sendable {
    public struct Options: Sendable {
        public var kind: RunKind
        public var selection: ReceiptSelection
        public var limit: Int?
        public var concurrency: Int
        public var dryRun: Bool
        public var pageSize: Int

        public init(
            kind: RunKind, selection: ReceiptSelection, limit: Int? = nil, concurrency: Int = 32,
            dryRun: Bool = false, pageSize: Int = 512
        ) {
            self.kind = kind
            self.selection = selection
            self.limit = limit
            self.concurrency = max(1, concurrency)
            self.dryRun = dryRun
            self.pageSize = max(1, pageSize)
        }
    }

    let store: any SubscriptionStore
    let verifier: any ReceiptVerifier
    let reconciler: ReceiptReconciler
    let clock: @Sendable () -> Int64
    let logger: Logger

    public init(
        store: any SubscriptionStore, verifier: any ReceiptVerifier, reconciler: ReceiptReconciler,
        clock: @escaping @Sendable () -> Int64, logger: Logger
    ) {
        self.store = store
        self.verifier = verifier
        self.reconciler = reconciler
        self.clock = clock
        self.logger = logger
    }

    /// Runs to completion. `onUpdate` sees every receipt's update as it is written (or, in a dry
    /// run, as it would be). Throws only for run-level failures of the store.
    public func run(
        _ options: Options, onUpdate: @Sendable (ReceiptUpdate) -> Void = { _ in }
    ) async throws(StoreError) -> RunSummary {
        let startedAt = clock()
        var total = try await store.countReceipts(options.selection, nowMs: startedAt)
        if let limit = options.limit { total = min(total, limit) }
        let runID: Int64? =
            options.dryRun
            ? nil
            : try await store.startRun(
                kind: options.kind, targetUserID: Self.targetUser(options.selection), receiptsTotal: total,
                nowMs: startedAt)
        logger.info(
            "run started",
            metadata: [
                "run.id": "\(runID.map(String.init) ?? "dry-run")", "run.kind": "\(options.kind.rawValue)",
                "run.receipts": "\(total)", "run.concurrency": "\(options.concurrency)",
            ])

        var cursor = ReceiptCursor(
            store: store, selection: options.selection, nowMs: startedAt, pageSize: options.pageSize,
            limit: options.limit)
        var counts: [RunItemOutcome: Int] = [:]
        var stoppedBy: RunStoppingProblem?
        let verifier = self.verifier
        do {
            try await withThrowingTaskGroup(of: (ReceiptToVerify, VerificationOutcome).self) { group in
                var inFlight = 0
                while inFlight < options.concurrency, let receipt = try await cursor.next() {
                    group.addTask { (receipt, await verifier.verify(receipt)) }
                    inFlight += 1
                }
                while let (receipt, outcome) = try await group.next() {
                    inFlight -= 1
                    var effective = outcome
                    if case .stopRun(let problem) = outcome, stoppedBy == nil {
                        stoppedBy = problem
                        logger.critical("\(problem)")
                    }
                    // Once stopped, answers still in flight are discarded: the receipts stay due.
                    if let stoppedBy { effective = .stopRun(stoppedBy) }
                    let update = try await record(effective, for: receipt, runID: runID, dryRun: options.dryRun)
                    counts[update.runItem.outcome, default: 0] += 1
                    onUpdate(update)
                    if stoppedBy == nil, let next = try await cursor.next() {
                        group.addTask { (next, await verifier.verify(next)) }
                        inFlight += 1
                    }
                }
            }
        } catch let error as StoreError {
            if let runID {
                try? await store.finishRun(id: runID, status: .aborted, exitCode: 74, nowMs: clock())
            }
            throw error
        } catch {
            throw StoreError.failed(operation: "running", reason: "\(error)")
        }

        let summary = RunSummary(
            runID: runID, kind: options.kind, receiptsTotal: total, counts: counts, stoppedBy: stoppedBy,
            status: stoppedBy == nil ? .completed : .aborted, startedAtMs: startedAt, finishedAtMs: clock())
        if let runID {
            try await store.finishRun(id: runID, status: summary.status, exitCode: summary.exitCode, nowMs: summary.finishedAtMs)
        }
        logger.notice("\(summary.line)")
        return summary
    }

    private func record(_ outcome: VerificationOutcome, for receipt: ReceiptToVerify, runID: Int64?, dryRun: Bool)
        async throws(StoreError) -> ReceiptUpdate
    {
        let nowMs = clock()
        let reconciler = self.reconciler
        let periodKeys: [String]
        if case .answered(let response, _) = outcome {
            periodKeys = response.transactions.compactMap(\.periodKey)
        } else {
            periodKeys = []
        }
        let update = try await store.reconcile(receipt, periodKeys: periodKeys, runID: runID, write: !dryRun) {
            snapshot in
            reconciler.reconcile(outcome, snapshot: snapshot, nowMs: nowMs, runID: runID)
        }
        logger.debug(
            "receipt reconciled",
            metadata: [
                "receipt.id": "\(receipt.id)", "receipt.fingerprint": "\(ReceiptFingerprint.short(receipt.receiptData))",
                "run.outcome": "\(update.runItem.outcome.rawValue)",
                "apple.status": "\(update.runItem.appleStatus.map(String.init) ?? "-")",
            ])
        return update
    }

    private static func targetUser(_ selection: ReceiptSelection) -> String? {
        if case .user(let id) = selection { return id }
        return nil
    }
}
