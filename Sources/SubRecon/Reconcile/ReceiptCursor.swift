import SubReconModel
import SubReconStore

/// Streams a selection of receipts from the store in keyset pages, so a run over a million
/// receipts holds at most two pages in memory, not the table. The next page is read while the
/// second half of the current one is handed out, so the run never waits on a page read
/// (a page read on the run's path stalled it at zero latency; docs/performance.md, "Earlier
/// figures behind the code's choices").
struct ReceiptCursor {
    let store: any SubscriptionStore
    let selection: ReceiptSelection
    let app: AppScope
    let detail: ReceiptDetail
    let nowMs: Int64
    let pageSize: Int
    var remaining: Int
    private var page: [ReceiptToVerify] = []
    private var index = 0
    private var position = ReceiptCursorPosition.start
    private var exhausted = false
    private var nextPage: Task<[ReceiptToVerify], any Error>?

    init(
        store: any SubscriptionStore, selection: ReceiptSelection, app: AppScope = .every,
        detail: ReceiptDetail = .receiptOnly, nowMs: Int64, pageSize: Int, limit: Int?
    ) {
        self.store = store
        self.selection = selection
        self.app = app
        self.detail = detail
        self.nowMs = nowMs
        self.pageSize = pageSize
        self.remaining = limit ?? .max
    }

    mutating func next() async throws(StoreError) -> ReceiptToVerify? {
        guard remaining > 0 else {
            nextPage?.cancel()
            return nil
        }
        if index == page.count {
            guard !exhausted else { return nil }
            page = try await takeNextPage()
            index = 0
            if page.count < pageSize { exhausted = true }
            guard let last = page.last else { return nil }
            position = ReceiptCursorPosition(nextDueAt: last.nextDueAt, id: last.id)
        }
        if nextPage == nil, !exhausted, index >= page.count / 2, remaining > page.count - index {
            nextPage = readAhead()
        }
        defer { index += 1 }
        remaining -= 1
        return page[index]
    }

    /// Waits for a page read ahead and not taken (the run ended first): no read of a cursor
    /// outlives its run (on PostgreSQL a read of due receipts claims them, and the run gives back
    /// its claims after this).
    mutating func close() async {
        guard let pending = nextPage else { return }
        nextPage = nil
        pending.cancel()
        _ = try? await pending.value
    }

    private func readAhead() -> Task<[ReceiptToVerify], any Error> {
        let (store, selection, app, detail, position, nowMs) = (store, selection, app, detail, position, nowMs)
        let limit = min(pageSize, remaining - (page.count - index))
        // Unstructured because the cursor is a value the run steps through a receipt at a time: a
        // child would need a group around the whole run loop, its pages sorted from the answers.
        // The run awaits it through `close()`.
        return Task {
            try await store.receipts(selection, app: app, after: position, limit: limit, nowMs: nowMs, detail: detail)
        }
    }

    private mutating func takeNextPage() async throws(StoreError) -> [ReceiptToVerify] {
        let pending = nextPage ?? readAhead()
        nextPage = nil
        do {
            return try await pending.value
        } catch let error as StoreError {
            throw error
        } catch {
            throw .failed(operation: "reading receipts to verify", reason: StoreError.reason(error))
        }
    }
}
