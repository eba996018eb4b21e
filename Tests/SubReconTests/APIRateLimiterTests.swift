@testable import SubRecon
@testable import SubReconAppStore
@testable import SubReconModel
@testable import SubReconStore
import Synchronization
import Testing

/// The limiter's slots, against a clock the test moves (no wall-clock timing).
@Suite("API rate limiter")
struct APIRateLimiterTests {
    final class FakeClock: Sendable {
        let ns = Mutex<Int64>(0)
        var now: @Sendable () -> Int64 { { [self] in ns.withLock { $0 } } }
        func set(_ value: Int64) { ns.withLock { $0 = value } }
        /// A sleep that only moves the clock on (no real waiting).
        var sleep: @Sendable (Int64) async throws -> Void { { [self] wait in ns.withLock { $0 += max(0, wait) } } }
    }

    @Test func requestsTakeEvenlySpacedSlotsAndTheFirstGoesAtOnce() async throws {
        let clock = FakeClock()
        clock.set(1_000_000_000)
        let limiter = APIRateLimiter(requestsPerSecond: 1_000_000, clockNs: clock.now)  // 1 µs apart: sleeps are tiny
        for _ in 0..<5 { try await limiter.acquire() }
        let figures = limiter.figures
        #expect(figures.requests == 5)
        #expect(figures.rateLimited == 0)
    }

    @Test func theReservedSlotsFollowTheRate() async throws {
        // 50/s = 20 ms apart: the fifth request of a burst is 80 ms after the first.
        let clock = FakeClock()
        let limiter = APIRateLimiter(requestsPerSecond: 50, clockNs: clock.now)
        var slots: [Int64] = []
        for _ in 0..<5 { slots.append(try await limiter.nextSlot()) }
        #expect(slots == [0, 20_000_000, 40_000_000, 60_000_000, 80_000_000])
        #expect(limiter.figures.achievedRate.map { ($0 * 10).rounded() / 10 } == 50)
    }

    @Test func a429PushesEveryLaterSlotPastRetryAfter() async throws {
        let clock = FakeClock()
        let limiter = APIRateLimiter(requestsPerSecond: 100, clockNs: clock.now)
        _ = try await limiter.nextSlot()
        await limiter.rateLimited(retryAfterNs: 2_000_000_000)
        #expect(try await limiter.nextSlot() == 2_000_000_000)
        #expect(try await limiter.nextSlot() == 2_010_000_000)
        #expect(limiter.figures.rateLimited == 1)
    }

    @Test func zeroMeansNoLimit() async throws {
        let clock = FakeClock()
        let limiter = APIRateLimiter(requestsPerSecond: 0, clockNs: clock.now)
        var slots: [Int64] = []
        for _ in 0..<3 { slots.append(try await limiter.nextSlot()) }
        #expect(slots == [0, 0, 0])
    }

    @Test(arguments: [
        ("1795329969000", Duration.milliseconds(5_000)), ("7", .seconds(7)), ("1795329960000", .zero),
        ("soon", .seconds(1)), (nil, .seconds(1)),
    ] as [(String?, Duration)])
    func retryAfterIsEpochMillisecondsOrSeconds(header: String?, expected: Duration) {
        #expect(ServerAPIConnection.retryAfter(header, nowMs: 1_795_329_964_000) == expected)
    }
}
