import Synchronization

/// Paces every App Store Server API request of the process (status and history calls alike) to
/// at most `requestsPerSecond`, however many are in flight: each request reserves the next free
/// slot and sleeps until it. A 429's `Retry-After` pushes every later slot past that time, so the
/// whole run slows down instead of each request finding out for itself.
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
    }

    private struct State {
        var nextSlotNs: Int64 = .min
        var figures = Figures(requests: 0, rateLimited: 0)
    }

    /// 0 = no limit.
    public let requestsPerSecond: Double
    private let intervalNs: Int64
    private let clockNs: @Sendable () -> Int64
    private let state = Mutex(State())

    /// - Parameter clockNs: a monotonic clock in nanoseconds (injected for tests).
    public init(requestsPerSecond: Double, clockNs: @escaping @Sendable () -> Int64 = APIRateLimiter.monotonicNs) {
        self.requestsPerSecond = max(0, requestsPerSecond)
        intervalNs = requestsPerSecond > 0 ? Int64((1_000_000_000 / requestsPerSecond).rounded()) : 0
        self.clockNs = clockNs
    }

    /// Waits for this request's slot. Throws only when the task is cancelled while waiting.
    public func acquire() async throws {
        let now = clockNs()
        let slot = reserve(now: now)
        if slot > now { try await Task.sleep(for: .nanoseconds(slot - now)) }
    }

    /// The next free slot (on the limiter's clock), counted as a request.
    func reserveForTesting() -> Int64 { reserve(now: clockNs()) }

    private func reserve(now: Int64) -> Int64 {
        state.withLock { state -> Int64 in
            let slot = max(now, state.nextSlotNs)
            state.nextSlotNs = slot + intervalNs
            let slotMs = slot / 1_000_000
            state.figures.requests += 1
            if state.figures.firstRequestMs == nil { state.figures.firstRequestMs = slotMs }
            state.figures.lastRequestMs = max(state.figures.lastRequestMs ?? .min, slotMs)
            return slot
        }
    }

    /// Apple answered 429: no request leaves before `waitNs` from now.
    public func rateLimited(retryAfterNs waitNs: Int64) {
        let until = clockNs() + max(0, waitNs)
        state.withLock { state in
            state.figures.rateLimited += 1
            state.nextSlotNs = max(state.nextSlotNs, until)
        }
    }

    public var figures: Figures { state.withLock { $0.figures } }

    private static let origin = ContinuousClock.now

    /// Nanoseconds on the process's monotonic clock.
    @Sendable public static func monotonicNs() -> Int64 {
        let elapsed = origin.duration(to: .now).components
        return elapsed.seconds * 1_000_000_000 + elapsed.attoseconds / 1_000_000_000
    }
}
