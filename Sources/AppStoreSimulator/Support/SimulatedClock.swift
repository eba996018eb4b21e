import Foundation
import Synchronization

/// A source of "now" in Unix-epoch milliseconds. The simulator reads every request's time from one.
public typealias MillisecondsClock = @Sendable () -> Int64

/// A thread-safe, manually driven millisecond clock, so tests and benchmarks can move time
/// (and watch subscriptions renew, lapse or get refunded) without waiting.
public final class SimulatedClock: Sendable {
    private let storage: Atomic<Int64>

    /// Creates a clock that reads `nowMs` until it is advanced or set.
    public init(nowMs: Int64) {
        storage = Atomic(nowMs)
    }

    /// The current simulated time in Unix-epoch milliseconds.
    public var nowMs: Int64 {
        storage.load(ordering: .sequentiallyConsistent)
    }

    /// Moves the clock forward (or backward, with a negative value) by `deltaMs` milliseconds.
    public func advance(byMs deltaMs: Int64) {
        storage.wrappingAdd(deltaMs, ordering: .sequentiallyConsistent)
    }

    /// Jumps the clock to `nowMs`.
    public func set(nowMs: Int64) {
        storage.store(nowMs, ordering: .sequentiallyConsistent)
    }

    /// This clock as a `MillisecondsClock`, for `SimulatorOptions.clock`.
    public var millisecondsClock: MillisecondsClock {
        { [self] in self.nowMs }
    }

    /// A `MillisecondsClock` that reads the wall clock (used by `subrecon simulator`).
    public static func wall() -> MillisecondsClock {
        { wallNowMs() }
    }

    /// The wall clock's current time in Unix-epoch milliseconds.
    public static func wallNowMs() -> Int64 {
        Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
    }
}
