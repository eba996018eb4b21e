/// Answers waiting to be written together, in one transaction: a batch is due when it is full,
/// when its oldest answer has waited `maxDelay`, or when nothing else is in flight to join it.
/// The clock is read only when it decides something (the first answer of a batch, and a batch
/// neither full nor alone), so the run pays for it rarely.
struct WriteBatcher<Item> {
    let maxCount: Int
    let maxDelay: Duration
    private var items: [Item] = []
    private var oldest: ContinuousClock.Instant

    init(maxCount: Int, maxDelay: Duration, now: ContinuousClock.Instant = .now) {
        self.maxCount = maxCount
        self.maxDelay = maxDelay
        self.oldest = now
    }

    var isEmpty: Bool { items.isEmpty }
    var count: Int { items.count }

    mutating func add(_ item: Item, now: @autoclosure () -> ContinuousClock.Instant = ContinuousClock.now) {
        if items.isEmpty { oldest = now() }
        items.append(item)
    }

    /// Whether the batch should be written now; `idle`: nothing else is in flight.
    func isDue(idle: Bool, now: @autoclosure () -> ContinuousClock.Instant = ContinuousClock.now) -> Bool {
        items.count >= maxCount || idle || now() - oldest >= maxDelay
    }

    /// The batch, in the order it was added; the batcher starts a new one.
    mutating func take() -> [Item] {
        let batch = items
        items.removeAll(keepingCapacity: true)
        return batch
    }
}
