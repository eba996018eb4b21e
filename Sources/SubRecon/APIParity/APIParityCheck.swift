import Logging
import SubReconAppStore
import SubReconModel
import SubReconStore

/// `subrecon parity`: asks both Apple APIs about the same receipts, derives each subscription's
/// row from both answers against what is stored (exactly as a run would), writes nothing, and
/// lists every reported field that differs — the evidence a team needs before it moves off
/// verifyReceipt.
public struct APIParityCheck: Sendable {
    /// What was compared.
    public struct Result: Sendable {
        public var receiptsCompared: Int
        public var subscriptionsCompared: Int
        public var subscriptionsDiffering: Int
        public var differences: [APIParityDifference]
        /// Every stored receipt was compared (`parity --all`), not only the due ones.
        public var comparedAll = false
        /// How many receipts are stored for the apps compared; counted only when none was compared,
        /// to say why.
        public var receiptsStored: Int?
    }

    let store: any SubscriptionStore
    let verifyReceipt: any ReceiptVerifier
    let serverAPI: any ReceiptVerifier
    let reconciler: ReceiptReconciler
    let clock: @Sendable () -> Int64
    let concurrency: Int
    let logger: Logger
    /// Whose receipts are compared: every stored receipt, or one app's of several.
    let app: AppScope

    public init(
        store: any SubscriptionStore, verifyReceipt: any ReceiptVerifier, serverAPI: any ReceiptVerifier,
        reconciler: ReceiptReconciler, clock: @escaping @Sendable () -> Int64, concurrency: Int, logger: Logger,
        app: AppScope = .every
    ) {
        self.app = app
        self.store = store
        self.verifyReceipt = verifyReceipt
        self.serverAPI = serverAPI
        self.reconciler = reconciler
        self.clock = clock
        self.concurrency = max(1, concurrency)
        self.logger = logger
    }

    /// Compares up to `limit` due receipts (every due receipt when nil), or with `all` up to
    /// `limit` of every stored receipt, due or not.
    public func run(limit: Int?, all: Bool = false) async throws(StoreError) -> Result {
        let nowMs = clock()
        var result = Result(
            receiptsCompared: 0, subscriptionsCompared: 0, subscriptionsDiffering: 0, differences: [], comparedAll: all)
        var position = ReceiptCursorPosition.start
        while limit.map({ result.receiptsCompared < $0 }) ?? true {
            let pageSize = min(256, limit.map { $0 - result.receiptsCompared } ?? 256)
            // Read, never claimed: the check writes nothing at all.
            let page = try await store.receipts(
                all ? .all : .duePreview, app: app, after: position, limit: pageSize, nowMs: nowMs, detail: .withServerAPIContext)
            guard let last = page.last else { break }
            position = ReceiptCursorPosition(nextDueAt: last.nextDueAt, id: last.id)
            let answers = await ask(page)
            // Both outcomes reconciled against the same stored state, nothing written.
            var batch: [ReceiptReconciliation] = []
            for (receipt, pair) in zip(page, answers) {
                batch.append(ReceiptReconciliation(receipt: receipt, outcome: pair.0, reconciler: reconciler, nowMs: nowMs, runID: nil))
                batch.append(ReceiptReconciliation(receipt: receipt, outcome: pair.1, reconciler: reconciler, nowMs: nowMs, runID: nil))
            }
            let updates = try await store.reconcile(batch, runID: nil, write: false, origin: nil)
            for index in page.indices {
                compare(page[index], updates[2 * index], updates[2 * index + 1], into: &result)
            }
            result.receiptsCompared += page.count
        }
        if result.receiptsCompared == 0 { result.receiptsStored = try await store.countReceipts(.all, app: app, nowMs: nowMs) }
        return result
    }

    /// Both APIs for each receipt of the page, at most `concurrency` receipts at a time.
    private func ask(_ page: [ReceiptToVerify]) async -> [(VerificationOutcome, VerificationOutcome)] {
        var answers = [(VerificationOutcome, VerificationOutcome)?](repeating: nil, count: page.count)
        await withTaskGroup(of: (Int, VerificationOutcome, VerificationOutcome).self) { group in
            var next = 0
            func start() {
                guard next < page.count else { return }
                let index = next, receipt = page[index]
                next += 1
                group.addTask {
                    async let old = verifyReceipt.verify(receipt)
                    async let new = serverAPI.verify(receipt)
                    return (index, await old, await new)
                }
            }
            for _ in 0..<min(concurrency, page.count) { start() }
            for await (index, old, new) in group {
                answers[index] = (old, new)
                start()
            }
        }
        return answers.map { $0! }
    }

    private func compare(_ receipt: ReceiptToVerify, _ old: ReceiptUpdate, _ new: ReceiptUpdate, into result: inout Result) {
        if old.runItem.outcome != new.runItem.outcome {
            result.differences.append(
                APIParityDifference(
                    userID: receipt.userID, originalTransactionID: "", field: "outcome",
                    verifyReceiptValue: Self.describe(old.runItem), serverAPIValue: Self.describe(new.runItem)))
        }
        let oldRows = Dictionary(old.subscriptions.map { ($0.originalTransactionID, $0) }, uniquingKeysWith: { a, _ in a })
        let newRows = Dictionary(new.subscriptions.map { ($0.originalTransactionID, $0) }, uniquingKeysWith: { a, _ in a })
        for otid in Set(oldRows.keys).union(newRows.keys).sorted() {
            result.subscriptionsCompared += 1
            var differences: [APIParityDifference] = []
            switch (oldRows[otid], newRows[otid]) {
            case (let a?, let b?):
                for ((field, left), (_, right)) in zip(Self.reportedFields(a), Self.reportedFields(b)) where left != right {
                    differences.append(
                        APIParityDifference(
                            userID: receipt.userID, originalTransactionID: otid, field: field, verifyReceiptValue: left,
                            serverAPIValue: right))
                }
            case (let a, let b):
                differences.append(
                    APIParityDifference(
                        userID: receipt.userID, originalTransactionID: otid, field: "subscription",
                        verifyReceiptValue: a == nil ? "absent" : "present", serverAPIValue: b == nil ? "absent" : "present"))
            }
            if !differences.isEmpty { result.subscriptionsDiffering += 1 }
            result.differences += differences
        }
    }

    private static func describe(_ item: RunItem) -> String {
        item.outcome.rawValue + (item.message.map { ": " + $0 } ?? "")
    }

    /// The `report subscriptions` columns that come from Apple, formatted as that report does.
    static func reportedFields(_ s: StoredSubscription) -> [(String, String)] {
        func flag(_ value: Bool?) -> String { value.map { $0 ? "1" : "0" } ?? "" }
        return [
            ("product_id", s.productID), ("status", s.status.rawValue), ("entitled", s.status.isEntitled ? "true" : "false"),
            ("expires_date_ms", String(s.expiresDateMs)), ("auto_renew_status", flag(s.autoRenewStatus)),
            ("auto_renew_product_id", s.autoRenewProductID ?? ""),
            ("expiration_intent", s.expirationIntent.map(String.init) ?? ""),
            ("grace_period_expires_at", s.gracePeriodExpiresDateMs.map(ISO8601.string(fromMilliseconds:)) ?? ""),
            ("is_in_billing_retry", flag(s.isInBillingRetry)), ("environment", s.environment.rawValue),
            ("cancellation_date_ms", s.status == .refunded ? s.cancellationDateMs.map(String.init) ?? "" : ""),
            ("app_account_token", s.appAccountToken ?? ""), ("flag", s.flag ?? ""),
        ]
    }
}
