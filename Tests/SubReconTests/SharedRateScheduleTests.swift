import Synchronization
import Testing

@testable import SubRecon
@testable import SubReconModel
@testable import SubReconAppStore
@testable import SubReconStore

/// The limiter pacing requests from reservations of a schedule shared with other workers, against
/// a clock the test moves and a schedule that works as PostgreSQL's `api_rate` row does: no
/// wall-clock timing, only the slot times the limiter computes.
@Suite("API rate limiter: the schedule workers share")
struct SharedRateScheduleTests {
    typealias FakeClock = APIRateLimiterTests.FakeClock

    /// `api_rate` as the SQL keeps it: `next = max(next, now) + n × interval`, a pause
    /// `next = max(next, now + pause)`, on a database clock far from the workers' (another host's).
    final class FakeDatabase: Sendable {
        struct Call: Equatable {
            var atLocalNs: Int64
            var count: Int?
            var pauseMicros: Int64?
        }

        let clock: FakeClock
        /// The database's clock is the local one shifted by this much (hosts' clocks disagree).
        let offsetMicros: Int64 = 1_795_329_964_000_000
        private let state = Mutex<(nextSlotMicros: Int64, calls: [Call], reservations: [SlotReservation])>((0, [], []))
        /// What reservations do instead: answer nil (SQLite), or fail.
        let mode: Mode

        enum Mode: Sendable { case shared, alone, unreachable }

        init(clock: FakeClock, mode: Mode = .shared) {
            self.clock = clock
            self.mode = mode
        }

        var nowMicros: Int64 { clock.now() / 1000 + offsetMicros }

        func schedule() -> SharedRateSchedule {
            SharedRateSchedule(
                reserve: { [self] count, interval in
                    let now = nowMicros
                    return try state.withLock { state in
                        state.calls.append(Call(atLocalNs: clock.now(), count: count))
                        switch mode {
                        case .alone: return nil
                        case .unreachable: throw StoreError.failed(operation: "reserving", reason: "connection refused")
                        case .shared: break
                        }
                        let first = max(state.nextSlotMicros, now)
                        state.nextSlotMicros = first + Int64(count) * interval
                        let reservation = SlotReservation(
                            databaseNowMicros: now, firstSlotMicros: first, count: count, intervalMicros: interval)
                        state.reservations.append(reservation)
                        return reservation
                    }
                },
                pause: { [self] micros in
                    let now = nowMicros
                    state.withLock { state in
                        state.calls.append(Call(atLocalNs: clock.now(), pauseMicros: micros))
                        state.nextSlotMicros = max(state.nextSlotMicros, now + micros)
                    }
                })
        }

        /// Another worker took slots up to `micros` past now.
        func holdSlots(for micros: Int64) { state.withLock { $0.nextSlotMicros = nowMicros + micros } }
        var calls: [Call] { state.withLock { $0.calls } }
        var reservations: [SlotReservation] { state.withLock { $0.reservations } }
    }

    func limiter(_ rate: Double, _ database: FakeDatabase) -> APIRateLimiter {
        APIRateLimiter(
            requestsPerSecond: rate, schedule: database.schedule(), clockNs: database.clock.now, sleep: database.clock.sleep)
    }

    static let ms: Int64 = 1_000_000

    @Test func reservedSlotsLandOnTheWorkersClockAndTheNextBatchIsReservedShortlyBeforeTheLast() async throws {
        let clock = FakeClock()
        clock.set(1_000 * Self.ms)
        let database = FakeDatabase(clock: clock)
        database.holdSlots(for: 30_000)  // another worker holds the next 30 ms
        let limiter = limiter(200, database)  // 20 slots of 5 ms a batch

        var slots: [Int64] = []
        for _ in 0..<25 { slots.append(try await limiter.nextSlot()) }

        // The first batch: 30 ms from now (the database's figure, on the worker's clock), 5 ms
        // apart; the next follows on without a gap (nobody else reserved) ...
        let expected: [Int64] = (0..<25).map { index in 1_030 * Self.ms + Int64(index) * 5 * Self.ms }
        #expect(slots == expected)
        // ... and was reserved 20 ms before the first batch's last slot (1,125 ms), not as soon as
        // the batch was handed out: a worker holds about one batch (100 ms) of slots at a time.
        #expect(database.calls.map(\.atLocalNs) == [1_000 * Self.ms, 1_105 * Self.ms])
        #expect(database.calls.map(\.count) == [20, 20])
        #expect(limiter.figures.requests == 25)
    }

    @Test func twoWorkersSharingTheScheduleNeverTakeTheSameSlot() async throws {
        let clock = FakeClock()
        let database = FakeDatabase(clock: clock)
        let first = limiter(50, database)  // 5 slots of 20 ms a batch
        let second = limiter(50, database)

        var slots: [Int64] = []
        for index in 0..<60 { slots.append(try await (index % 3 == 0 ? second : first).nextSlot()) }

        let sorted = slots.sorted()
        let gaps = zip(sorted, sorted.dropFirst()).map { $1 - $0 }
        #expect(gaps.allSatisfy { $0 >= 20 * Self.ms })
        // Together they kept the rate: 60 slots span 59 intervals, no more (no slot was wasted).
        #expect(sorted.last! - sorted.first! == 59 * 20 * Self.ms)
        #expect(database.reservations.count == 12)
    }

    @Test func requestsWaitingTogetherGetDistinctSlotsFromFewReservations() async throws {
        let clock = FakeClock()
        let database = FakeDatabase(clock: clock)
        let limiter = limiter(200, database)

        let slots = try await withThrowingTaskGroup(of: Int64.self) { group in
            for _ in 0..<50 { group.addTask { try await limiter.nextSlot() } }
            return try await group.reduce(into: []) { $0.append($1) }
        }

        #expect(Set(slots).count == 50)
        let expected: [Int64] = (0..<50).map { index in Int64(index) * 5 * Self.ms }
        #expect(slots.sorted() == expected)
        #expect(database.reservations.count == 3)  // 20 + 20 + 10 of the third
    }

    @Test func a429PausesTheSharedScheduleAndTheWorkerWaitsItOut() async throws {
        let clock = FakeClock()
        let database = FakeDatabase(clock: clock)
        let limiter = limiter(200, database)
        for _ in 0..<3 { _ = try await limiter.nextSlot() }

        await limiter.rateLimited(retryAfterNs: 2_000 * Self.ms)
        let next = try await limiter.nextSlot()

        // The database heard of the pause (so every worker waits), and the rest of the batch
        // (slots before the pause) was dropped: the next slot is the first after it.
        #expect(database.calls.compactMap(\.pauseMicros) == [2_000_000])
        #expect(next == 2_000 * Self.ms)
        #expect(database.calls.last?.atLocalNs == 1_980 * Self.ms)
        #expect(limiter.figures.rateLimited == 1)
    }

    /// SQLite answers nil: the worker paces alone from then on, asking once. A database that
    /// cannot be reached: it paces alone for a batch and asks again for the next.
    @Test(arguments: [(FakeDatabase.Mode.alone, 1), (.unreachable, 2)])
    func withoutASharedScheduleTheWorkerPacesAlone(mode: FakeDatabase.Mode, asked: Int) async throws {
        let clock = FakeClock()
        let database = FakeDatabase(clock: clock, mode: mode)
        let limiter = limiter(200, database)

        var slots: [Int64] = []
        for _ in 0..<30 { slots.append(try await limiter.nextSlot()) }

        let expected: [Int64] = (0..<30).map { index in Int64(index) * 5 * Self.ms }
        #expect(slots == expected)
        #expect(database.calls.count == asked)
    }

    @Test(arguments: [
        (200.0, 20, Int64(5_000)), (40, 4, 25_000), (30, 3, 33_334), (5, 1, 200_000), (0.5, 1, 2_000_000),
    ])
    func aBatchIsATenthOfASecondsWorthInWholeMicrosecondsRoundedUp(rate: Double, batch: Int, interval: Int64) {
        let limiter = APIRateLimiter(requestsPerSecond: rate, schedule: FakeDatabase(clock: FakeClock()).schedule())
        #expect(limiter.batchSize == batch)
        #expect(limiter.intervalMicros == interval)
        // Never faster than the rate.
        #expect(Double(limiter.intervalMicros) * rate >= 1_000_000)
    }
}
