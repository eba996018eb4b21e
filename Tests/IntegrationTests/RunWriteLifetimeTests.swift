import AppStoreSimulator
import Foundation
import Logging
import Synchronization
import Testing

@testable import SubRecon
@testable import SubReconModel
@testable import SubReconStore

/// Nothing a run starts outlives it: when reading the next page fails while a batch is still
/// being written, the write ends before the run is recorded aborted (it once ran on in an
/// unstructured task while the run was already over).
@Suite struct RunWriteLifetimeTests {
    @Test func aWriteUnderWayEndsBeforeAFailedRunIsRecordedAborted() async throws {
        try await TestWorld.make().closing { world in
            try await world.importScenarios([.active, .expired, .trialActive])
            let store = SlowWriteFailingPageStore(base: world.store)
            let job = LiveWiring(
                settings: world.settings(concurrency: 1), store: store, clock: world.clock.millisecondsClock,
                logger: Logger(label: "test"))
            // One receipt at a time, a batch per answer, pages of two: the first answer's write is
            // under way (slowly) when the second answer asks for the next page, which fails.
            var options = ReconciliationRun.Options(kind: .nightly, selection: .due, pageSize: 2, writeBatchSize: 1)
            options.concurrency = 1
            await #expect(throws: RunFailure.self) { try await job.run(options) }
            #expect(store.events == ["write started", "write finished", "run finished aborted"])
            #expect(try await world.count("SELECT COUNT(*) FROM run_items") == 1)
            #expect(try await world.count("SELECT COUNT(*) FROM runs WHERE status = 'aborted'") == 1)
        }
    }
}

/// The SQLite store of a test world, with a slow `reconcile` and every page of receipts after the
/// first refused; records when writes start and finish and when a run's end is recorded.
final class SlowWriteFailingPageStore: SubscriptionStore {
    let base: any SubscriptionStore
    private let log = Mutex<[String]>([])
    private let pagesRead = Mutex(0)

    init(base: any SubscriptionStore) { self.base = base }

    var events: [String] { log.withLock { $0 } }

    func receipts(
        _ selection: ReceiptSelection, app: AppScope, after: ReceiptCursorPosition, limit: Int, nowMs: Int64,
        detail: ReceiptDetail
    ) async throws(StoreError) -> [ReceiptToVerify] {
        let page = pagesRead.withLock { count in
            count += 1
            return count
        }
        guard page == 1 else { throw .failed(operation: "reading receipts to verify", reason: "the test refuses page \(page)") }
        return try await base.receipts(selection, app: app, after: after, limit: limit, nowMs: nowMs, detail: detail)
    }

    func reconcile(_ batch: [ReceiptReconciliation], runID: Int64?, write: Bool, origin: EventOrigin?)
        async throws(StoreError) -> [ReceiptUpdate]
    {
        log.withLock { $0.append("write started") }
        // Not cancellable: a cancelled write would end early and hide a run that did not wait.
        let until = ContinuousClock.now + .milliseconds(500)
        while ContinuousClock.now < until { try? await Task.sleep(until: until) }
        let updates = try await base.reconcile(batch, runID: runID, write: write, origin: origin)
        log.withLock { $0.append("write finished") }
        return updates
    }

    func finishRun(id: Int64, status: RunStatus, exitCode: Int32, nowMs: Int64, receiptsTotal: Int?) async throws(StoreError) {
        log.withLock { $0.append("run finished \(status.rawValue)") }
        try await base.finishRun(id: id, status: status, exitCode: exitCode, nowMs: nowMs, receiptsTotal: receiptsTotal)
    }

    // The rest as the base store does it.
    var location: String { base.location }
    var splitsDueReceipts: Bool { base.splitsDueReceipts }
    var claimTimeoutMs: Int64 { base.claimTimeoutMs }
    func releaseClaims() async throws(StoreError) { try await base.releaseClaims() }
    func reserveAPISlots(budget: String, count: Int, intervalMicros: Int64) async throws(StoreError) -> SlotReservation? {
        try await base.reserveAPISlots(budget: budget, count: count, intervalMicros: intervalMicros)
    }
    func pauseAPISlots(budget: String, forMicros micros: Int64) async throws(StoreError) {
        try await base.pauseAPISlots(budget: budget, forMicros: micros)
    }
    func schemaVersion() async throws(StoreError) -> Int { try await base.schemaVersion() }
    func importReceipts(_ rows: [ImportRow], nowMs: Int64) async throws(StoreError) -> ImportSummary {
        try await base.importReceipts(rows, nowMs: nowMs)
    }
    func userOfToken(_ token: String, forUnknownTransaction otid: String) async throws(StoreError) -> String? {
        try await base.userOfToken(token, forUnknownTransaction: otid)
    }
    func forgetUser(_ userID: String, pseudonym: String, dryRun: Bool, defaultApp: String?, nowMs: Int64)
        async throws(StoreError) -> ForgetSummary
    {
        try await base.forgetUser(userID, pseudonym: pseudonym, dryRun: dryRun, defaultApp: defaultApp, nowMs: nowMs)
    }
    func settleAndClaimEvents(
        _ results: [WebhookAttemptResult], token: String, scope: EventDeliveryScope, nowMs: Int64, limit: Int,
        leaseMs: Int64
    ) async throws(StoreError) -> [DeliverableEvent] {
        try await base.settleAndClaimEvents(results, token: token, scope: scope, nowMs: nowMs, limit: limit, leaseMs: leaseMs)
    }
    func nextEventDueAt(scope: EventDeliveryScope) async throws(StoreError) -> Int64? {
        try await base.nextEventDueAt(scope: scope)
    }
    func pendingEventCount(scope: EventDeliveryScope) async throws(StoreError) -> Int64 {
        try await base.pendingEventCount(scope: scope)
    }
    func releaseEventLeases(token: String) async throws(StoreError) { try await base.releaseEventLeases(token: token) }
    func replayEvents(eventID: String?, sinceMs: Int64, untilMs: Int64, deadOnly: Bool, nowMs: Int64)
        async throws(StoreError) -> Int
    {
        try await base.replayEvents(eventID: eventID, sinceMs: sinceMs, untilMs: untilMs, deadOnly: deadOnly, nowMs: nowMs)
    }
    func skipEvents(createdBefore beforeMs: Int64, apps: [String]?) async throws(StoreError) -> Int {
        try await base.skipEvents(createdBefore: beforeMs, apps: apps)
    }
    func removeSettledEvents(createdBefore beforeMs: Int64) async throws(StoreError) -> Int {
        try await base.removeSettledEvents(createdBefore: beforeMs)
    }
    func movePurchase(_ otid: String, from holders: [String], to userID: String, token: String?, nowMs: Int64)
        async throws(StoreError) -> Int
    {
        try await base.movePurchase(otid, from: holders, to: userID, token: token, nowMs: nowMs)
    }
    func recordLink(userID: String, originalTransactionID otid: String, bundleID: String?, token: String, nowMs: Int64)
        async throws(StoreError)
    {
        try await base.recordLink(userID: userID, originalTransactionID: otid, bundleID: bundleID, token: token, nowMs: nowMs)
    }
    func users(holdingOriginalTransactionID otid: String) async throws(StoreError) -> [String] {
        try await base.users(holdingOriginalTransactionID: otid)
    }
    func withReadSnapshot<T: Sendable>(_ body: (any SnapshotQuerying) async throws -> T) async throws -> T {
        try await base.withReadSnapshot(body)
    }
    func tableColumns() async throws(StoreError) -> [String: [String]] { try await base.tableColumns() }
    func bulkLoad<T: Sendable>(_ body: (any BulkLoader) async throws -> T) async throws -> T { try await base.bulkLoad(body) }
    func startLedgerRefill(nowMs: Int64) async throws(StoreError) -> LedgerRefillStart {
        try await base.startLedgerRefill(nowMs: nowMs)
    }
    func finishLedgerRefill(nowMs: Int64) async throws(StoreError) { try await base.finishLedgerRefill(nowMs: nowMs) }
    func storeAppleReport(_ report: AppleReportDay, nowMs: Int64) async throws(StoreError) -> AppleReportStoreResult {
        try await base.storeAppleReport(report, nowMs: nowMs)
    }
    func close() async { await base.close() }
    func countReceipts(_ selection: ReceiptSelection, app: AppScope, nowMs: Int64) async throws(StoreError) -> Int {
        try await base.countReceipts(selection, app: app, nowMs: nowMs)
    }
    func countReceiptsWithoutApp() async throws(StoreError) -> Int { try await base.countReceiptsWithoutApp() }
    func startRun(kind: RunKind, targetUserID: String?, receiptsTotal: Int, nowMs: Int64) async throws(StoreError) -> Int64 {
        try await base.startRun(kind: kind, targetUserID: targetUserID, receiptsTotal: receiptsTotal, nowMs: nowMs)
    }
    func acquireRunLock(token: String, nowMs: Int64, leaseMs: Int64) async throws(StoreError) -> RunLockResult {
        try await base.acquireRunLock(token: token, nowMs: nowMs, leaseMs: leaseMs)
    }
    func renewRunLock(token: String, runID: Int64?, nowMs: Int64, leaseMs: Int64) async throws(StoreError) -> Bool {
        try await base.renewRunLock(token: token, runID: runID, nowMs: nowMs, leaseMs: leaseMs)
    }
    func releaseRunLock(token: String) async throws(StoreError) { try await base.releaseRunLock(token: token) }
    func heartbeat(runID: Int64, nowMs: Int64) async throws(StoreError) { try await base.heartbeat(runID: runID, nowMs: nowMs) }
    func subscriptions(ofUser userID: String) async throws(StoreError) -> [StoredSubscription] {
        try await base.subscriptions(ofUser: userID)
    }
    func storeNotifications(_ writes: [NotificationWrite]) async throws(StoreError) -> [NotificationStoreResult] {
        try await base.storeNotifications(writes)
    }
    func linkableNotifications(limit: Int) async throws(StoreError) -> [LinkableNotification] {
        try await base.linkableNotifications(limit: limit)
    }
}
