import Synchronization

/// The `SalesReportFault`s still to answer, oldest first: one per request.
final class SalesReportFaultQueue: Sendable {
    private let queue: Mutex<[SalesReportFault]>

    init(_ faults: [SalesReportFault] = []) {
        queue = Mutex(faults)
    }

    /// The next fault to answer, removed from the queue; nil when none is left.
    func next() -> SalesReportFault? {
        queue.withLock { $0.isEmpty ? nil : $0.removeFirst() }
    }

    /// Queues `faults` after those still waiting.
    func append(_ faults: [SalesReportFault]) {
        queue.withLock { $0.append(contentsOf: faults) }
    }
}
