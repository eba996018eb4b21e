import Foundation
import Logging
import SubReconAppStore
import SubReconModel
import SubReconStore

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
        /// The nightly run takes the database's run lock; `user` runs and dry runs don't.
        public var takesRunLock: Bool
        /// The run lock's lease; renewed every third of it while the run lives.
        public var leaseMs: Int64
        public var circuitBreaker: CircuitBreaker
        /// Receipts written per transaction at most; answers that arrive together share one commit.
        /// 128: at zero latency larger commits cost less per receipt (`subrecon-bench stages
        /// --batch-size`; docs/performance.md, "App Store Server API mode"); with latency,
        /// `maxBatchDelay` flushes first.
        public var writeBatchSize: Int

        public init(
            kind: RunKind, selection: ReceiptSelection, limit: Int? = nil, concurrency: Int = 32,
            dryRun: Bool = false, pageSize: Int = 512, takesRunLock: Bool? = nil, leaseMs: Int64 = 120_000,
            circuitBreaker: CircuitBreaker = .standard, writeBatchSize: Int = 128
        ) {
            self.writeBatchSize = max(1, writeBatchSize)
            self.kind = kind
            self.selection = selection
            self.limit = limit
            self.concurrency = max(1, concurrency)
            self.dryRun = dryRun
            self.pageSize = max(1, pageSize)
            self.takesRunLock = takesRunLock ?? (kind == .nightly && !dryRun)
            self.leaseMs = max(1000, leaseMs)
            self.circuitBreaker = circuitBreaker
        }
    }

    /// One app's share of a run: its receipts, the client that asks Apple about them (with that
    /// app's credentials and rate budget) and the reconciler with its products.
    public struct Lane: Sendable {
        public var app: AppScope
        public var verifier: any ReceiptVerifier
        public var reconciler: ReceiptReconciler

        public init(app: AppScope, verifier: any ReceiptVerifier, reconciler: ReceiptReconciler) {
            self.app = app
            self.verifier = verifier
            self.reconciler = reconciler
        }

        /// How messages name the app.
        var name: String { app.bundleID ?? "the app" }
    }

    let store: any SubscriptionStore
    /// One per app; the apps' receipts are verified side by side, each app's slots refilled
    /// from its own receipts, so one app's rate budget never holds up another's.
    let lanes: [Lane]
    let clock: @Sendable () -> Int64
    let stopSignal: StopSignal
    let logger: Logger

    public init(
        store: any SubscriptionStore, lanes: [Lane], clock: @escaping @Sendable () -> Int64,
        stopSignal: StopSignal = StopSignal(), logger: Logger
    ) {
        precondition(!lanes.isEmpty, "a run needs at least one app")
        self.store = store
        self.lanes = lanes
        self.clock = clock
        self.stopSignal = stopSignal
        self.logger = logger
    }

    /// A run of a deployment with one app: every stored receipt, one client.
    public init(
        store: any SubscriptionStore, verifier: any ReceiptVerifier, reconciler: ReceiptReconciler,
        clock: @escaping @Sendable () -> Int64, stopSignal: StopSignal = StopSignal(), logger: Logger
    ) {
        self.init(
            store: store, lanes: [Lane(app: .every, verifier: verifier, reconciler: reconciler)], clock: clock,
            stopSignal: stopSignal, logger: logger)
    }

    /// What a child task of the run reports back.
    private enum ChildResult: Sendable {
        /// An answer, with the index of its app's lane.
        case verified(Int, ReceiptToVerify, VerificationOutcome, ReceiptDigest?)
        /// The watcher saw a stop request, or lost the run lock.
        case stopRequested(EarlyEnd)
        /// The watcher was cancelled at the end of the run.
        case watcherDone
    }

    /// Runs to completion. Observers see the start, every receipt's update as it is written (or,
    /// in a dry run, as it would be) and the end. Throws only for run-level failures: the lock is
    /// held, or the store failed.
    public func run(_ options: Options, observers: [any RunObserver] = []) async throws(RunFailure) -> RunSummary {
        var options = options
        let claims = store.splitsDueReceipts && options.selection == .due
        if store.splitsDueReceipts {
            // Several workers cooperate through claims (PostgreSQL): no run lock, and the
            // heartbeat that renews the claims beats every third of their timeout.
            options.takesRunLock = false
            options.leaseMs = store.claimTimeoutMs
            // Claims in small batches, so workers share the run evenly and a killed worker strands few.
            options.pageSize = min(options.pageSize, max(32, 2 * options.concurrency))
            // A dry run reads the due receipts without claiming them: it writes nothing at all.
            if options.dryRun, options.selection == .due { options.selection = .duePreview }
        }
        let lockToken = UUID().uuidString
        if options.takesRunLock {
            switch try await storeCall({ () async throws(StoreError) in
                try await store.acquireRunLock(token: lockToken, nowMs: clock(), leaseMs: options.leaseMs)
            }) {
            case .held(let holder): throw .locked(by: holder)
            case .acquired(let previous?):
                logger.warning("took over the run lock from a run that is gone (\(previous))")
            case .acquired(nil): break
            }
        }
        do {
            let summary = try await runLocked(options, claims: claims, lockToken: lockToken, observers: observers)
            try? await release(options, claims: claims, lockToken: lockToken)
            return summary
        } catch {
            try? await release(options, claims: claims, lockToken: lockToken)
            throw error
        }
    }

    /// Gives back the run lock, or the receipts claimed (read ahead) but not written, at once
    /// rather than when the lease or the claims run out.
    private func release(_ options: Options, claims: Bool, lockToken: String) async throws(StoreError) {
        if options.takesRunLock { try await store.releaseRunLock(token: lockToken) }
        if claims, !options.dryRun { try await store.releaseClaims() }
    }

    private func runLocked(
        _ options: Options, claims: Bool, lockToken: String, observers: [any RunObserver]
    ) async throws(RunFailure) -> RunSummary {
        let startedAt = clock()
        var total = 0
        for lane in lanes {
            total += try await storeCall { () async throws(StoreError) in
                try await store.countReceipts(options.selection, app: lane.app, nowMs: startedAt)
            }
        }
        if let limit = options.limit { total = min(total, limit) }
        let runID: Int64? =
            options.dryRun
            ? nil
            : try await storeCall { () async throws(StoreError) in
                try await store.startRun(
                    kind: options.kind, targetUserID: Self.targetUser(options.selection), receiptsTotal: total,
                    nowMs: startedAt)
            }
        logger.info(
            "run started",
            metadata: [
                "run.id": "\(runID.map(String.init) ?? "dry-run")", "run.kind": "\(options.kind.rawValue)",
                "run.receipts": "\(total)", "run.concurrency": "\(options.concurrency)",
            ])

        for observer in observers { observer.runStarted(receiptsTotal: total, runID: runID) }
        // Each app walks its own receipts; `--limit` bounds the run as a whole.
        var cursors = lanes.map { lane in
            ReceiptCursor(
                store: store, selection: options.selection, app: lane.app, detail: lane.verifier.receiptDetail,
                nowMs: startedAt, pageSize: options.pageSize, limit: options.limit)
        }
        var remainingLimit = options.limit ?? .max
        var laneInFlight = Array(repeating: 0, count: lanes.count)
        var laneExhausted = Array(repeating: false, count: lanes.count)
        var counts: [RunItemOutcome: Int] = [:]
        // An app Apple stopped (21004, a 401) stops only that app's work.
        var laneStoppedBy: [RunStoppingProblem?] = Array(repeating: nil, count: lanes.count)
        var endedEarly: EarlyEnd?
        var breaker = options.circuitBreaker
        let lanes = self.lanes
        let clock = self.clock
        do {
            try await withThrowingTaskGroup(of: ChildResult.self) { group in
                group.addTask { await watch(options, lockToken: lockToken, runID: runID) }
                var inFlight = 0
                var scheduling = true
                func scheduleNext() async throws {
                    guard scheduling, endedEarly == nil, remainingLimit > 0 else { return }
                    // The app with the fewest receipts in flight goes next, so every app keeps
                    // its share of the window whatever the order its receipts are due in.
                    while true {
                        var next: Int?
                        for index in lanes.indices where !laneExhausted[index] && laneStoppedBy[index] == nil {
                            if next.map({ laneInFlight[index] < laneInFlight[$0] }) ?? true { next = index }
                        }
                        guard let index = next else { return }
                        guard let receipt = try await cursors[index].next() else {
                            laneExhausted[index] = true
                            continue
                        }
                        schedule(receipt, lane: index)
                        return
                    }
                }
                func schedule(_ receipt: ReceiptToVerify, lane index: Int) {
                    let verifier = lanes[index].verifier
                    remainingLimit -= 1
                    laneInFlight[index] += 1
                    group.addTask {
                        // Apple's answer is as of when we asked: a notification signed after
                        // that is newer, and the reconciler keeps it (see AppleAccount.asOfMs).
                        let askedAt = clock()
                        var outcome = await verifier.verify(receipt)
                        if case .answered(var account) = outcome, account.asOfMs == nil {
                            account.asOfMs = askedAt
                            outcome = .answered(account)
                        }
                        // Hashed here, in parallel, rather than in the one writer.
                        return .verified(index, receipt, outcome, ReceiptDigest(latestReceiptOf: outcome, sent: receipt))
                    }
                    inFlight += 1
                }
                while inFlight < options.concurrency {
                    let before = inFlight
                    try await scheduleNext()
                    if inFlight == before { break }
                }
                // Answers are written in small batches (one transaction each): when the batch is
                // full, when it has waited `maxBatchDelay`, or when nothing else is in flight.
                var pending: [PendingAnswer] = []
                var oldestPending = ContinuousClock.now
                // The write of one batch runs beside the scheduling (at most one batch being
                // written at a time, in order), so answers arriving meanwhile are not left waiting
                // and their slots are refilled at once: with blocking writes a run at Apple's
                // latency fell well short of the ideal (docs/performance.md, "Earlier figures
                // behind the code's choices").
                var writing: Task<[ReceiptUpdate], any Error>?
                func absorb(_ updates: [ReceiptUpdate]) {
                    for update in updates {
                        counts[update.runItem.outcome, default: 0] += 1
                        for observer in observers { observer.receiptFinished(update) }
                        if update.runItem.outcome == .failed {
                            if breaker.record(failed: true), endedEarly == nil {
                                endedEarly = .circuitBreakerOpen
                                logger.error("\(EarlyEnd.circuitBreakerOpen)")
                            }
                        } else if update.runItem.outcome != .skipped {
                            _ = breaker.record(failed: false)
                        }
                    }
                }
                func flush(wait: Bool = true) async throws {
                    if let previous = writing {
                        writing = nil
                        absorb(try await previous.value)
                    }
                    guard !pending.isEmpty else { return }
                    let batch = pending
                    pending.removeAll(keepingCapacity: true)
                    let task = Task { [self] in try await self.record(batch, runID: runID, dryRun: options.dryRun) }
                    if wait { absorb(try await task.value) } else { writing = task }
                }
                while inFlight > 0, let result = try await group.next() {
                    switch result {
                    case .watcherDone:
                        continue
                    case .stopRequested(let reason):
                        endedEarly = endedEarly ?? reason
                        scheduling = false
                        logger.warning("stopping: \(reason); receipts in flight finish, the rest stay due")
                        // Cancels backoff waits of the receipts in flight (their HTTP exchange completes).
                        group.cancelAll()
                        continue
                    case .verified(let lane, let receipt, let outcome, let digest):
                        inFlight -= 1
                        laneInFlight[lane] -= 1
                        var effective = outcome
                        if case .stopRun(let problem) = outcome, laneStoppedBy[lane] == nil {
                            laneStoppedBy[lane] = problem
                            // The one place the operator reads why (the commands do not repeat it).
                            logger.critical(
                                "\(problem)", metadata: lanes.count > 1 ? ["app": "\(lanes[lane].name)"] : nil)
                        }
                        // Once Apple stopped an app's work, its answers still in flight are
                        // discarded: they stay due.
                        if let stoppedBy = laneStoppedBy[lane] { effective = .stopRun(stoppedBy) }
                        if pending.isEmpty { oldestPending = .now }
                        pending.append(PendingAnswer(lane: lane, receipt: receipt, outcome: effective, digest: digest))
                        // A failure is written and counted before anything new starts, so the
                        // circuit breaker opens on time during an outage (failures are rare otherwise).
                        if case .failed = effective { try await flush(wait: true) }
                        // Refill the window before writing, so Apple keeps `concurrency` requests
                        // in flight while the batch commits.
                        try await scheduleNext()
                        if pending.count >= options.writeBatchSize || inFlight == 0
                            || ContinuousClock.now - oldestPending >= Self.maxBatchDelay
                        {
                            try await flush(wait: inFlight == 0)
                        }
                    }
                }
                try await flush()
                group.cancelAll()
            }
        } catch {
            let failure = (error as? StoreError).map(RunFailure.store) ?? .store(.failed(operation: "running", reason: StoreError.reason(error)))
            if let runID {
                try? await store.finishRun(id: runID, status: .aborted, exitCode: ExitStatus.databaseFailed.rawValue, nowMs: clock(), receiptsTotal: nil)
            }
            throw failure
        }

        let stoppedApps = lanes.indices.compactMap { index in laneStoppedBy[index].map { (lanes[index].name, $0) } }
        let stoppedBy = stoppedApps.first?.1
        let status: RunStatus
        if stoppedApps.count == lanes.count {
            status = .aborted
        } else if let endedEarly {
            // Interrupted from outside (a signal, another process took the lock) vs. stopped by us.
            status = endedEarly == .circuitBreakerOpen ? .aborted : .interrupted
        } else {
            status = .completed
        }
        let processed = counts.values.reduce(0, +)
        var remaining = max(0, total - processed)
        if claims, !options.dryRun {
            // The other workers took their share: this worker's total is what it did, and what
            // is left is only what nobody took (when this run ended early).
            total = processed
            if endedEarly == nil {
                remaining = 0
            } else {
                try? await store.releaseClaims()
                remaining = 0
                for lane in lanes {
                    remaining += (try? await store.countReceipts(.due, app: lane.app, nowMs: startedAt)) ?? 0
                }
            }
        }
        let summary = RunSummary(
            runID: runID, kind: options.kind, receiptsTotal: total, counts: counts, stoppedBy: stoppedBy,
            status: status, startedAtMs: startedAt, finishedAtMs: clock(), endedEarly: endedEarly?.description,
            notReached: stoppedBy == nil ? remaining : 0,
            stoppedApps: lanes.count > 1 ? stoppedApps.map(\.0) : [], signal: endedEarly?.signal,
            selection: options.selection)
        if let runID {
            try await storeCall { () async throws(StoreError) in
                try await store.finishRun(
                    id: runID, status: summary.status, exitCode: summary.exitCode, nowMs: summary.finishedAtMs,
                    receiptsTotal: claims ? total : nil)
            }
        }
        for observer in observers { observer.runFinished(summary) }
        // Info, not notice: the commands print the summary on stdout, and the default log level
        // (notice) would show it twice on a terminal and write it into cron's error file nightly.
        logger.info("\(summary.line)")
        return summary
    }

    /// Runs beside the verifications: watches for a stop request and keeps the run lock's lease
    /// (or, without a lock, the run's heartbeat) fresh.
    private func watch(_ options: Options, lockToken: String, runID: Int64?) async -> ChildResult {
        let renewEvery = options.leaseMs / 3
        var lastRenewal = clock()
        while !Task.isCancelled {
            if let reason = stopSignal.reason { return .stopRequested(.signal(reason)) }
            if clock() - lastRenewal >= renewEvery, !options.dryRun {
                lastRenewal = clock()
                if options.takesRunLock {
                    let kept = (try? await store.renewRunLock(
                        token: lockToken, runID: runID, nowMs: lastRenewal, leaseMs: options.leaseMs)) ?? true
                    if !kept { return .stopRequested(.lostRunLock) }
                } else if let runID {
                    try? await store.heartbeat(runID: runID, nowMs: lastRenewal)
                }
            }
            try? await Task.sleep(for: .milliseconds(100))
        }
        return .watcherDone
    }

    /// A batch waits at most this long for company before it is written. Longer batches cost
    /// the database less per answer (several workers each see a part of the run's answers, so
    /// their batches are small); an answer not yet written when the process dies is only asked
    /// again (docs/performance.md, "Several workers at Apple's latency").
    static let maxBatchDelay: Duration = .milliseconds(200)

    /// An answer waiting to be written, with its app's lane.
    private struct PendingAnswer: Sendable {
        var lane: Int
        var receipt: ReceiptToVerify
        var outcome: VerificationOutcome
        var digest: ReceiptDigest?
    }

    private func record(_ batch: [PendingAnswer], runID: Int64?, dryRun: Bool) async throws(StoreError) -> [ReceiptUpdate] {
        let nowMs = clock()
        let requests = batch.map { answer in
            ReceiptReconciliation(
                receipt: answer.receipt, outcome: answer.outcome, reconciler: lanes[answer.lane].reconciler, nowMs: nowMs,
                runID: runID, latestReceiptDigest: answer.digest)
        }
        let updates = try await store.reconcile(requests, runID: runID, write: !dryRun)
        for (update, receipt) in zip(updates, batch.map(\.receipt)) {
            logger.debug(
                "receipt reconciled",
                metadata: [
                    "receipt.id": "\(receipt.id)",
                    "receipt.fingerprint": "\(ReceiptFingerprint.short(receipt.receiptData))",
                    "run.outcome": "\(update.runItem.outcome.rawValue)",
                    "apple.status": "\(update.runItem.appleStatus.map(String.init) ?? "-")",
                ])
        }
        return updates
    }

    private func storeCall<T>(_ body: () async throws(StoreError) -> T) async throws(RunFailure) -> T {
        do { return try await body() } catch { throw .store(error) }
    }

    private static func targetUser(_ selection: ReceiptSelection) -> String? {
        if case .user(let id) = selection { return id }
        return nil
    }
}

/// Why a run stopped before every selected receipt was verified.
enum EarlyEnd: Sendable, Equatable, CustomStringConvertible {
    case signal(String)
    case lostRunLock
    case circuitBreakerOpen

    /// The signal that ended the run, if one did.
    var signal: Int32? {
        if case .signal(let name) = self { StopSignal.signal(named: name) } else { nil }
    }

    var description: String {
        switch self {
        case .signal(let name): "received \(name)"
        case .lostRunLock: "lost the run lock to another process"
        case .circuitBreakerOpen: "most recent receipts got no usable answer (is Apple down?); circuit breaker open"
        }
    }
}
