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
        /// How the workers of the database share its runs; set with `coordinated(by:)`.
        public internal(set) var coordination: RunCoordination = .runLock
        /// The `source` of the events this run's changes write: `run` for the nightly run, `user`
        /// for one user's, unless the run does another command's work (`link`, `token_link`).
        public var eventSource: EventSource

        public init(
            kind: RunKind, selection: ReceiptSelection, limit: Int? = nil, concurrency: Int = 32,
            dryRun: Bool = false, pageSize: Int = 512, takesRunLock: Bool? = nil, leaseMs: Int64 = 120_000,
            circuitBreaker: CircuitBreaker = .standard, writeBatchSize: Int = 128, eventSource: EventSource? = nil
        ) {
            self.eventSource = eventSource ?? (kind == .nightly ? .run : .user)
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
    /// held, or the store failed. How workers share the database is `options.coordination`
    /// (`Options.coordinated(by:)`), decided by whoever wired the run.
    public func run(_ options: Options, observers: [any RunObserver] = []) async throws(RunFailure) -> RunSummary {
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
            let summary = try await runLocked(options, lockToken: lockToken, observers: observers)
            try? await release(options, lockToken: lockToken)
            return summary
        } catch {
            try? await release(options, lockToken: lockToken)
            throw error
        }
    }

    /// Gives back the run lock, or the receipts claimed (read ahead) but not written, at once
    /// rather than when the lease or the claims run out.
    private func release(_ options: Options, lockToken: String) async throws(StoreError) {
        if options.takesRunLock { try await store.releaseRunLock(token: lockToken) }
        if options.claimsDueReceipts, !options.dryRun { try await store.releaseClaims() }
    }

    /// The run, once it may: recorded, verified and written, summed up.
    private func runLocked(
        _ options: Options, lockToken: String, observers: [any RunObserver]
    ) async throws(RunFailure) -> RunSummary {
        let startedAt = clock()
        let (total, runID) = try await begin(options, startedAt: startedAt, observers: observers)
        let (tally, stoppedLanes): (RunTally, [LaneScheduler.StoppedLane])
        do {
            (tally, stoppedLanes) = try await verifyAndWrite(
                options, lockToken: lockToken, runID: runID, startedAt: startedAt, observers: observers)
        } catch {
            let failure = (error as? StoreError).map(RunFailure.store) ?? .store(.failed(operation: "running", reason: StoreError.reason(error)))
            if let runID {
                try? await store.finishRun(id: runID, status: .aborted, exitCode: ExitStatus.databaseFailed.rawValue, nowMs: clock(), receiptsTotal: nil)
            }
            throw failure
        }
        return try await end(
            options, tally: tally, stoppedLanes: stoppedLanes, total: total, runID: runID, startedAt: startedAt,
            observers: observers)
    }

    /// Counts the selected receipts and records the run's start (not in a dry run).
    private func begin(
        _ options: Options, startedAt: Int64, observers: [any RunObserver]
    ) async throws(RunFailure) -> (total: Int, runID: Int64?) {
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
        return (total, runID)
    }

    /// Verifies the selected receipts, `concurrency` at a time (children only talk to Apple), and
    /// writes the answers in batches as they arrive; returns what was written and which apps Apple
    /// stopped.
    private func verifyAndWrite(
        _ options: Options, lockToken: String, runID: Int64?, startedAt: Int64, observers: [any RunObserver]
    ) async throws -> (RunTally, [LaneScheduler.StoppedLane]) {
        // Each app walks its own receipts; `--limit` bounds the run as a whole.
        var cursors = lanes.map { lane in
            ReceiptCursor(
                store: store, selection: options.selection, app: lane.app, detail: lane.verifier.receiptDetail,
                nowMs: startedAt, pageSize: options.pageSize, limit: options.limit)
        }
        do {
            let result = try await verifyAndWrite(
                options, from: &cursors, lockToken: lockToken, runID: runID, observers: observers)
            for index in cursors.indices { await cursors[index].close() }
            return result
        } catch {
            for index in cursors.indices { await cursors[index].close() }
            throw error
        }
    }

    /// The run loop: starts verifications from the lanes in turn, gathers their answers into
    /// batches and writes them, until every lane is done or the run ends early.
    private func verifyAndWrite(
        _ options: Options, from cursors: inout [ReceiptCursor], lockToken: String, runID: Int64?,
        observers: [any RunObserver]
    ) async throws -> (RunTally, [LaneScheduler.StoppedLane]) {
        var scheduler = LaneScheduler(lanes: lanes.count, limit: options.limit)
        // Answers are written in small batches (one transaction each): when the batch is full,
        // when it has waited `maxBatchDelay`, or when nothing else is in flight.
        var batcher = WriteBatcher<PendingAnswer>(maxCount: options.writeBatchSize, maxDelay: Self.maxBatchDelay)
        var tally = RunTally(breaker: options.circuitBreaker)
        let (lanes, clock) = (self.lanes, self.clock)
        // The write of one batch runs beside the scheduling (at most one batch being written at a
        // time, in order), so answers arriving meanwhile are not left waiting and their slots are
        // refilled at once: with blocking writes a run at Apple's latency fell well short of the
        // ideal (docs/performance.md, "Earlier figures behind the code's choices"). The writes are
        // children of a group of their own around the verifications': a stop cancels the
        // verifications' backoff waits, never a write, and a write still committing when the
        // verifications fail ends before the run does (and before it is recorded aborted).
        try await withThrowingTaskGroup(of: [ReceiptUpdate].self) { writes in
            var writing = false
            func absorb(_ updates: [ReceiptUpdate]) {
                for update in updates {
                    let opened = tally.record(update.runItem.outcome)
                    for observer in observers { observer.receiptFinished(update) }
                    if opened { logger.error("\(EarlyEnd.circuitBreakerOpen)") }
                }
            }
            func flush(wait: Bool) async throws {
                if writing {
                    writing = false
                    if let updates = try await writes.next() { absorb(updates) }
                }
                guard !batcher.isEmpty else { return }
                let batch = batcher.take()
                writes.addTask { [self] in
                    try await self.record(batch, runID: runID, dryRun: options.dryRun, eventSource: options.eventSource)
                }
                if wait {
                    if let updates = try await writes.next() { absorb(updates) }
                } else {
                    writing = true
                }
            }
            do {
                try await withThrowingTaskGroup(of: ChildResult.self) { group in
                    // Starts the next receipt of the lane whose turn it is; false when none may start.
                    func startNext() async throws -> Bool {
                        guard tally.endedEarly == nil else { return false }
                        while let lane = scheduler.nextLane() {
                            guard let receipt = try await cursors[lane].next() else {
                                scheduler.exhaust(lane)
                                continue
                            }
                            scheduler.start(lane)
                            let verifier = lanes[lane].verifier
                            group.addTask { await Self.verify(receipt, lane: lane, verifier: verifier, clock: clock) }
                            return true
                        }
                        return false
                    }
                    group.addTask { await watch(options, lockToken: lockToken, runID: runID) }
                    while scheduler.inFlight < options.concurrency, try await startNext() {}
                    while scheduler.inFlight > 0, let result = try await group.next() {
                        switch result {
                        case .watcherDone:
                            continue
                        case .stopRequested(let reason):
                            tally.end(reason)
                            logger.warning("stopping: \(reason); receipts in flight finish, the rest stay due")
                            // Cancels backoff waits of the receipts in flight (their HTTP exchange completes).
                            group.cancelAll()
                        case .verified(let lane, let receipt, let outcome, let digest):
                            scheduler.finish(lane)
                            if case .stopRun(let problem) = outcome, scheduler.stop(lane, by: problem) {
                                // The one place the operator reads why (the commands do not repeat it).
                                logger.critical(
                                    "\(problem)", metadata: lanes.count > 1 ? ["app": "\(lanes[lane].name)"] : nil)
                            }
                            // Once Apple stopped an app's work, its answers still in flight are
                            // discarded: they stay due.
                            let effective = scheduler.stoppedBy(lane).map(VerificationOutcome.stopRun) ?? outcome
                            batcher.add(PendingAnswer(lane: lane, receipt: receipt, outcome: effective, digest: digest))
                            // A failure is written and counted before anything new starts, so the
                            // circuit breaker opens on time during an outage (failures are rare otherwise).
                            if case .failed = effective { try await flush(wait: true) }
                            // Refill the window before writing, so Apple keeps `concurrency` requests
                            // in flight while the batch commits.
                            _ = try await startNext()
                            if batcher.isDue(idle: scheduler.inFlight == 0) {
                                try await flush(wait: scheduler.inFlight == 0)
                            }
                        }
                    }
                    try await flush(wait: true)
                    group.cancelAll()
                }
            } catch {
                // Nothing outlives the run: the batch being written commits (or fails) first.
                try? await writes.waitForAll()
                throw error
            }
        }
        return (tally, scheduler.stoppedLanes)
    }

    /// Sums the run up, records its end (not in a dry run) and tells the observers.
    private func end(
        _ options: Options, tally: RunTally, stoppedLanes: [LaneScheduler.StoppedLane], total: Int,
        runID: Int64?, startedAt: Int64, observers: [any RunObserver]
    ) async throws(RunFailure) -> RunSummary {
        let stoppedApps = stoppedLanes.map { (lanes[$0.lane].name, $0.problem) }
        let stoppedBy = stoppedApps.first?.1
        let status = tally.status(stoppedLanes: stoppedApps.count, of: lanes.count)
        let claims = options.claimsDueReceipts && !options.dryRun
        var total = total
        var remaining = max(0, total - tally.processed)
        if claims {
            // The other workers took their share: this worker's total is what it did, and what
            // is left is only what nobody took (when this run ended early).
            total = tally.processed
            if tally.endedEarly == nil {
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
            runID: runID, kind: options.kind, receiptsTotal: total, counts: tally.counts, stoppedBy: stoppedBy,
            status: status, startedAtMs: startedAt, finishedAtMs: clock(), endedEarly: tally.endedEarly?.description,
            notReached: stoppedBy == nil ? remaining : 0,
            stoppedApps: lanes.count > 1 ? stoppedApps.map(\.0) : [], signal: tally.endedEarly?.signal,
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

    /// One verification, a child of the run: only talks to Apple.
    private static func verify(
        _ receipt: ReceiptToVerify, lane: Int, verifier: any ReceiptVerifier, clock: @Sendable () -> Int64
    ) async -> ChildResult {
        // Apple's answer is as of when we asked: a notification signed after that is newer, and
        // the reconciler keeps it (see AppleAccount.asOfMs).
        let askedAt = clock()
        var outcome = await verifier.verify(receipt)
        if case .answered(var account) = outcome, account.asOfMs == nil {
            account.asOfMs = askedAt
            outcome = .answered(account)
        }
        // Hashed here, in parallel, rather than in the one writer.
        return .verified(lane, receipt, outcome, ReceiptDigest(latestReceiptOf: outcome, sent: receipt))
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

    private func record(_ batch: [PendingAnswer], runID: Int64?, dryRun: Bool, eventSource: EventSource) async throws(StoreError)
        -> [ReceiptUpdate]
    {
        let nowMs = clock()
        let requests = batch.map { answer in
            ReceiptReconciliation(
                receipt: answer.receipt, outcome: answer.outcome, reconciler: lanes[answer.lane].reconciler, nowMs: nowMs,
                runID: runID, latestReceiptDigest: answer.digest)
        }
        // A single-app deployment's receipts may name no app: its events name the one configured.
        let origin = EventOrigin(
            source: eventSource, runID: runID, defaultApp: lanes.count == 1 ? lanes[0].app.bundleID : nil)
        let updates = try await store.reconcile(requests, runID: runID, write: !dryRun, origin: origin)
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
