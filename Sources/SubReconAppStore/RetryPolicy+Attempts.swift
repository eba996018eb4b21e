import SubReconModel

/// The one retry loop every Apple call goes through (a receipt's verification, a notification
/// history page, Set App Account Token): the caller says what one attempt came to, the policy
/// decides whether and when to try again, and cancellation ends the waiting instead of being
/// swallowed by it.
extension RetryPolicy {
    /// What one attempt of an Apple call came to.
    package enum Attempt<Value, Failure> {
        case success(Value)
        /// Final: asking again would get the same answer (Apple's refusal, an unreadable body).
        case failure(Failure)
        /// Worth another attempt (no answer, a 5xx, a 429), after at least `retryAfter` when Apple asked.
        case transient(Failure, retryAfter: Duration? = nil)
    }

    /// How the attempts ended.
    package enum Retried<Value, Failure> {
        case success(Value)
        /// A final failure, at the `attempts`-th attempt.
        case failure(Failure, attempts: Int)
        /// Still transient after the policy's attempts, or Apple asked for a longer wait than it allows.
        case exhausted(Failure, attempts: Int)
        /// The task was cancelled while a retry was due: before the wait (`whileWaiting` false) or during it.
        case cancelled(Failure, attempts: Int, whileWaiting: Bool)
    }

    /// How a retry waits; tests pass one that records the waits and returns at once.
    package typealias Sleep = @Sendable (Duration) async throws -> Void

    package static let taskSleep: Sleep = { try await Task.sleep(for: $0) }

    /// Runs `attempt` (numbered from 1) until it succeeds, fails for good, runs out of attempts or
    /// the task is cancelled. Between attempts it waits `delay(afterAttempt:retryAfter:random:)`,
    /// telling `willRetry` first (to log it).
    package func run<Value, Failure>(
        sleep: Sleep = RetryPolicy.taskSleep, random: () -> Double = { Double.random(in: 0..<1) },
        willRetry: (_ failure: Failure, _ attempt: Int, _ wait: Duration) -> Void = { _, _, _ in },
        _ attempt: (_ number: Int) async -> Attempt<Value, Failure>
    ) async -> Retried<Value, Failure> {
        var number = 1
        while true {
            let failure: Failure
            let retryAfter: Duration?
            switch await attempt(number) {
            case .success(let value): return .success(value)
            case .failure(let final): return .failure(final, attempts: number)
            case .transient(let transient, let asked):
                failure = transient
                retryAfter = asked
            }
            guard !Task.isCancelled else { return .cancelled(failure, attempts: number, whileWaiting: false) }
            guard let wait = delay(afterAttempt: number, retryAfter: retryAfter, random: random()) else {
                return .exhausted(failure, attempts: number)
            }
            willRetry(failure, number, wait)
            do {
                try await sleep(wait)
            } catch {
                return .cancelled(failure, attempts: number, whileWaiting: true)
            }
            number += 1
        }
    }

    /// Whether Apple's refusal may pass when asked again: a 429 (after its `Retry-After`), a 408,
    /// any 5xx, or one of Apple's `…RetryableError` codes.
    package static func isTransient(status: Int, code: ServerAPIErrorCode?) -> Bool {
        status == 429 || status == 408 || status >= 500 || code?.isRetryable == true
    }
}

extension RetryPolicy.Attempt: Sendable where Value: Sendable, Failure: Sendable {}
extension RetryPolicy.Retried: Sendable where Value: Sendable, Failure: Sendable {}
