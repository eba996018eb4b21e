import Logging
import SubReconModel
import Synchronization

/// Paces every App Store Server API request of the process (status and history calls alike) to
/// at most `requestsPerSecond`, however many are in flight: each request takes the next free
/// slot and sleeps until it. A 429's `Retry-After` pushes every later slot past that time, so the
/// whole run slows down instead of each request finding out for itself.
///
/// With a shared schedule (several workers on one PostgreSQL database) the slots come from the
/// database, so that the workers together stay under the rate: when its requests need slots, the
/// limiter reserves a batch of consecutive ones (about a tenth of a second's worth), converts them
/// to its own clock, and hands them out in order; it reserves the next batch shortly before the
/// last slot of the current one, so it never holds more than about one batch ahead. A 429 pushes the
/// shared schedule as well, so every worker pauses. When the schedule answers nil (SQLite: one
/// process has the budget to itself), the limiter paces on its own, as without one.
public final class APIRateLimiter: Sendable {
    /// The figures a run summary and the metrics show.
    public struct Figures: Sendable, Equatable {
        public var requests: Int
        public var rateLimited: Int
        public var firstRequestMs: Int64?
        public var lastRequestMs: Int64?

        /// Requests per second between the first and the last request (nil below two requests).
        public var achievedRate: Double? {
            guard let first = firstRequestMs, let last = lastRequestMs, requests > 1, last > first else { return nil }
            return Double(requests - 1) * 1000 / Double(last - first)
        }

        /// Several limiters' figures (several apps' budgets side by side) as one.
        public static func together(_ figures: [Figures]) -> Figures {
            Figures(
                requests: figures.map(\.requests).reduce(0, +), rateLimited: figures.map(\.rateLimited).reduce(0, +),
                firstRequestMs: figures.compactMap(\.firstRequestMs).min(),
                lastRequestMs: figures.compactMap(\.lastRequestMs).max())
        }
    }

    /// Slots of a shared reservation, on the limiter's clock, not handed out yet.
    private struct Batch {
        var nextNs: Int64
        var remaining: Int
        var intervalNs: Int64
    }

    private struct State {
        /// Pacing alone: the next free slot. With a shared schedule: no slot before it (a 429's pause).
        var nextSlotNs: Int64 = .min
        var figures = Figures(requests: 0, rateLimited: 0)
        var batch = Batch(nextNs: .min, remaining: 0, intervalNs: 0)
        /// The last slot handed out from a shared reservation.
        var lastSlotNs: Int64 = .min
        /// The reservation under way, which every request without a slot waits for.
        var refill: Task<Void, Never>?
        /// The shared schedule answered nil: pace alone from now on.
        var alone = false
        var warnedOfFallback = false
    }

    private enum Step {
        case slot(Int64)
        case wait(Task<Void, Never>)
    }

    /// 0 = no limit.
    public let requestsPerSecond: Double
    private let intervalNs: Int64
    private let schedule: SharedRateSchedule?
    /// Slots reserved at a time from a shared schedule: a tenth of a second's worth, at least one.
    package let batchSize: Int
    /// The shared schedule's spacing, rounded up to whole microseconds (rounding down would exceed
    /// the rate: 30/s is 33,333.3 µs).
    package let intervalMicros: Int64
    /// How long before the last slot of a batch the next batch is reserved (the database's round trip).
    package let leadNs: Int64
    private let clockNs: @Sendable () -> Int64
    private let sleep: @Sendable (Int64) async throws -> Void
    private let logger: Logger?
    private let state = Mutex(State())

    /// - Parameters:
    ///   - schedule: the budget shared with other workers (nil: this process's own).
    ///   - clockNs: a monotonic clock in nanoseconds (injected for tests).
    ///   - sleep: waits that many nanoseconds on that clock (injected for tests).
    public init(
        requestsPerSecond: Double, schedule: SharedRateSchedule? = nil,
        clockNs: @escaping @Sendable () -> Int64 = APIRateLimiter.monotonicNs,
        sleep: @escaping @Sendable (Int64) async throws -> Void = { try await Task.sleep(for: .nanoseconds($0)) },
        logger: Logger? = nil
    ) {
        let rate = max(0, requestsPerSecond)
        self.requestsPerSecond = rate
        intervalNs = rate > 0 ? Int64((1_000_000_000 / rate).rounded()) : 0
        intervalMicros = rate > 0 ? Int64((1_000_000 / rate).rounded(.up)) : 0
        batchSize = max(1, Int(rate / 10))
        leadNs = min(20_000_000, Int64(batchSize) * intervalMicros * 1000 / 2)
        self.schedule = rate > 0 ? schedule : nil
        self.clockNs = clockNs
        self.sleep = sleep
        self.logger = logger
    }

    /// Waits for this request's slot. Throws only when the task is cancelled.
    public func acquire() async throws {
        let slot = try await nextSlot()
        let now = clockNs()
        if slot > now { try await sleep(slot - now) }
    }

    /// The next free slot (on the limiter's clock), counted as a request; with a shared schedule it
    /// may wait for a reservation, never for the slot itself.
    package func nextSlot() async throws -> Int64 {
        guard let schedule else { return reserve(now: clockNs()) }
        while true {
            try Task.checkCancellation()
            let step = state.withLock { state -> Step in
                if state.alone { return .slot(Self.take(&state, now: clockNs(), intervalNs: intervalNs)) }
                if state.batch.remaining > 0 {
                    let slot = state.batch.nextNs
                    state.batch.nextNs += state.batch.intervalNs
                    state.batch.remaining -= 1
                    state.lastSlotNs = slot
                    Self.count(slot, in: &state)
                    return .slot(slot)
                }
                if let refill = state.refill { return .wait(refill) }
                let after = max(state.lastSlotNs, state.nextSlotNs)
                // Unstructured: every request waiting here shares it, so it must not end with the one that started it.
                let refill = Task { await self.refill(from: schedule, after: after) }
                state.refill = refill
                return .wait(refill)
            }
            switch step {
            case .slot(let slot): return slot
            case .wait(let refill): await refill.value
            }
        }
    }

    /// Reserves the next batch of shared slots, shortly before `after` (the last slot handed out,
    /// or the end of a pause), and makes it the current one.
    private func refill(from schedule: SharedRateSchedule, after: Int64) async {
        if after != .min {
            let wait = after - leadNs - clockNs()
            if wait > 0 { try? await sleep(wait) }
        }
        var batch: Batch
        do {
            guard let reservation = try await schedule.reserve(batchSize, intervalMicros) else {
                state.withLock { state in
                    state.alone = true
                    state.refill = nil
                }
                return
            }
            // The database said how far ahead its slots are; counted from when its answer arrived
            // (a little late, never early), they land on this worker's clock.
            batch = Batch(
                nextNs: clockNs() + reservation.firstSlotDelayMicros * 1000, remaining: reservation.count,
                intervalNs: reservation.intervalMicros * 1000)
        } catch {
            // The database will fail the run's writes too; meanwhile this worker paces alone.
            let warn = state.withLock { state in
                defer { state.warnedOfFallback = true }
                return !state.warnedOfFallback
            }
            if warn {
                logger?.warning(
                    "could not reserve App Store Server API request slots shared with the other workers (\(error)); this worker paces its requests alone until it can")
            }
            let now = clockNs()
            batch = Batch(
                nextNs: after == .min ? now : max(now, after + intervalMicros * 1000), remaining: batchSize,
                intervalNs: intervalMicros * 1000)
        }
        state.withLock { state in
            // Never before a pause this worker knows of, should the shared schedule not have heard of it.
            if state.nextSlotNs > batch.nextNs { batch.nextNs = state.nextSlotNs }
            state.batch = batch
            state.refill = nil
        }
    }

    private func reserve(now: Int64) -> Int64 {
        state.withLock { state in Self.take(&state, now: now, intervalNs: intervalNs) }
    }

    private static func take(_ state: inout State, now: Int64, intervalNs: Int64) -> Int64 {
        let slot = max(now, state.nextSlotNs)
        state.nextSlotNs = slot + intervalNs
        count(slot, in: &state)
        return slot
    }

    private static func count(_ slot: Int64, in state: inout State) {
        let slotMs = slot / 1_000_000
        state.figures.requests += 1
        if state.figures.firstRequestMs == nil { state.figures.firstRequestMs = slotMs }
        state.figures.lastRequestMs = max(state.figures.lastRequestMs ?? .min, slotMs)
    }

    /// Apple answered 429: no request leaves before `waitNs` from now, from this worker or, through
    /// the shared schedule, any other.
    public func rateLimited(retryAfterNs waitNs: Int64) async {
        let wait = max(0, waitNs)
        let until = clockNs() + wait
        let shared = state.withLock { state -> Bool in
            state.figures.rateLimited += 1
            state.nextSlotNs = max(state.nextSlotNs, until)
            // The rest of the current reservation lies before the pause.
            state.batch.remaining = 0
            return !state.alone
        }
        guard shared, let schedule else { return }
        do {
            try await schedule.pause(wait / 1000)
        } catch {
            logger?.warning("could not pause the other workers' App Store Server API requests after a 429 (\(error))")
        }
    }

    public var figures: Figures { state.withLock { $0.figures } }

    private static let origin = ContinuousClock.now

    /// Nanoseconds on the process's monotonic clock.
    @Sendable public static func monotonicNs() -> Int64 {
        origin.duration(to: .now).nanoseconds
    }
}

/// Where an `APIRateLimiter`'s slots come from when several workers share one rate budget.
public struct SharedRateSchedule: Sendable {
    /// Reserves `count` consecutive slots `intervalMicros` apart; nil: the budget is this process's own.
    public var reserve: @Sendable (_ count: Int, _ intervalMicros: Int64) async throws -> SlotReservation?
    /// Pushes the schedule `micros` past now (a 429).
    public var pause: @Sendable (_ micros: Int64) async throws -> Void

    public init(
        reserve: @escaping @Sendable (_ count: Int, _ intervalMicros: Int64) async throws -> SlotReservation?,
        pause: @escaping @Sendable (_ micros: Int64) async throws -> Void
    ) {
        self.reserve = reserve
        self.pause = pause
    }
}
