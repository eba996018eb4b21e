import SubReconModel
import SubReconAppStore
import SubReconStore

/// Group commit for notifications: what arrives while a write is in progress is written together
/// in the next transaction, so a busy receiver pays a transaction's round trips once per batch
/// instead of once per notification (on PostgreSQL those round trips, not the rows, were the
/// bound one at a time; docs/performance.md, "Notifications receiver"). Nothing waits for a batch
/// to fill: an idle receiver writes each notification at once, alone.
///
/// Each notification's writes are still all in or all out (they share the batch's transaction),
/// and a caller is answered only after the commit, so a 200 still means durably stored.
actor NotificationWriteQueue {
    typealias Outcome = Result<NotificationStoreResult, StoreError>

    private struct Waiting {
        let write: NotificationWrite
        let continuation: CheckedContinuation<Outcome, Never>
    }

    private let store: any SubscriptionStore
    private let maxBatch: Int
    private let maxWriters: Int
    private var waiting: [Waiting] = []
    private var writers = 0

    /// `maxWriters` transactions at most at a time (one commits while the next is built).
    init(store: any SubscriptionStore, maxBatch: Int = 64, maxWriters: Int = 2) {
        precondition(maxBatch > 0 && maxWriters > 0)
        self.store = store
        self.maxBatch = maxBatch
        self.maxWriters = maxWriters
    }

    /// Stores `write` (with whatever else is waiting) and returns what the store did with it.
    func store(_ write: NotificationWrite) async -> Outcome {
        await withCheckedContinuation { continuation in
            waiting.append(Waiting(write: write, continuation: continuation))
            guard writers < maxWriters else { return }
            writers += 1
            // Unstructured on purpose: a writer writes other requests' notifications too, so it
            // must not share the cancellation or the lifetime of the request that happened to
            // start it. It outlives that request only while others wait; it ends when nothing is left.
            Task { await self.drain() }
        }
    }

    private func drain() async {
        while !waiting.isEmpty {
            let batch = Array(waiting.prefix(maxBatch))
            waiting.removeFirst(batch.count)
            let store = store
            let outcomes = await Self.write(batch.map(\.write)) { writes throws(StoreError) in try await store.storeNotifications(writes) }
            for (item, outcome) in zip(batch, outcomes) { item.continuation.resume(returning: outcome) }
        }
        writers -= 1
    }

    /// One transaction for the batch (`storing`: the store's `storeNotifications`). If it fails, the
    /// notifications are tried one at a time, so a notification the database cannot take fails
    /// alone; once two of those fail in a row, the database itself is failing and the rest are
    /// answered with that error without waiting on it again.
    static func write(
        _ writes: [NotificationWrite],
        storing: @Sendable ([NotificationWrite]) async throws(StoreError) -> [NotificationStoreResult]
    ) async -> [Outcome] {
        do {
            let results = try await storing(writes)
            return results.map { .success($0) }
        } catch {
            guard writes.count > 1 else { return [.failure(error)] }
            var outcomes: [Outcome] = []
            var failuresInARow = 0
            for write in writes {
                if failuresInARow >= 2, case .failure(let failure) = outcomes.last {
                    outcomes.append(.failure(failure))
                    continue
                }
                do {
                    let results = try await storing([write])
                    outcomes.append(.success(results[0]))
                    failuresInARow = 0
                } catch {
                    outcomes.append(.failure(error))
                    failuresInARow += 1
                }
            }
            return outcomes
        }
    }
}
