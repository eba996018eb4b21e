/// Streams a selection of receipts from the store in keyset pages, so a run over a million
/// receipts holds one page in memory, not the table.
struct ReceiptCursor {
    let store: any SubscriptionStore
    let selection: ReceiptSelection
    let nowMs: Int64
    let pageSize: Int
    var remaining: Int
    private var page: [ReceiptToVerify] = []
    private var index = 0
    private var position = ReceiptCursorPosition.start
    private var exhausted = false

    init(store: any SubscriptionStore, selection: ReceiptSelection, nowMs: Int64, pageSize: Int, limit: Int?) {
        self.store = store
        self.selection = selection
        self.nowMs = nowMs
        self.pageSize = pageSize
        self.remaining = limit ?? .max
    }

    mutating func next() async throws(StoreError) -> ReceiptToVerify? {
        guard remaining > 0 else { return nil }
        if index == page.count {
            guard !exhausted else { return nil }
            page = try await store.receipts(
                selection, after: position, limit: min(pageSize, remaining), nowMs: nowMs)
            index = 0
            if page.count < pageSize { exhausted = true }
            guard let last = page.last else { return nil }
            position = ReceiptCursorPosition(nextDueAt: last.nextDueAt, id: last.id)
        }
        defer { index += 1 }
        remaining -= 1
        return page[index]
    }
}
